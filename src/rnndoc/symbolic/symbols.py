"""The one symbol factory: every sympy symbol of the book is made here, real, with a LaTeX name."""

from __future__ import annotations

import sympy

from .._validate import check_int, check_str

__all__ = ["symbol_matrix"]


def symbol_matrix(
    stem: str, shape: tuple[int, ...], prefix: str | None = None, start: int = 0
) -> sympy.Matrix:
    r"""A matrix of real symbols named ``stem_{prefix,i,j}``.

    Parameters
    ----------
    stem : str
        The LaTeX stem, e.g. ``"W^{hh}"``, ``"h"``, ``r"\delta"``.
    shape : (rows,) or (rows, cols)
        One size: a column vector whose entries carry one index (``b^{ih}_{0}``); two
        sizes: a matrix whose entries carry two (``W^{hh}_{0,1}``).
    prefix : str, optional
        A leading index shared by every entry, such as the time step: ``"t"`` gives
        ``h_{t,0}``, ``"0"`` gives ``h_{0,0}``.
    start : int, default 0
        The first row index (1 for time steps counted from 1).

    Returns
    -------
    sympy.Matrix, shape (rows, 1) or (rows, cols)

    Raises
    ------
    TypeError, ValueError
        If ``shape`` is not a tuple of one or two positive ints, ``stem`` or ``prefix`` not a
        str, or ``start`` not an int of at least 0.

    Examples
    --------
    >>> from rnndoc.symbolic import symbol_matrix
    >>> symbol_matrix("W^{hh}", (1, 2)), symbol_matrix("h", (2,), prefix="t").T
    (Matrix([[W^{hh}_{0,0}, W^{hh}_{0,1}]]), Matrix([[h_{t,0}, h_{t,1}]]))
    """
    stem = check_str("stem", stem)
    if not isinstance(shape, tuple):
        raise TypeError(f"shape must be a tuple (rows,) or (rows, cols), got {type(shape).__name__}")
    if len(shape) not in (1, 2):
        raise ValueError(f"shape must be (rows,) or (rows, cols), got {shape!r}")
    for k, n in enumerate(shape):
        check_int(f"shape[{k}]", n, minimum=1)
    if prefix is not None:
        check_str("prefix", prefix)
    start = check_int("start", start, minimum=0)
    lead = [] if prefix is None else [prefix]

    def entry(i: int, j: int) -> sympy.Symbol:
        indices = [*lead, str(i + start)] + ([str(j)] if len(shape) == 2 else [])
        return sympy.Symbol(f"{stem}_{{{','.join(indices)}}}", real=True)

    return sympy.Matrix(shape[0], shape[1] if len(shape) == 2 else 1, entry)
