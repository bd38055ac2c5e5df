"""The symbols of one gated step and a hand-set point to evaluate them at, with the checks on both."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from .._validate import check_choice, check_int, check_mapping, check_matrix, check_sequence
from .symbols import symbol_matrix

__all__ = ["handset_point", "step_symbols"]

#: Gate blocks stacked in ``weight_ih`` / ``weight_hh``: i, f, g, o and r, z, n.
_GATES = {"LSTM": 4, "GRU": 3}


def step_symbols(kind: str, input_size: int = 2, hidden_size: int = 2) -> dict[str, sympy.Matrix]:
    """Real symbols for one step: weights and biases (PyTorch's shapes), x_t, h_(t-1), c_(t-1).

    Parameters
    ----------
    kind : {"LSTM", "GRU"}
    input_size, hidden_size : int

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih`` (G*H, H_in), ``weight_hh`` (G*H, H), ``bias_ih``, ``bias_hh`` (G*H, 1),
        ``x`` (H_in, 1), ``h`` (H, 1) and, for the LSTM, ``c`` (H, 1); G = 4 or 3.

    Raises
    ------
    TypeError, ValueError
        If ``kind`` is neither, or a size is not a positive int.

    Notes
    -----
    The layout of PyTorch's ``torch.nn.LSTM`` and ``torch.nn.GRU`` (``weight_ih_l0``,
    ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, gate blocks stacked along the rows), as
    the chapter "Why gates help: LSTM and GRU gradients" uses it.

    Examples
    --------
    >>> from rnndoc.symbolic.gate_symbols import step_symbols
    >>> step_symbols("GRU")["weight_hh"].shape
    (6, 2)
    """
    kind = check_choice("kind", kind, _GATES)
    input_size = check_int("input_size", input_size, minimum=1)
    hidden_size = check_int("hidden_size", hidden_size, minimum=1)
    rows = _GATES[kind] * hidden_size
    out = {
        "weight_ih": symbol_matrix("W^{ih}", (rows, input_size)),
        "weight_hh": symbol_matrix("W^{hh}", (rows, hidden_size)),
        "bias_ih": symbol_matrix("b^{ih}", (rows, 1)),
        "bias_hh": symbol_matrix("b^{hh}", (rows, 1)),
        "x": symbol_matrix("x", (input_size, 1)),
        "h": symbol_matrix("h", (hidden_size, 1)),
    }
    if kind == "LSTM":
        out["c"] = symbol_matrix("c", (hidden_size, 1))
    return out


def check_step(name: str, s: object, kind: str) -> dict[str, sympy.Matrix]:
    """``s`` as :func:`step_symbols` (``kind``) lays it out, each entry's shape checked."""
    keys = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "x", "h", *(("c",) if kind == "LSTM" else ()))
    s = check_mapping(name, s, keys)
    columns = {key: check_matrix(f"{name}[{key!r}]", s[key]) for key in ("x", "h")}
    for key, column in columns.items():
        if column.shape[1] != 1:
            raise ValueError(f"{name}[{key!r}] must be a column (size, 1), got {column.shape}")
    size, rows = columns["h"].shape[0], _GATES[kind] * columns["h"].shape[0]
    shapes = {
        "weight_ih": (rows, columns["x"].shape[0]),
        "weight_hh": (rows, size),
        "bias_ih": (rows, 1),
        "bias_hh": (rows, 1),
        "c": (size, 1),
    }
    return columns | {
        key: check_matrix(f"{name}[{key!r}]", s[key], shapes[key]) for key in keys[:4] + keys[6:]
    }


def check_columns(name: str, value: object, size: int) -> list[sympy.Matrix]:
    """``value``, a non-empty sequence of (size, 1) matrices."""
    if isinstance(value, sympy.MatrixBase):  # a Matrix is a sequence of its entries: refused
        raise TypeError(f"{name} must be a list of sympy matrices, got {type(value).__name__}")
    columns = check_sequence(name, value, "a list of sympy matrices")
    return [check_matrix(f"{name}[{t}]", column, (size, 1)) for t, column in enumerate(columns)]


def handset_point(symbols: Mapping[str, sympy.Matrix]) -> dict[sympy.Symbol, sympy.Rational]:
    r"""Small hand-set rational values for every symbol of a step: entry k of each matrix, in reading
    order, is :math:`((7k + 3 \cdot \text{offset}) \bmod 11 - 5) / 10`, with a different offset per matrix.

    Parameters
    ----------
    symbols : dict of str to sympy.Matrix
        From :func:`step_symbols`.

    Returns
    -------
    dict of sympy.Symbol to sympy.Rational
        Values in [-1/2, 1/2].

    Raises
    ------
    TypeError
        If ``symbols`` is not a mapping, or an entry cannot be read as a sympy matrix (the message
        names it).

    Notes
    -----
    The book's own choice (chapter "Why gates help: LSTM and GRU gradients"): small, distinct,
    exact values, so that every gate is neither saturated nor zero and sympy evaluates exactly.

    Examples
    --------
    >>> from rnndoc.symbolic.gate_symbols import handset_point, step_symbols
    >>> sorted(set(handset_point(step_symbols("GRU", 1, 1)).values()))[:3]
    [-1/2, -2/5, -1/5]
    """
    symbols = check_mapping("symbols", symbols)
    matrices = {name: check_matrix(f"symbols[{name!r}]", value) for name, value in symbols.items()}
    point = {}
    for offset, name in enumerate(sorted(symbols)):
        for k, symbol in enumerate(matrices[name]):
            point[symbol] = sympy.Rational((7 * k + 3 * offset) % 11 - 5, 10)
    return point
