r"""One LSTM step and one GRU step as sympy expressions, and their Jacobians.

The step functions follow PyTorch's equations (gate blocks ``i, f, g, o`` and ``r, z, n``;
GRU with :math:`b_{hn}` inside the reset product). ``sympy.Matrix.jacobian`` then gives
:math:`\partial(h_t, c_t)/\partial(h_{t-1}, c_{t-1})` and the derivatives with respect to every
weight entry, exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy

from .._validate import check_choice, check_int, check_mapping, check_matrix
from .evaluation import evaluate
from .symbols import symbol_matrix

__all__ = ["gru_step", "handset_point", "lstm_bptt", "lstm_step", "step_symbols"]

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

    Examples
    --------
    >>> from rnndoc.symbolic.gated import step_symbols
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


def _check_step(name: str, s: object, kind: str) -> dict[str, sympy.Matrix]:
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


def _check_columns(name: str, value: object, size: int) -> list[sympy.Matrix]:
    """``value``, a non-empty sequence of (size, 1) matrices."""
    if isinstance(value, str | bytes | sympy.MatrixBase) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of sympy matrices, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must not be empty")
    return [check_matrix(f"{name}[{t}]", column, (size, 1)) for t, column in enumerate(value)]


def _sigmoid(e):
    return 1 / (1 + sympy.exp(-e))


def lstm_step(s: Mapping[str, sympy.Matrix]) -> tuple[sympy.Matrix, sympy.Matrix, dict[str, sympy.Matrix]]:
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
    >>> from rnndoc.symbolic.gated import lstm_step, step_symbols
    >>> s = step_symbols("LSTM", 1, 1)
    >>> h, c, gates = lstm_step(s)
    >>> (c.jacobian(s["c"]) - gates["f"]).applyfunc(sympy.simplify)
    Matrix([[0]])
    """
    s = _check_step("s", s, "LSTM")
    pre = s["weight_ih"] * s["x"] + s["bias_ih"] + s["weight_hh"] * s["h"] + s["bias_hh"]  # (4H, 1)
    size = s["h"].shape[0]
    i, f, g, o = (pre[k * size : (k + 1) * size, :] for k in range(4))  # each (H, 1)
    gates = {"i": i.applyfunc(_sigmoid), "f": f.applyfunc(_sigmoid), "g": g.applyfunc(sympy.tanh)}
    gates["o"] = o.applyfunc(_sigmoid)
    c = gates["f"].multiply_elementwise(s["c"]) + gates["i"].multiply_elementwise(gates["g"])  # (H, 1)
    h = gates["o"].multiply_elementwise(c.applyfunc(sympy.tanh))  # (H, 1)
    return h, c, gates


