"""How the chapters show numbers: tensors as typeset LaTeX matrices, not nested lists."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._validate import check_array, check_int

__all__ = ["latex_matrix"]


def _entry(value: float, digits: int | None) -> str:
    text = f"{value:g}" if digits is None else f"{value:.{digits}f}"
    # rounding can leave "-0" or "-0.000": the reader should see no sign on a zero
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def latex_matrix(values: torch.Tensor | Sequence, digits: int | None = None) -> str:
    r"""Write a vector or a matrix as a LaTeX ``bmatrix``, for MathJax in a table or a ``Math`` output.

    A vector, shape (K,), is written as a column (the book's states are column vectors); a
    matrix, shape (R, C), row by row as PyTorch stores it. Leading axes of size 1 are dropped
    first, so an ``h_0`` of shape (1, 1, H) is a matrix of one row.

    Parameters
    ----------
    values : Tensor or nested sequence of float, shape (K,), (R, C) or (1, ..., 1, R, C)
        The numbers; anything ``torch.as_tensor`` accepts.
    digits : int, optional
        Digits after the decimal point (fixed-point); by default each entry is written in the
        shortest ``g`` form (``0.5``, ``-0.3``, ``1``), which suits hand-set values.

    Returns
    -------
    str
        ``\begin{bmatrix} ... \end{bmatrix}``, without math delimiters; negative zeros lose their sign.

    Raises
    ------
    TypeError
        If ``values`` cannot be read as numbers, or ``digits`` is not an int.
    ValueError
        If ``values`` has neither one nor two axes once leading axes of size 1 are dropped,
        or ``digits`` is negative.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.display import latex_matrix
    >>> latex_matrix(torch.tensor([[0.5, -0.25], [0.0, 1.0]]))
    '\\begin{bmatrix} 0.5 & -0.25 \\\\ 0 & 1 \\end{bmatrix}'
    >>> latex_matrix([1.0, -1e-9], digits=3)
    '\\begin{bmatrix} 1.000 \\\\ 0.000 \\end{bmatrix}'
    """
    tensor = check_array("values", values)
    digits = None if digits is None else check_int("digits", digits, minimum=0)
    while tensor.dim() > 2 and tensor.shape[0] == 1:
        tensor = tensor[0]  # (1, ..., 1, R, C) -> (R, C), e.g. an h_0 of shape (1, 1, H)
    if tensor.dim() == 1:
        tensor = tensor.unsqueeze(1)  # (K,) -> (K, 1): a column
    elif tensor.dim() != 2:
        raise ValueError(f"values must have shape (K,) or (R, C), got shape {tuple(tensor.shape)}")
    rows = [" & ".join(_entry(v, digits) for v in row) for row in tensor.tolist()]
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"
