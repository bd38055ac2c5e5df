r"""Central finite differences: the witness that needs no derivative at all.

:func:`central_difference` differentiates any scalar function of a tensor entry by entry;
:func:`finite_difference_gradients` applies it to the hand-set loss through the real
``nn.RNN``. The default step and the steps allowed around it are stated here, together
(:data:`FINITE_DIFF_EPS`, :data:`FINITE_DIFF_EPS_RANGE`); the error at any step is the subject
of :func:`rnndoc.experiments.finite_difference_error`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
from torch.func import functional_call

from . import handset
from ._validate import check_callable, check_float, check_instance, check_mapping, check_tensor
from .loss import hidden_state_loss

__all__ = [
    "FINITE_DIFF_EPS",
    "FINITE_DIFF_EPS_RANGE",
    "central_difference",
    "finite_difference_gradients",
    "handset_loss",
]

#: The finite-difference step that balances truncation and round-off in float64: the default.
FINITE_DIFF_EPS = 1e-6
#: The steps around :data:`FINITE_DIFF_EPS` for which the central differences of the hand-set loss
#: stay within the verdict's :data:`rnndoc.verdict.FINITE_DIFF_ATOL` of sympy's gradients, with
#: room to spare: the chapter on BPTT measures the error over a sweep of steps and asserts it
#: within the tolerance over this range, and :func:`rnndoc.experiments.finite_difference_error`
#: measures any step.
#: :func:`rnndoc.verdict.check_finite_difference_eps` refuses a step outside them.
FINITE_DIFF_EPS_RANGE = (1e-8, 1e-4)


def central_difference(
    function: Callable[[torch.Tensor], torch.Tensor | float],
    point: torch.Tensor,
    eps: float = FINITE_DIFF_EPS,
) -> torch.Tensor:
    r"""Gradient of a scalar function by central differences, entry by entry.

    .. math:: \frac{\partial f}{\partial \theta_k} \approx
              \frac{f(\theta + \varepsilon e_k) - f(\theta - \varepsilon e_k)}{2 \varepsilon}

    The truncation error is :math:`O(\varepsilon^2)`; the round-off error is about
    :math:`10^{-16} |f| / \varepsilon`, so :math:`\varepsilon \approx 10^{-6}` balances
    them near :math:`10^{-10}` in float64.

    Parameters
    ----------
    function : callable
        Takes a tensor shaped like ``point`` and returns a scalar (tensor or float).
        It is called ``2 * point.numel()`` times under ``torch.no_grad()``.
    point : Tensor, any shape, floating dtype
        Where to differentiate; it is not modified.
    eps : float, default 1e-6
        The step, positive.

    Returns
    -------
    Tensor, same shape and dtype as ``point``

    Raises
    ------
    TypeError
        If ``function`` is not callable, ``point`` not a floating tensor, ``eps`` not a
        number, or ``function`` returns something other than a number.
    ValueError
        If ``eps`` is not positive and finite, or ``function`` returns a tensor of more than
        one entry.

    Notes
    -----
    The standard central difference; see e.g. Nocedal and Wright, *Numerical
    Optimization* (2006), section 8.1.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.finite_differences import central_difference
    >>> g = central_difference(lambda v: (v**3).sum(), torch.tensor([1.0, 2.0], dtype=torch.float64))
    >>> [round(x, 6) for x in g.tolist()]
    [3.0, 12.0]
    """
    function = check_callable("function", function)
    point = check_tensor("point", point)
    eps = check_float("eps", eps, positive=True)
    return _central_difference(function, point, eps)


def _central_difference(
    function: Callable[[torch.Tensor], torch.Tensor | float], point: torch.Tensor, eps: float
) -> torch.Tensor:
    """:func:`central_difference` of checked arguments, entry by entry."""
    base = point.detach().clone()
    grad = torch.empty_like(base)
    with torch.no_grad():
        for k in range(base.numel()):
            values = []
            for sign in (1.0, -1.0):
                shifted = base.clone()
                shifted.view(-1)[k] += sign * eps
                values.append(_scalar(function(shifted)))
            grad.view(-1)[k] = (values[0] - values[1]) / (2 * eps)
    return grad


def _scalar(value: object) -> float:
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(f"function must return a scalar, got a tensor of shape {tuple(value.shape)}")
        return float(value)
    return check_float("function's result", value, finite=False)


def handset_loss(rnn: torch.nn.RNN, overrides: Mapping[str, torch.Tensor], h_0: torch.Tensor) -> torch.Tensor:
    r"""The hand-set loss :eq:`eq-loss` through ``rnn``.

    Parameters
    ----------
    rnn : nn.RNN
        As :func:`rnndoc.handset.make_rnn` makes it (``input_size=2``, ``batch_first=True``).
    overrides : mapping of str to Tensor
        Parameters to use in place of the module's, by name, shaped like them
        (``torch.func.functional_call``: the module is not modified).
    h_0 : Tensor, shape (1, 1, H)

    Returns
    -------
    Tensor, shape ()

    Raises
    ------
    TypeError, ValueError
        If ``rnn`` is not such an ``nn.RNN``, an override is not one of its parameters or
        not shaped like it, or ``h_0`` is not a floating tensor of shape (1, 1, H).

    Examples
    --------
    >>> from rnndoc.finite_differences import handset_loss
    >>> from rnndoc.handset import make_rnn
    >>> rnn, h_0 = make_rnn()
    >>> round(handset_loss(rnn, {}, h_0).item(), 12)
    0.09481626735
    """
    rnn = check_instance("rnn", rnn, torch.nn.RNN, "an nn.RNN")
    if (
        rnn.input_size != handset.INPUT_SIZE
        or not rnn.batch_first
        or rnn.num_layers != 1
        or rnn.bidirectional
    ):
        raise ValueError(
            "rnn must be a one-layer, one-direction nn.RNN with input_size=2 and batch_first=True"
        )
    parameters = dict(rnn.named_parameters())
    overrides = check_mapping("overrides", overrides)
    for name, value in overrides.items():
        if name not in parameters:
            raise ValueError(f"overrides has {name!r}, not a parameter of rnn ({', '.join(parameters)})")
        check_tensor(f"overrides[{name!r}]", value, tuple(parameters[name].shape), "the parameter's shape")
    check_tensor("h_0", h_0, (1, 1, rnn.hidden_size), "(1, N, H)")
    values = handset.tensors()
    return _loss(rnn, dict(overrides), h_0, values["inputs"], values["targets"])


def _loss(
    rnn: torch.nn.RNN,
    overrides: dict[str, torch.Tensor],
    h_0: torch.Tensor,
    inputs: torch.Tensor,
    targets: torch.Tensor,
) -> torch.Tensor:
    """The loss of ``rnn``'s output on ``inputs`` (1, L, H_in), its parameters overridden (eq-loss)."""
    output, _ = functional_call(rnn, overrides, (inputs, h_0))  # (1, L, H)
    return hidden_state_loss(output, targets)


