r"""Backpropagation through time, derived by sympy from the chain rule.

Nothing here types the BPTT recursion in. :func:`rnndoc.symbolic.derive_delta_rule` writes down one
step of the graph (the node :math:`a_t`, its output :math:`h_t = \tanh(a_t)`, the loss
term :math:`\ell_t` and the next preactivation :math:`a_{t+1}` that reads
:math:`h_t`) and lets sympy differentiate each local function; the chain rule then
assembles :math:`\delta_t = \partial L / \partial a_t`. :func:`rnndoc.symbolic.bptt`
applies that rule backwards through an unrolled network,
:func:`rnndoc.symbolic.direct_gradients` differentiates the unrolled loss in one go, and
:func:`rnndoc.symbolic.check_identity` proves the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .network import Unrolled, symbolic_parameters

__all__ = [
    "BPTT",
    "GRADIENT_NAMES",
    "DeltaRule",
    "bptt",
    "check_identity",
    "derive_delta_rule",
    "derive_parameter_rules",
    "direct_gradients",
    "evaluate",
    "textbook_delta",
]

#: The parameters BPTT differentiates by, in PyTorch's names (``h_0`` included).
GRADIENT_NAMES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "h_0")


def _column(name: str, size: int) -> sympy.Matrix:
    """A column of real symbols ``name,i`` for one graph node, e.g. ``h_{t,0}, h_{t,1}``."""
    return sympy.Matrix(size, 1, lambda i, _j: sympy.Symbol(f"{name},{i}}}", real=True))


@dataclass(frozen=True)
class DeltaRule:
    r"""The derived local rule :math:`\delta_t = f(h_t, y_t, \delta_{t+1})`.

    Attributes
    ----------
    delta : sympy.Matrix, shape (H, 1)
        :math:`\delta_t` in the node symbols below and the entries of ``weight_hh``.
    hidden, target, delta_next : sympy.Matrix, shape (H, 1)
        The symbols standing for :math:`h_t`, :math:`y_t` and :math:`\delta_{t+1}`.
    weight_hh : sympy.Matrix, shape (H, H)
        The recurrent weight the rule was derived for.
    """

    delta: sympy.Matrix
    hidden: sympy.Matrix
    target: sympy.Matrix
    delta_next: sympy.Matrix
    weight_hh: sympy.Matrix

    def apply(self, hidden, target, delta_next) -> sympy.Matrix:
        r"""Evaluate the rule at one step: substitute values for :math:`h_t, y_t, \delta_{t+1}`.

        Parameters
        ----------
        hidden, target, delta_next : sympy.Matrix or nested sequence, shape (H, 1)
            Expressions or numbers for :math:`h_t`, :math:`y_t` and :math:`\delta_{t+1}`.

        Returns
        -------
        sympy.Matrix, shape (H, 1)
            :math:`\delta_t`.

        Raises
        ------
        ValueError
            If an argument does not have shape (H, 1).

        Examples
        --------
        >>> from rnndoc.symbolic import derive_delta_rule
        >>> rule = derive_delta_rule([[2]])
        >>> rule.apply([[0]], [[1]], [[3]])
        Matrix([[5]])
        """
        mapping = {}
        for name, symbols, values in (
            ("hidden", self.hidden, hidden),
            ("target", self.target, target),
            ("delta_next", self.delta_next, delta_next),
        ):
            column = sympy.Matrix(values)
            if column.shape != symbols.shape:
                raise ValueError(f"{name} must have shape {symbols.shape}, got {column.shape}")
            mapping.update(zip(symbols, column, strict=True))
        return self.delta.xreplace(mapping)


def derive_delta_rule(weight_hh: sympy.Matrix) -> DeltaRule:
    r"""Derive :math:`\delta_t = \partial L/\partial a_t` from the chain rule, one step.

    The preactivation :math:`a_t` reaches the loss along two edges of the unrolled
    graph: through :math:`h_t = \tanh(a_t)` into :math:`\ell_t`, and through
    :math:`h_t` into :math:`a_{t+1} = W_{hh} h_t + \dots`. sympy differentiates each
    local function; the chain rule sums the two paths:

    .. math::

        \frac{\partial L}{\partial h_t[k]} = \frac{\partial \ell_t}{\partial h_t[k]}
            + \sum_j \delta_{t+1}[j] \frac{\partial a_{t+1}[j]}{\partial h_t[k]},\qquad
        \delta_t[i] = \frac{\partial L}{\partial h_t[i]}
            \frac{\partial \tanh(a_t[i])}{\partial a_t[i]}

    and :math:`\tanh(a_t)` is then renamed :math:`h_t`. For t = T use
    :math:`\delta_{T+1} = 0`.

    Parameters
    ----------
    weight_hh : sympy.Matrix, shape (H, H)
        Symbols (:func:`rnndoc.symbolic.symbolic_parameters`) or numbers.

    Returns
    -------
    DeltaRule
        The derived :math:`\delta_t` and the symbols it is written in.

    Raises
    ------
    ValueError
        If ``weight_hh`` is not square.

    Notes
    -----
    The result equals the textbook recursion (:func:`textbook_delta`); Werbos (1990)
    for BPTT.

    Examples
    --------
    >>> from rnndoc.symbolic import derive_delta_rule, symbolic_parameters
    >>> rule = derive_delta_rule(symbolic_parameters(1, 1)["weight_hh_l0"])
    >>> rule.delta[0].factor()
    -(h_{t,0} - 1)*(h_{t,0} + 1)*(W^{hh}_{0,0}*\delta_{t+1,0} + h_{t,0} - y_{t,0})
    """
    weight_hh = sympy.Matrix(weight_hh)
    size = weight_hh.shape[0]
    if weight_hh.shape != (size, size) or size < 1:
        raise ValueError(f"weight_hh must have shape (H, H), got {weight_hh.shape}")
    a = _column("a_{t", size)  # the node a_t
    h = _column("h_{t", size)  # the node h_t
    y = _column("y_{t", size)  # the target y_t
    delta_next = _column(r"\delta_{t+1", size)  # dL/da_{t+1}, already known
    rest = _column("u_{t+1", size)  # everything in a_{t+1} that does not depend on h_t

    # Local functions of the graph around step t.
    step_loss = sum((h - y).applyfunc(lambda e: e**2)) / 2  # l_t(h_t)
    next_preactivation = weight_hh * h + rest  # a_{t+1}(h_t)
    activation = a.applyfunc(sympy.tanh)  # h_t(a_t)

    # Chain rule: dL/dh_t[k] = dl_t/dh_t[k] + sum_j delta_{t+1}[j] da_{t+1}[j]/dh_t[k]
    grad_h = sympy.Matrix(
        size,
        1,
        lambda k, _: (
            sympy.diff(step_loss, h[k])
            + sum(delta_next[j] * sympy.diff(next_preactivation[j], h[k]) for j in range(size))
        ),
    )
    # delta_t[i] = dL/dh_t[i] * dh_t[i]/da_t[i], then rename tanh(a_t) -> h_t
    rename = {activation[i]: h[i] for i in range(size)}
    delta = sympy.Matrix(size, 1, lambda i, _: (grad_h[i] * sympy.diff(activation[i], a[i])).xreplace(rename))
    if delta.free_symbols & set(a) or delta.free_symbols & set(rest):
        raise AssertionError("the derived delta still depends on a_t or a_{t+1}")  # pragma: no cover
    return DeltaRule(delta, h, y, delta_next, weight_hh)


def textbook_delta(rule: DeltaRule) -> sympy.Matrix:
    r"""The recursion as textbooks state it, in the symbols of ``rule``.

    .. math:: \delta_t = (h_t - y_t + W_{hh}^\top \delta_{t+1}) \odot (1 - h_t^2)

    Parameters
    ----------
    rule : DeltaRule
        Supplies the symbols :math:`h_t, y_t, \delta_{t+1}` and :math:`W_{hh}`.

    Returns
    -------
    sympy.Matrix, shape (H, 1)

    Raises
    ------
    TypeError
        If ``rule`` is not a :class:`DeltaRule`.

    Notes
    -----
    Werbos (1990); Goodfellow, Bengio and Courville, *Deep Learning* (2016), section 10.2.2.

    Examples
    --------
    >>> import sympy
    >>> from rnndoc.symbolic import derive_delta_rule, symbolic_parameters, textbook_delta
    >>> rule = derive_delta_rule(symbolic_parameters()["weight_hh_l0"])
    >>> (rule.delta - textbook_delta(rule)).applyfunc(sympy.expand)
    Matrix([
    [0],
    [0]])
    """
    if not isinstance(rule, DeltaRule):
        raise TypeError(f"rule must be a DeltaRule (from derive_delta_rule), got {type(rule).__name__}")
    h = rule.hidden
    inner = h - rule.target + rule.weight_hh.T * rule.delta_next  # (H, 1)
    return inner.multiply_elementwise(h.applyfunc(lambda v: 1 - v**2))  # (H, 1)


def derive_parameter_rules(parameters: dict[str, sympy.Matrix]) -> dict[str, sympy.Matrix]:
    r"""Derive each parameter's gradient contribution from one use at step t.

    With :math:`h_{t-1}` and :math:`x_t` held as symbols, sympy differentiates the
    local function :math:`a_t = W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}`; the chain
    rule gives the contribution of this use of :math:`\theta` as
    :math:`\sum_i \delta_t[i]\, \partial a_t[i] / \partial \theta`, and for the state
    entering the step, :math:`\partial L/\partial h_{t-1} = \sum_i \delta_t[i]\,
    \partial a_t[i]/\partial h_{t-1}` (this is the gradient of ``h_0`` at t = 1).

    Parameters
    ----------
    parameters : dict of str to sympy.Matrix
        As :func:`rnndoc.symbolic.symbolic_parameters` returns them.

    Returns
    -------
    dict of str to sympy.Matrix
        One entry per name in ``weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0,
        h_0``, shaped like that parameter, written in the symbols ``delta_{t,i}``,
        ``h_{t-1,j}`` and ``x_{t,j}``.

    Raises
    ------
    ValueError
        If a parameter is missing or holds numbers rather than symbols.

    Examples
    --------
    >>> from rnndoc.symbolic import derive_parameter_rules, symbolic_parameters
    >>> rules = derive_parameter_rules(symbolic_parameters())
    >>> rules["weight_hh_l0"]
    Matrix([
    [\delta_{t,0}*h_{t-1,0}, \delta_{t,0}*h_{t-1,1}],
    [\delta_{t,1}*h_{t-1,0}, \delta_{t,1}*h_{t-1,1}]])
    """
    rules, _ = _parameter_rules(parameters)
    return rules


def _parameter_rules(parameters):
    missing = [name for name in GRADIENT_NAMES if name not in parameters]
    if missing:
        raise ValueError(f"parameters is missing {', '.join(missing)}")
    hidden_size, input_size = parameters["weight_ih_l0"].shape
    for name in GRADIENT_NAMES[:4]:
        if not all(isinstance(v, sympy.Symbol) for v in parameters[name]):
            raise ValueError(f"parameters[{name!r}] must hold symbols to differentiate by")
    weight_ih = parameters["weight_ih_l0"]
    delta = _column(r"\delta_{t", hidden_size)  # dL/da_t
    h_prev = _column("h_{t-1", hidden_size)  # the node h_{t-1}, a leaf here
    x = _column("x_{t", input_size)  # the input x_t
    # a_t = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, with h_{t-1} and x_t as leaves
    a = (
        weight_ih * x
        + parameters["bias_ih_l0"]
        + parameters["weight_hh_l0"] * h_prev
        + parameters["bias_hh_l0"]
    )
    wrt = {name: parameters[name] for name in GRADIENT_NAMES if name != "h_0"}
    wrt["h_0"] = h_prev
    rules = {
        name: value.applyfunc(
            lambda theta: sum(delta[i] * sympy.diff(a[i], theta) for i in range(hidden_size))
        )
        for name, value in wrt.items()
    }
    return rules, (delta, h_prev, x)


@dataclass(frozen=True)
class BPTT:
    r"""The result of :func:`bptt`.

    Attributes
    ----------
    deltas : list of sympy.Matrix, each (H, 1)
        :math:`\delta_1 \dots \delta_T`.
    contributions : dict of str to list of sympy.Matrix
        Per parameter, its T per-use contributions (step t's use of the shared
        weight), each shaped like the parameter; for ``h_0`` a single entry.
    gradients : dict of str to sympy.Matrix
        The sums of the contributions: :math:`\partial L/\partial \theta`.
    """

    deltas: list[sympy.Matrix]
    contributions: dict[str, list[sympy.Matrix]]
    gradients: dict[str, sympy.Matrix]


def bptt(network: Unrolled, truncation: int | None = None) -> BPTT:
    r"""Backpropagate through an unrolled network with the derived rules.

    Runs :math:`\delta_T, \delta_{T-1}, \dots, \delta_1` with the rule from
    :func:`derive_delta_rule` (starting from :math:`\delta_{T+1} = 0`), then sums each
    parameter's per-use contributions from :func:`derive_parameter_rules`:

    .. math::

        \begin{aligned}
        \frac{\partial L}{\partial W_{hh}} &= \sum_t \delta_t h_{t-1}^\top, \\
        \frac{\partial L}{\partial W_{ih}} &= \sum_t \delta_t x_t^\top, \\
        \frac{\partial L}{\partial b_{ih}} = \frac{\partial L}{\partial b_{hh}} &= \sum_t \delta_t, \\
        \frac{\partial L}{\partial h_0} &= W_{hh}^\top \delta_1
        \end{aligned}

    Parameters
    ----------
    network : Unrolled
        From :func:`rnndoc.symbolic.unroll`, with symbolic or exact parameters.
    truncation : int, optional
        Truncated BPTT in chunks of this many steps: where step t ends a chunk the state was
        detached, so the rule is applied with :math:`\delta_{t+1} = 0` there. Default: full.

    Returns
    -------
    BPTT
        Deltas, per-use contributions and gradients as expressions.

    Raises
    ------
    TypeError
        If ``network`` is not an :class:`Unrolled`.

    Examples
    --------
    >>> from rnndoc.handset import exact
    >>> from rnndoc.symbolic import bptt, evaluate, unroll
    >>> values = exact()
    >>> net = unroll(values, values["inputs"], values["targets"])
    >>> evaluate(bptt(net).gradients["h_0"], digits=15).T
    Matrix([[0.156871606319876, 0.0531180213047371]])
    """
    if not isinstance(network, Unrolled):
        raise TypeError(f"network must be an Unrolled (from unroll), got {type(network).__name__}")
    rule = derive_delta_rule(network.parameters["weight_hh_l0"])
    hidden_size, input_size = network.parameters["weight_ih_l0"].shape
    generic = symbolic_parameters(input_size, hidden_size)
    rules, (delta_sym, h_prev_sym, x_sym) = _parameter_rules(generic)
    # the rules are derived for generic symbols; read them at the network's parameters
    at_network = {
        symbol: value
        for name in GRADIENT_NAMES
        for symbol, value in zip(generic[name], network.parameters[name], strict=True)
    }
    size = rule.hidden.shape[0]
    deltas: list[sympy.Matrix] = [None] * network.length  # type: ignore[list-item]
    delta_next = sympy.zeros(size, 1)  # delta_{T+1} = 0
    for t in reversed(range(network.length)):
        if truncation is not None and (t + 1) % truncation == 0:
            delta_next = sympy.zeros(size, 1)  # detached: nothing flows back across the boundary
        delta_next = deltas[t] = rule.apply(network.hidden[t], network.targets[t], delta_next)

    h_prev = [network.parameters["h_0"], *network.hidden[:-1]]  # h_0 ... h_{T-1}
    contributions = {}
    for name, local in rules.items():
        steps = [0] if name == "h_0" else range(network.length)
        contributions[name] = [
            local.xreplace(
                at_network
                | dict(zip(delta_sym, deltas[t], strict=True))
                | dict(zip(h_prev_sym, h_prev[t], strict=True))
                | dict(zip(x_sym, network.inputs[t], strict=True))
            )
            for t in steps
        ]
    gradients = {name: sum(parts[1:], parts[0]) for name, parts in contributions.items()}
    return BPTT(deltas, contributions, gradients)


def direct_gradients(network: Unrolled, loss: sympy.Expr | None = None) -> dict[str, sympy.Matrix]:
    r"""Differentiate the unrolled loss directly, entry by entry: :math:`\partial L/\partial \theta_{ij}`.

    Parameters
    ----------
    network : Unrolled
        Its parameters must be symbols (otherwise there is nothing to differentiate by).
    loss : sympy.Expr, optional
        Another function of the parameters (say one loss term :math:`\ell_t`);
        default ``network.loss``.

    Returns
    -------
    dict of str to sympy.Matrix
        Keyed by ``GRADIENT_NAMES`` (PyTorch's parameter names and ``h_0``), each shaped like its parameter.

    Raises
    ------
    ValueError
        If a parameter entry is a number rather than a symbol.

    Notes
    -----
    This is plain ``sympy.diff`` of the unrolled loss, the independent witness against
    which :func:`rnndoc.symbolic.bptt` is proved in :func:`rnndoc.symbolic.check_identity`.

    Examples
    --------
    >>> from rnndoc.symbolic import direct_gradients, symbolic_parameters, unroll
    >>> net = unroll(symbolic_parameters(1, 1), [[1]], [[0]])
    >>> direct_gradients(net)["bias_hh_l0"][0].has(net.hidden[0][0])
    True
    """
    loss = network.loss if loss is None else loss
    out = {}
    for name in GRADIENT_NAMES:
        value = network.parameters[name]
        if not all(isinstance(v, sympy.Symbol) for v in value):
            raise ValueError(f"network.parameters[{name!r}] must hold symbols to differentiate by")
        out[name] = value.applyfunc(lambda theta: sympy.diff(loss, theta))
    return out


def check_identity(network: Unrolled) -> int:
    r"""Prove that :func:`bptt` equals :func:`direct_gradients` for symbolic weights.

    Each gradient entry's difference is expanded (``sympy.expand``). Both sides are
    polynomials in the same :math:`\tanh` atoms and parameter symbols; when the expanded
    difference is exactly 0, the two are equal as functions, whatever the values of the
    symbols. (A non-zero expansion would not by itself prove a difference, but it is
    reported as a failure: the check never passes by accident.)

    Parameters
    ----------
    network : Unrolled
        With symbolic parameters.

    Returns
    -------
    int
        The number of gradient entries proved equal.

    Raises
    ------
    AssertionError
        Naming the first entry whose difference does not vanish.

    Examples
    --------
    >>> from rnndoc.symbolic import check_identity, symbolic_parameters, unroll
    >>> net = unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]])
    >>> check_identity(net)
    5
    """
    recursion = bptt(network).gradients
    direct = direct_gradients(network)
    count = 0
    for name in GRADIENT_NAMES:
        for index, (a, b) in enumerate(zip(recursion[name], direct[name], strict=True)):
            if sympy.expand(a - b) != 0:
                raise AssertionError(f"BPTT and direct differentiation differ at {name}[{index}]")
            count += 1
    return count


def evaluate(value, digits: int = 50, subs: dict | None = None):
    r"""Evaluate an expression or matrix to ``digits`` significant digits (``evalf``).

    Parameters
    ----------
    value : sympy.Expr or sympy.Matrix
    digits : int, default 50
    subs : dict, optional
        Symbol values, substituted inside ``evalf`` (more accurate than ``subs`` first).

    Returns
    -------
    sympy.Float or sympy.Matrix of sympy.Float

    Raises
    ------
    TypeError
        If ``digits`` is not an int, or ``value`` is not an expression or matrix.
    ValueError
        If ``digits`` is below 1.

    Examples
    --------
    >>> import sympy
    >>> from rnndoc.symbolic import evaluate
    >>> evaluate(sympy.tanh(sympy.Rational(9, 20)), digits=20)
    0.42189900525000792693
    """
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError(f"digits must be an int, got {type(digits).__name__}")
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    if not isinstance(value, sympy.Basic | sympy.MatrixBase | int | float):
        raise TypeError(f"value must be a sympy expression or matrix, got {type(value).__name__}")
    if isinstance(value, sympy.MatrixBase):
        return value.applyfunc(lambda e: sympy.sympify(e).evalf(digits, subs=subs))
    return sympy.sympify(value).evalf(digits, subs=subs)
