r"""The gradients of an unrolled network two ways, by the derived rules and directly, and their identity.

:func:`bptt` applies the rules of :mod:`rnndoc.symbolic.derivation` and
:mod:`rnndoc.symbolic.parameter_rules` backwards through an
unrolled network; :func:`direct_gradients` differentiates the unrolled loss in one go;
:func:`check_identity` proves the two equal for symbolic weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .._validate import check_instance, check_int
from ..handset import PARAMETER_NAMES
from .derivation import derive_delta_rule
from .network import Unrolled, symbolic_parameters
from .parameter_rules import derive_parameter_rules

__all__ = ["BPTT", "bptt", "check_identity", "direct_gradients"]


def _check_network(network: object) -> Unrolled:
    return check_instance("network", network, Unrolled, "an Unrolled (from rnndoc.symbolic.unroll)")


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
        The sums of the contributions: :math:`\partial \mathcal{L}/\partial \theta`.

    Examples
    --------
    >>> from rnndoc.symbolic import bptt, symbolic_parameters, unroll
    >>> result = bptt(unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]]))
    >>> len(result.deltas), len(result.contributions["weight_hh_l0"]), len(result.contributions["h_0"])
    (2, 2, 1)
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
        \frac{\partial \mathcal{L}}{\partial W_{hh}} &= \sum_t \delta_t h_{t-1}^\top, \\
        \frac{\partial \mathcal{L}}{\partial W_{ih}} &= \sum_t \delta_t x_t^\top, \\
        \frac{\partial \mathcal{L}}{\partial b_{ih}} = \frac{\partial \mathcal{L}}{\partial b_{hh}} &= \sum_t \delta_t, \\
        \frac{\partial \mathcal{L}}{\partial h_0} &= W_{hh}^\top \delta_1
        \end{aligned}

    Parameters
    ----------
    network : Unrolled
        From :func:`rnndoc.symbolic.unroll`, with symbolic or exact parameters.
    truncation : int, optional
        Truncated BPTT in chunks of this many steps: where step t ends a chunk the state was
        detached, so the rule is applied with :math:`\delta_{t+1} = 0` there. Default: full.
        At a chunk end the truncated delta is
        :math:`\delta^{\text{trunc}}_t = (h_t - y_t) \odot (1 - h_t^2)`, so the full minus the
        truncated delta there is :math:`(W_{hh}^\top \delta_{t+1}) \odot (1 - h_t^2)`, with the
        full :math:`\delta_{t+1}` (:eq:`eq-dropped`).

    Returns
    -------
    BPTT
        Deltas, per-use contributions and gradients as expressions.

    Raises
    ------
    TypeError, ValueError
        If ``network`` is not an :class:`Unrolled`, or ``truncation`` is not an int of at
        least 1 (as :func:`rnndoc.bptt.bptt_gradients`).

    Notes
    -----
    The book's :eq:`eq-delta` and :eq:`eq-gradients` (chapter "Backpropagation through time,
    derived"), with :eq:`eq-truncated` for ``truncation``; BPTT as in Werbos (1990).

    Examples
    --------
    >>> from rnndoc.handset import exact
    >>> from rnndoc.symbolic import bptt, evaluate, unroll
    >>> evaluate(bptt(unroll(exact())).gradients["h_0"], digits=15).T
    Matrix([[0.156871606319876, 0.0531180213047371]])
    """
    network = _check_network(network)
    truncation = None if truncation is None else check_int("truncation", truncation, minimum=1)
    rule = derive_delta_rule(network.parameters["weight_hh_l0"])
    hidden_size, input_size = network.parameters["weight_ih_l0"].shape
    generic = symbolic_parameters(input_size, hidden_size)
    derived = derive_parameter_rules(generic)
    # the rules are derived for generic symbols; read them at the network's parameters
    at_network = {
        symbol: value
        for name in PARAMETER_NAMES
        for symbol, value in zip(generic[name], network.parameters[name], strict=True)
    }
    size = rule.hidden.shape[0]
    deltas: list[sympy.Matrix] = [None] * network.length
    delta_next = sympy.zeros(size, 1)  # delta_{T+1} = 0
    for t in reversed(range(network.length)):
        if truncation is not None and (t + 1) % truncation == 0:
            delta_next = sympy.zeros(size, 1)  # detached: nothing flows back across the boundary
        delta_next = deltas[t] = rule.apply(network.hidden[t], network.targets[t], delta_next)

    h_prev = [network.parameters["h_0"], *network.hidden[:-1]]  # h_0 ... h_{T-1}
    contributions = {}
    for name, local in derived.contributions.items():
        steps = [0] if name == "h_0" else range(network.length)
        contributions[name] = [
            local.xreplace(
                at_network
                | dict(zip(derived.delta, deltas[t], strict=True))
                | dict(zip(derived.h_prev, h_prev[t], strict=True))
                | dict(zip(derived.x, network.inputs[t], strict=True))
            )
            for t in steps
        ]
    gradients = {name: sum(parts[1:], parts[0]) for name, parts in contributions.items()}
    return BPTT(deltas, contributions, gradients)


def direct_gradients(network: Unrolled, loss: sympy.Expr | None = None) -> dict[str, sympy.Matrix]:
    r"""Differentiate the unrolled loss directly, entry by entry: :math:`\partial \mathcal{L}/\partial \theta_{ij}`.

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
        Keyed by ``PARAMETER_NAMES`` (PyTorch's parameter names and ``h_0``), each shaped like its parameter.

    Raises
    ------
    TypeError
        If ``network`` is not an :class:`Unrolled`, or ``loss`` not an expression.
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
    network = _check_network(network)
    loss = network.loss if loss is None else check_instance("loss", loss, sympy.Expr, "a sympy expression")
    out = {}
    for name in PARAMETER_NAMES:
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
    TypeError
        If ``network`` is not an :class:`Unrolled`.
    ValueError
        If a parameter entry is a number rather than a symbol.
    AssertionError
        Naming the first entry whose difference does not vanish.

    Examples
    --------
    >>> from rnndoc.symbolic import check_identity, symbolic_parameters, unroll
    >>> net = unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]])
    >>> check_identity(net)
    5
    """
    direct = direct_gradients(network)  # checks the network first
    recursion = bptt(network).gradients
    count = 0
    for name in PARAMETER_NAMES:
        for index, (a, b) in enumerate(zip(recursion[name], direct[name], strict=True)):
            if sympy.expand(a - b) != 0:
                raise AssertionError(f"BPTT and direct differentiation differ at {name}[{index}]")
            count += 1
    return count