def gru_step(s: Mapping[str, sympy.Matrix]) -> sympy.Matrix:
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
    >>> from rnndoc.symbolic.gated import gru_step, step_symbols
    >>> gru_step(step_symbols("GRU", 1, 1)).shape
    (1, 1)
    """
    s = _check_step("s", s, "GRU")
    size = s["h"].shape[0]
    gi = s["weight_ih"] * s["x"] + s["bias_ih"]  # (3H, 1)
    gh = s["weight_hh"] * s["h"] + s["bias_hh"]  # (3H, 1)
    block = lambda m, k: m[k * size : (k + 1) * size, :]
    r = (block(gi, 0) + block(gh, 0)).applyfunc(_sigmoid)
    z = (block(gi, 1) + block(gh, 1)).applyfunc(_sigmoid)
    n = (block(gi, 2) + r.multiply_elementwise(block(gh, 2))).applyfunc(sympy.tanh)
    return (sympy.ones(size, 1) - z).multiply_elementwise(n) + z.multiply_elementwise(s["h"])


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

    Examples
    --------
    >>> from rnndoc.symbolic.gated import handset_point, step_symbols
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


def lstm_bptt(
    symbols: Mapping[str, sympy.Matrix],
    point: Mapping,
    inputs: Sequence[sympy.Matrix],
    targets: Sequence[sympy.Matrix],
    h_0: sympy.Matrix,
    c_0: sympy.Matrix,
    digits: int = 50,
) -> sympy.Matrix:
    r"""The gradient of :math:`L = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2` by ``weight_hh``, from step Jacobians.

    With the state :math:`s_t = (h_t, c_t)`, :math:`J_t = \partial s_t / \partial s_{t-1}` and
    the one-step partial :math:`\partial s_t / \partial W_{hh}` (with :math:`s_{t-1}` held):

    .. math::

        \begin{aligned}
        g_T &= \begin{bmatrix} h_T - y_T \\ 0 \end{bmatrix}, \\
        g_{t-1} &= J_t^\top g_t + \begin{bmatrix} h_{t-1} - y_{t-1} \\ 0 \end{bmatrix} \quad (t \ge 2), \\
        \frac{\partial L}{\partial W_{hh}} &= \sum_{t=1}^{T}
        \Bigl(\frac{\partial s_t}{\partial W_{hh}}\Bigr)^{\!\top} g_t
        \end{aligned}

    The Jacobians come from :func:`lstm_step` by ``sympy.Matrix.jacobian`` and are evaluated
    at each step's state in ``digits``-digit arithmetic.

    Parameters
    ----------
    symbols : dict of str to sympy.Matrix
        From :func:`step_symbols` ``("LSTM", ...)``.
    point : dict
        Values for the weight and bias symbols (other entries are ignored).
    inputs, targets : list of sympy.Matrix, each (H_in, 1) and (H, 1)
        :math:`x_1 \dots x_T` and :math:`y_1 \dots y_T`.
    h_0, c_0 : sympy.Matrix, shape (H, 1)
    digits : int, default 50

    Returns
    -------
    sympy.Matrix, shape (1, 4H * H)
        :math:`\partial L / \partial W_{hh}`, row-major like PyTorch's ``weight_hh_l0``.

    Raises
    ------
    TypeError, ValueError
        If an argument is not of the type or shape above (the message names it), or
        ``inputs`` and ``targets`` differ in length.

    Examples
    --------
    >>> import sympy
    >>> from rnndoc.symbolic.gated import handset_point, lstm_bptt, step_symbols
    >>> s = step_symbols("LSTM", 1, 1)
    >>> grad = lstm_bptt(s, handset_point(s), [sympy.Matrix([1])], [sympy.Matrix([0])],
    ...                  sympy.Matrix([sympy.Rational(1, 2)]), sympy.Matrix([0]), digits=20)
    >>> grad.shape
    (1, 4)
    """
    symbols = _check_step("symbols", symbols, "LSTM")
    point = check_mapping("point", point)
    size, input_size = symbols["h"].shape[0], symbols["x"].shape[0]
    inputs = _check_columns("inputs", inputs, input_size)
    targets = _check_columns("targets", targets, size)
    if len(inputs) != len(targets):
        raise ValueError(f"targets must have one entry per input ({len(inputs)}), got {len(targets)}")
    h_0, c_0 = check_matrix("h_0", h_0, (size, 1)), check_matrix("c_0", c_0, (size, 1))
    digits = check_int("digits", digits, minimum=1)
    h, c, _ = lstm_step(symbols)
    state_out, state_in = h.col_join(c), symbols["h"].col_join(symbols["c"])  # (2H, 1)
    jacobian_state = state_out.jacobian(state_in)  # (2H, 2H)
    jacobian_weight = state_out.jacobian(
        symbols["weight_hh"].reshape(len(symbols["weight_hh"]), 1)
    )  # (2H, 4H*H)
    step_values = set(symbols["x"]) | set(symbols["h"]) | set(symbols["c"])
    weights = {k: v for k, v in point.items() if k not in step_values}

    def at_step(t):  # the values of step t's inputs: x_t and s_(t-1)
        h_prev, c_prev = states[t - 1]
        return (weights | dict(zip(symbols["x"], inputs[t - 1], strict=True))
                | dict(zip(symbols["h"], h_prev, strict=True)) | dict(zip(symbols["c"], c_prev, strict=True)))  # fmt: skip

    states = [(h_0, c_0)]
    for t in range(1, len(inputs) + 1):  # forward
        values = at_step(t)
        states.append((evaluate(h, digits, values), evaluate(c, digits, values)))
    g = sympy.zeros(2 * size, 1)
    grad = sympy.zeros(1, jacobian_weight.shape[1])
    for t in range(len(inputs), 0, -1):  # backward: g_t gets this step's own loss term
        g = g + (states[t][0] - targets[t - 1]).col_join(sympy.zeros(size, 1))
        values = at_step(t)
        grad += g.T * evaluate(jacobian_weight, digits, values)  # (1, 4H*H)
        g = evaluate(jacobian_state, digits, values).T * g  # J_t^T g_t, before step t-1's own term
    return grad
