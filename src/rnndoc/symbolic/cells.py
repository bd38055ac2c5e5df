r"""One LSTM step and one GRU step as sympy expressions, and their Jacobians.

The step functions follow PyTorch's equations (gate blocks ``i, f, g, o`` and ``r, z, n``;
GRU with :math:`b_{hn}` inside the reset product). ``sympy.Matrix.jacobian`` then gives
:math:`\partial(h_t, c_t)/\partial(h_{t-1}, c_{t-1})` and the derivatives with respect to every
weight entry, exactly.
"""

from __future__ import annotations

import sympy

__all__ = ["gru_step", "handset_point", "lstm_step", "step_symbols"]


def _matrix(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}_{{{i},{j}}}", real=True))


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
    ValueError
        If ``kind`` is neither.

    Examples
    --------
    >>> from rnndoc.symbolic.cells import step_symbols
    >>> step_symbols("GRU")["weight_hh"].shape
    (6, 2)
    """
    gates = {"LSTM": 4, "GRU": 3}.get(kind)
    if gates is None:
        raise ValueError(f"kind must be 'LSTM' or 'GRU', got {kind!r}")
    rows = gates * hidden_size
    out = {
        "weight_ih": _matrix("W^{ih}", rows, input_size),
        "weight_hh": _matrix("W^{hh}", rows, hidden_size),
        "bias_ih": _matrix("b^{ih}", rows, 1),
        "bias_hh": _matrix("b^{hh}", rows, 1),
        "x": _matrix("x", input_size, 1),
        "h": _matrix("h", hidden_size, 1),
    }
    if kind == "LSTM":
        out["c"] = _matrix("c", hidden_size, 1)
    return out


def _sigmoid(e):
    return 1 / (1 + sympy.exp(-e))


def lstm_step(s: dict[str, sympy.Matrix]) -> tuple[sympy.Matrix, sympy.Matrix, dict[str, sympy.Matrix]]:
    r"""One LSTM step in symbols: :math:`c_t = f \odot c_{t-1} + i \odot g`, :math:`h_t = o \odot \tanh c_t`.

    Parameters
    ----------
    s : dict of str to sympy.Matrix
        From :func:`step_symbols` ``("LSTM")`` (or the same keys with numbers).

    Returns
    -------
    h_t, c_t : sympy.Matrix, shape (H, 1)
    gates : dict of str to sympy.Matrix
        ``i``, ``f``, ``g``, ``o``, each (H, 1).

    Examples
    --------
    >>> from rnndoc.symbolic.cells import lstm_step, step_symbols
    >>> s = step_symbols("LSTM", 1, 1)
    >>> h, c, gates = lstm_step(s)
    >>> (c.jacobian(s["c"]) - gates["f"]).applyfunc(sympy.simplify)
    Matrix([[0]])
    """
    pre = s["weight_ih"] * s["x"] + s["bias_ih"] + s["weight_hh"] * s["h"] + s["bias_hh"]  # (4H, 1)
    size = s["h"].shape[0]
    i, f, g, o = (pre[k * size : (k + 1) * size, :] for k in range(4))  # each (H, 1)
    gates = {"i": i.applyfunc(_sigmoid), "f": f.applyfunc(_sigmoid), "g": g.applyfunc(sympy.tanh)}
    gates["o"] = o.applyfunc(_sigmoid)
    c = gates["f"].multiply_elementwise(s["c"]) + gates["i"].multiply_elementwise(gates["g"])  # (H, 1)
    h = gates["o"].multiply_elementwise(c.applyfunc(sympy.tanh))  # (H, 1)
    return h, c, gates


def gru_step(s: dict[str, sympy.Matrix]) -> sympy.Matrix:
    r"""One GRU step in symbols (PyTorch's form): :math:`h_t = (1 - z) \odot n + z \odot h_{t-1}`.

    Parameters
    ----------
    s : dict of str to sympy.Matrix
        From :func:`step_symbols` ``("GRU")``.

    Returns
    -------
    sympy.Matrix, shape (H, 1)

    Examples
    --------
    >>> from rnndoc.symbolic.cells import gru_step, step_symbols
    >>> gru_step(step_symbols("GRU", 1, 1)).shape
    (1, 1)
    """
    size = s["h"].shape[0]
    gi = s["weight_ih"] * s["x"] + s["bias_ih"]  # (3H, 1)
    gh = s["weight_hh"] * s["h"] + s["bias_hh"]  # (3H, 1)
    block = lambda m, k: m[k * size : (k + 1) * size, :]
    r = (block(gi, 0) + block(gh, 0)).applyfunc(_sigmoid)
    z = (block(gi, 1) + block(gh, 1)).applyfunc(_sigmoid)
    n = (block(gi, 2) + r.multiply_elementwise(block(gh, 2))).applyfunc(sympy.tanh)
    return (sympy.ones(size, 1) - z).multiply_elementwise(n) + z.multiply_elementwise(s["h"])


def handset_point(symbols: dict[str, sympy.Matrix]) -> dict[sympy.Symbol, sympy.Rational]:
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

    Examples
    --------
    >>> from rnndoc.symbolic.cells import handset_point, step_symbols
    >>> sorted(set(handset_point(step_symbols("GRU", 1, 1)).values()))[:3]
    [-1/2, -2/5, -1/5]
    """
    point = {}
    for offset, name in enumerate(sorted(symbols)):
        for k, symbol in enumerate(symbols[name]):
            point[symbol] = sympy.Rational((7 * k + 3 * offset) % 11 - 5, 10)
    return point
