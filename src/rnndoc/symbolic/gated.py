r"""One LSTM step and one GRU step as sympy expressions, and their Jacobians.

The step functions follow PyTorch's equations (gate blocks ``i, f, g, o`` and ``r, z, n``;
GRU with :math:`b_{hn}` inside the reset product). ``sympy.Matrix.jacobian`` then gives
:math:`\partial(h_t, c_t)/\partial(h_{t-1}, c_{t-1})` and the derivatives with respect to every
weight entry, exactly. The symbols of a step and the hand-set point come from
:mod:`rnndoc.symbolic.gate_symbols` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy

from .._validate import check_int, check_mapping, check_matrix
from .evaluation import evaluate
from .gate_symbols import check_columns, check_step, handset_point, step_symbols

__all__ = ["gru_step", "handset_point", "lstm_bptt", "lstm_step", "step_symbols"]


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

    Raises
    ------
    TypeError
        If ``s`` is not a mapping, or an entry cannot be read as a sympy matrix.
    ValueError
        If an entry is missing, ``x``, ``h`` or ``c`` is not a column, or a weight or bias is
        not shaped as :func:`step_symbols` lays it out (the message names the entry).

    Notes
    -----
    .. math::

        \begin{aligned}
        i &= \sigma(W_{ii} x + b_{ii} + W_{hi} h + b_{hi}), \\
        f &= \sigma(W_{if} x + b_{if} + W_{hf} h + b_{hf}), \\
        g &= \tanh(W_{ig} x + b_{ig} + W_{hg} h + b_{hg}), \\
        o &= \sigma(W_{io} x + b_{io} + W_{ho} h + b_{ho}), \\
        c_t &= f \odot c_{t-1} + i \odot g, \qquad h_t = o \odot \tanh(c_t)
        \end{aligned}

    PyTorch's ``torch.nn.LSTM`` documentation (the blocks stacked i, f, g, o in ``weight_ih``
    and ``weight_hh``); Hochreiter and Schmidhuber (1997), with the forget gate of Gers,
    Schmidhuber and Cummins (2000). The book's :eq:`eq-lstm`; the witness for
    :func:`rnndoc.layers.lstm_step_backward` in :eq:`eq-lstm-vjp`.

    Examples
    --------
    >>> from rnndoc.symbolic.gated import lstm_step, step_symbols
    >>> s = step_symbols("LSTM", 1, 1)
    >>> h, c, gates = lstm_step(s)
    >>> (c.jacobian(s["c"]) - gates["f"]).applyfunc(sympy.simplify)
    Matrix([[0]])
    """
    s = check_step("s", s, "LSTM")
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

    Raises
    ------
    TypeError
        If ``s`` is not a mapping, or an entry cannot be read as a sympy matrix.
    ValueError
        If an entry is missing, ``x`` or ``h`` is not a column, or a weight or bias is not
        shaped as :func:`step_symbols` lays it out (the message names the entry).

    Notes
    -----
    .. math::

        \begin{aligned}
        r &= \sigma(W_{ir} x + b_{ir} + W_{hr} h + b_{hr}), \\
        z &= \sigma(W_{iz} x + b_{iz} + W_{hz} h + b_{hz}), \\
        n &= \tanh(W_{in} x + b_{in} + r \odot (W_{hn} h + b_{hn})), \\
        h_t &= (1 - z) \odot n + z \odot h_{t-1}
        \end{aligned}

    PyTorch's ``torch.nn.GRU`` documentation (blocks stacked r, z, n; :math:`b_{hn}` inside
    the reset product); Cho et al. (2014). The book's :eq:`eq-gru`; the witness for
    :func:`rnndoc.layers.gru_step_backward` in :eq:`eq-gru-vjp`.

    Examples
    --------
    >>> from rnndoc.symbolic.gated import gru_step, step_symbols
    >>> gru_step(step_symbols("GRU", 1, 1)).shape
    (1, 1)
    """
    s = check_step("s", s, "GRU")
    size = s["h"].shape[0]
    gi = s["weight_ih"] * s["x"] + s["bias_ih"]  # (3H, 1)
    gh = s["weight_hh"] * s["h"] + s["bias_hh"]  # (3H, 1)
    block = lambda m, k: m[k * size : (k + 1) * size, :]
    r = (block(gi, 0) + block(gh, 0)).applyfunc(_sigmoid)
    z = (block(gi, 1) + block(gh, 1)).applyfunc(_sigmoid)
    n = (block(gi, 2) + r.multiply_elementwise(block(gh, 2))).applyfunc(sympy.tanh)
    return (sympy.ones(size, 1) - z).multiply_elementwise(n) + z.multiply_elementwise(s["h"])


def lstm_bptt(
    symbols: Mapping[str, sympy.Matrix],
    point: Mapping,
    inputs: Sequence[sympy.Matrix],
    targets: Sequence[sympy.Matrix],
    h_0: sympy.Matrix,
    c_0: sympy.Matrix,
    digits: int = 50,
) -> sympy.Matrix:
    r"""The gradient of :math:`\mathcal{L} = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2` by ``weight_hh``, from step Jacobians.

    :eq:`eq-lstm-bptt` (Chapter 15): with the state :math:`s_t = (h_t, c_t)`,
    :math:`J_t = \partial s_t / \partial s_{t-1}`, the one-step partial
    :math:`\partial s_t / \partial W_{hh}` (with :math:`s_{t-1}` held) and
    :math:`\delta s_t = \partial \mathcal{L} / \partial s_t` (what reaches :math:`s_t` from steps t
    and later), the gradient is the sum over t of the one-step partials' transposes times
    :math:`\delta s_t`, with :math:`\delta s_{t-1} = J_t^\top \delta s_t` plus step t - 1's own loss term.

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
        :math:`\partial \mathcal{L} / \partial W_{hh}`, row-major like PyTorch's ``weight_hh_l0``.

    Raises
    ------
    TypeError, ValueError
        If an argument is not of the type or shape above (the message names it), or
        ``inputs`` and ``targets`` differ in length.

    Notes
    -----
    The book's :eq:`eq-lstm-bptt` (chapter "Why gates help: LSTM and GRU gradients"): reverse-mode
    differentiation written with the full state Jacobian, as in BPTT (Werbos 1990); the step is
    :func:`lstm_step`'s, PyTorch's ``torch.nn.LSTM`` equations.

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
    symbols = check_step("symbols", symbols, "LSTM")
    point = check_mapping("point", point)
    size, input_size = symbols["h"].shape[0], symbols["x"].shape[0]
    inputs = check_columns("inputs", inputs, input_size)
    targets = check_columns("targets", targets, size)
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
    s_bar = sympy.zeros(2 * size, 1)  # the adjoint of s_t = (h_t, c_t), (2H, 1)
    grad = sympy.zeros(1, jacobian_weight.shape[1])
    for t in range(len(inputs), 0, -1):  # backward: s_bar_t gets this step's own loss term
        s_bar = s_bar + (states[t][0] - targets[t - 1]).col_join(sympy.zeros(size, 1))
        values = at_step(t)
        grad += s_bar.T * evaluate(jacobian_weight, digits, values)  # (1, 4H*H)
        s_bar = (
            evaluate(jacobian_state, digits, values).T * s_bar
        )  # J_t^T s_bar_t, before step t-1's own term
    return grad
