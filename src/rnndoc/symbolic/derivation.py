r"""The local rules of backpropagation through time, derived by sympy from the chain rule.

Nothing here types the BPTT recursion in. :func:`rnndoc.symbolic.derive_delta_rule` writes down one
step of the graph (the node :math:`a_t`, its output :math:`h_t = \tanh(a_t)`, the loss
term :math:`\ell_t` and the next preactivation :math:`a_{t+1}` that reads
:math:`h_t`) and lets sympy differentiate each local function; the chain rule then
assembles :math:`\delta_t = \partial \mathcal{L} / \partial a_t`. :func:`rnndoc.symbolic.bptt`
applies that rule backwards through an unrolled network,
:func:`rnndoc.symbolic.direct_gradients` differentiates the unrolled loss in one go, and
:func:`rnndoc.symbolic.check_identity` proves the two equal. The rules for the parameters
(one use at step t) are derived in :mod:`rnndoc.symbolic.parameter_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .._validate import check_instance, check_matrix
from .symbols import symbol_matrix

__all__ = ["DeltaRule", "derive_delta_rule", "textbook_delta"]


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

    Examples
    --------
    >>> from rnndoc.symbolic import derive_delta_rule
    >>> rule = derive_delta_rule([[2]])
    >>> rule.hidden.shape, rule.weight_hh
    ((1, 1), Matrix([[2]]))
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
        TypeError, ValueError
            If an argument is not a matrix of shape (H, 1).

        Examples
        --------
        >>> from rnndoc.symbolic import derive_delta_rule
        >>> rule = derive_delta_rule([[2]])
        >>> rule.apply([[0]], [[1]], [[3]])
        Matrix([[5]])
        """
        mapping: dict[sympy.Expr, sympy.Expr] = {}
        for name, symbols, values in (
            ("hidden", self.hidden, hidden),
            ("target", self.target, target),
            ("delta_next", self.delta_next, delta_next),
        ):
            mapping.update(zip(symbols, check_matrix(name, values, symbols.shape), strict=True))
        return self.delta.xreplace(mapping)


def derive_delta_rule(weight_hh: sympy.Matrix) -> DeltaRule:
    r"""Derive :math:`\delta_t = \partial \mathcal{L}/\partial a_t` from the chain rule, one step (:eq:`eq-chain`, :eq:`eq-delta-derived`).

    The preactivation :math:`a_t` reaches the loss along two edges of the unrolled
    graph: through :math:`h_t = \tanh(a_t)` into :math:`\ell_t`, and through
    :math:`h_t` into :math:`a_{t+1} = W_{hh} h_t + \dots`. sympy differentiates each
    local function; the chain rule sums the two paths:

    .. math::

        \frac{\partial \mathcal{L}}{\partial h_t[k]} = \frac{\partial \ell_t}{\partial h_t[k]}
            + \sum_j \delta_{t+1}[j] \frac{\partial a_{t+1}[j]}{\partial h_t[k]},\qquad
        \delta_t[i] = \frac{\partial \mathcal{L}}{\partial h_t[i]}
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
    TypeError, ValueError
        If ``weight_hh`` is not a matrix, or not square.

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
    weight_hh = check_matrix("weight_hh", weight_hh)
    size = weight_hh.shape[0]
    if weight_hh.shape != (size, size) or size < 1:
        raise ValueError(f"weight_hh must have shape (H, H), got {weight_hh.shape}")
    a = symbol_matrix("a", (size,), prefix="t")  # the node a_t
    h = symbol_matrix("h", (size,), prefix="t")  # the node h_t
    y = symbol_matrix("y", (size,), prefix="t")  # the target y_t
    delta_next = symbol_matrix(r"\delta", (size,), prefix="t+1")  # dL/da_{t+1}, already known
    rest = symbol_matrix("u", (size,), prefix="t+1")  # everything in a_{t+1} that does not depend on h_t

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
    check_instance("rule", rule, DeltaRule, "a DeltaRule (from derive_delta_rule)")
    h = rule.hidden
    inner = h - rule.target + rule.weight_hh.T * rule.delta_next  # (H, 1)
    return inner.multiply_elementwise(h.applyfunc(lambda v: 1 - v**2))  # (H, 1)
