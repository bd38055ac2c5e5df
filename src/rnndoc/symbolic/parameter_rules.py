r"""Each parameter's gradient contribution from one use at step t, derived by sympy.

The preactivation :math:`a_t = W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}` is the only place
step t uses the parameters; the chain rule through it, with :math:`\delta_t` known, gives each
use's contribution. :func:`rnndoc.symbolic.bptt` sums them over the steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from ..handset import PARAMETER_NAMES
from .network import check_parameters
from .symbols import symbol_matrix

__all__ = ["ParameterRules", "derive_parameter_rules"]


@dataclass(frozen=True)
class ParameterRules:
    r"""What :func:`derive_parameter_rules` returns: the rules and the symbols they are written in.

    Attributes
    ----------
    contributions : dict of str to sympy.Matrix
        Per parameter name, the contribution of one use at step t, shaped like the parameter;
        under ``h_0``, :math:`\partial \mathcal{L}/\partial h_{t-1}` through :math:`a_t`.
    delta : sympy.Matrix, shape (H, 1)
        The symbols :math:`\delta_{t,i}`.
    h_prev : sympy.Matrix, shape (H, 1)
        The symbols :math:`h_{t-1,j}`.
    x : sympy.Matrix, shape (H_in, 1)
        The symbols :math:`x_{t,j}`.

    Examples
    --------
    >>> from rnndoc.symbolic import derive_parameter_rules, symbolic_parameters
    >>> rules = derive_parameter_rules(symbolic_parameters(1, 1))
    >>> rules.contributions["weight_ih_l0"], rules.x.shape
    (Matrix([[\delta_{t,0}*x_{t,0}]]), (1, 1))
    """

    contributions: dict[str, sympy.Matrix]
    delta: sympy.Matrix
    h_prev: sympy.Matrix
    x: sympy.Matrix


def derive_parameter_rules(parameters: Mapping[str, sympy.Matrix]) -> ParameterRules:
    r"""Derive each parameter's gradient contribution from one use at step t.

    With :math:`h_{t-1}` and :math:`x_t` held as symbols, sympy differentiates the
    local function :math:`a_t = W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}`; the chain
    rule gives the contribution of this use of :math:`\theta` as
    :math:`\sum_i \delta_t[i]\, \partial a_t[i] / \partial \theta`, and for the state
    entering the step, :math:`\partial \mathcal{L}/\partial h_{t-1} = \sum_i \delta_t[i]\,
    \partial a_t[i]/\partial h_{t-1}` (this is the gradient of ``h_0`` at t = 1). The rules it
    returns are :eq:`eq-parameter-rules` (derived here, not typed in):

    .. math::

        \begin{aligned}
        \frac{\partial \mathcal{L}}{\partial W_{hh}}\Big|_{\text{use at } t} &= \delta_t h_{t-1}^\top, &
        \frac{\partial \mathcal{L}}{\partial W_{ih}}\Big|_{\text{use at } t} &= \delta_t x_t^\top, \\
        \frac{\partial \mathcal{L}}{\partial b_{ih}}\Big|_{\text{use at } t}
        = \frac{\partial \mathcal{L}}{\partial b_{hh}}\Big|_{\text{use at } t} &= \delta_t, &
        \frac{\partial \mathcal{L}}{\partial h_{t-1}}\Big|_{\text{through } a_t} &= W_{hh}^\top \delta_t
        \end{aligned}

    Parameters
    ----------
    parameters : dict of str to sympy.Matrix
        As :func:`rnndoc.symbolic.symbolic_parameters` returns them.

    Returns
    -------
    ParameterRules
        ``contributions``: one entry per name in ``weight_ih_l0, weight_hh_l0, bias_ih_l0,
        bias_hh_l0, h_0``, shaped like that parameter, written in the symbols ``delta``
        (:math:`\delta_{t,i}`), ``h_prev`` (:math:`h_{t-1,j}`) and ``x`` (:math:`x_{t,j}`),
        which it also returns.

    Raises
    ------
    TypeError, ValueError
        If ``parameters`` is not a mapping, a parameter is missing, is not a matrix of the
        shape above, or holds numbers rather than symbols.

    Notes
    -----
    The book's :eq:`eq-parameter-rules` (chapter "Backpropagation through time, derived"):
    the chain rule through one step, with :math:`\delta_t = \partial \mathcal{L} / \partial a_t`
    known; the textbooks' outer products :math:`\delta_t h_{t-1}^\top` and
    :math:`\delta_t x_t^\top` (Goodfellow, Bengio and Courville, *Deep Learning* (2016),
    section 10.2.2) come out of it.

    Examples
    --------
    >>> from rnndoc.symbolic import derive_parameter_rules, symbolic_parameters
    >>> rules = derive_parameter_rules(symbolic_parameters())
    >>> rules.contributions["weight_hh_l0"]
    Matrix([
    [\delta_{t,0}*h_{t-1,0}, \delta_{t,0}*h_{t-1,1}],
    [\delta_{t,1}*h_{t-1,0}, \delta_{t,1}*h_{t-1,1}]])
    >>> rules.contributions["weight_hh_l0"] == rules.delta * rules.h_prev.T
    True
    """
    parameters = check_parameters(parameters)
    hidden_size, input_size = parameters["weight_ih_l0"].shape
    for name in PARAMETER_NAMES[:4]:
        if not all(isinstance(v, sympy.Symbol) for v in parameters[name]):
            raise ValueError(f"parameters[{name!r}] must hold symbols to differentiate by")
    delta = symbol_matrix(r"\delta", (hidden_size,), prefix="t")  # dL/da_t
    h_prev = symbol_matrix("h", (hidden_size,), prefix="t-1")  # the node h_{t-1}, a leaf here
    x = symbol_matrix("x", (input_size,), prefix="t")  # the input x_t
    # a_t = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, with h_{t-1} and x_t as leaves
    a = (
        parameters["weight_ih_l0"] * x
        + parameters["bias_ih_l0"]
        + parameters["weight_hh_l0"] * h_prev
        + parameters["bias_hh_l0"]
    )
    wrt = {name: parameters[name] for name in PARAMETER_NAMES if name != "h_0"} | {"h_0": h_prev}
    contributions = {
        name: value.applyfunc(
            lambda theta: sum(delta[i] * sympy.diff(a[i], theta) for i in range(hidden_size))
        )
        for name, value in wrt.items()
    }
    return ParameterRules(contributions, delta, h_prev, x)