def finite_difference_gradients(eps: float = FINITE_DIFF_EPS) -> dict[str, torch.Tensor]:
    r"""Gradients of the hand-set loss by central differences through the real ``nn.RNN``.

    Each parameter entry is moved by :math:`\pm\varepsilon` in a copy passed to
    ``torch.func.functional_call``; the module itself is never modified.

    Parameters
    ----------
    eps : float, default 1e-6
        The step of :func:`central_difference`.

    Returns
    -------
    dict of str to Tensor
        As :func:`rnndoc.witnesses.autograd_gradients`.

    Raises
    ------
    TypeError, ValueError
        If ``eps`` is not a positive finite number.

    Examples
    --------
    >>> from rnndoc.finite_differences import finite_difference_gradients
    >>> from rnndoc.witnesses import autograd_gradients
    >>> fd, ag = finite_difference_gradients(), autograd_gradients()
    >>> bool((fd["weight_hh_l0"] - ag["weight_hh_l0"]).abs().max() < 1e-7)
    True
    """
    eps = check_float("eps", eps, positive=True)
    return handset_differences(handset.make_rnn()[0], handset.tensors(), eps)


def handset_differences(rnn: torch.nn.RNN, values: dict, eps: float) -> dict[str, torch.Tensor]:
    """:func:`finite_difference_gradients` on a built ``nn.RNN`` and hand-set tensors (trusted, unchanged)."""
    h_0 = values["h_0"]  # (1, 1, H)
    inputs, targets = (
        values["inputs"],
        values["targets"],
    )  # (1, L, H_in), (1, L, H): all 2 * 14 losses use them
    params = {name: p.detach() for name, p in rnn.named_parameters()}

    def loss_with(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
        return lambda value: _loss(rnn, {name: value}, h_0, inputs, targets)

    out = {name: _central_difference(loss_with(name), value, eps) for name, value in params.items()}
    out["h_0"] = _central_difference(lambda v: _loss(rnn, {}, v, inputs, targets), h_0, eps)
    return {name: out[name] for name in handset.PARAMETER_NAMES}
