"""From sympy to numbers: the one evaluation policy and the one conversion to tensors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy

from .._validate import check_int, check_mapping, check_tensor

if TYPE_CHECKING:
    import torch

__all__ = ["evaluate", "to_tensor"]

#: Extra digits the substituted values carry, so that the result is right to ``digits``.
_GUARD_DIGITS = 10


def evaluate(value: object, digits: int = 50, subs: Mapping | None = None) -> Any:
    r"""Evaluate an expression or matrix to ``digits`` significant digits: the book's one evaluation policy.

    The symbol values are first substituted as Floats with ``digits`` plus 10 guard digits
    (``xreplace``), then the result is evaluated with ``evalf(digits)``: fast on the large
    trees of unrolled networks and step Jacobians, and correct to the digits asked for.

    Parameters
    ----------
    value : sympy.Expr or sympy.Matrix
    digits : int, default 50
    subs : dict, optional
        Symbol values (numbers), substituted as Floats of ``digits`` + 10 digits.

    Returns
    -------
    sympy.Float or sympy.Matrix of sympy.Float

    Raises
    ------
    TypeError
        If ``digits`` is not an int, ``value`` is not an expression or matrix, or ``subs`` is
        not a mapping of symbols to numbers.
    ValueError
        If ``digits`` is below 1.

    Examples
    --------
    >>> import sympy
    >>> from rnndoc.symbolic import evaluate
    >>> evaluate(sympy.tanh(sympy.Rational(9, 20)), digits=20)
    0.42189900525000792693
    """
    digits = check_int("digits", digits, minimum=1)
    if isinstance(value, bool) or not isinstance(value, sympy.Basic | sympy.MatrixBase | int | float):
        raise TypeError(f"value must be a sympy expression or matrix, got {type(value).__name__}")
    values = {} if subs is None else check_mapping("subs", subs)
    floats = {symbol: sympy.Float(v, digits + _GUARD_DIGITS) for symbol, v in values.items()}
    if isinstance(value, sympy.MatrixBase):
        return value.xreplace(floats).evalf(digits)
    return sympy.sympify(value).xreplace(floats).evalf(digits)


def to_tensor(value: sympy.MatrixBase | sympy.Expr, like: torch.Tensor) -> torch.Tensor:
    """A sympy number or matrix as a tensor shaped and typed like ``like``, each entry rounded once.

    Entries are read in sympy's row-major order, the order of ``like.flatten()``; so a
    column (H, 1) fills a tensor of shape (H,) or (1, 1, H) alike.

    Parameters
    ----------
    value : sympy.Expr or sympy.Matrix
        Numbers only (evaluate symbols first, :func:`evaluate`).
    like : Tensor
        Supplies the shape and the dtype.

    Returns
    -------
    Tensor, shape and dtype of ``like``

    Raises
    ------
    TypeError
        If ``like`` is not a floating tensor, or an entry is not a number.
    ValueError
        If ``value`` has not ``like.numel()`` entries.

    Examples
    --------
    >>> import sympy, torch
    >>> from rnndoc.symbolic import to_tensor
    >>> to_tensor(sympy.Matrix([sympy.Rational(1, 3), 2]), like=torch.zeros(1, 1, 2, dtype=torch.float64))
    tensor([[[0.3333, 2.0000]]], dtype=torch.float64)
    """
    import torch  # noqa: PLC0415 (the symbolic package stays importable without torch)

    like = check_tensor("like", like)
    if isinstance(value, bool) or not isinstance(value, sympy.Basic | sympy.MatrixBase | int | float):
        raise TypeError(f"value must be a sympy number or matrix, got {type(value).__name__}")
    entries = list(value) if isinstance(value, sympy.MatrixBase) else [value]
    if len(entries) != like.numel():
        raise ValueError(
            f"value must have {like.numel()} entries (like {tuple(like.shape)}), got {len(entries)}"
        )
    try:
        numbers = [float(v) for v in entries]
    except TypeError:
        raise TypeError("value must hold numbers only; evaluate its symbols first") from None
    except OverflowError:
        raise ValueError("value must hold finite numbers") from None
    return torch.tensor(numbers, dtype=like.dtype).reshape(like.shape)
