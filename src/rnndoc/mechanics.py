r"""The hand-set network's mechanics, each computed by independent witnesses.

Every function here reads the numbers from :mod:`rnndoc.handset` and runs the real
``torch.nn.RNN`` (float64, CPU), the plain-Python forward of :mod:`rnndoc.reference`,
the numeric δ recursion of :mod:`rnndoc.bptt`, or sympy (:mod:`rnndoc.symbolic`).
Gradients are returned in PyTorch's orientation: ``weight_*`` (H, H_in) and (H, H),
``bias_*`` (H,), and ``h_0`` as ``nn.RNN`` takes it, (num_layers * D, N, H) = (1, 1, 2).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy
import torch
from torch.func import functional_call

from . import handset
from .bptt import bptt_gradients, hidden_state_loss
from .verdict import FINITE_DIFF_EPS, central_difference, max_abs_difference
from .reference import rnn_forward
from .symbolic import direct_gradients, evaluate, symbolic_parameters, unroll

__all__ = [
    "Chunks",
    "Forward",
    "Order",
    "autograd_gradients",
    "bptt_handset_gradients",
    "chunked_forward",
    "exact_loss",
    "finite_difference_error",
    "finite_difference_gradients",
    "forward",
    "order_sensitivity",
    "sympy_gradients",
]

#: ``h_0`` as nn.RNN takes it: (num_layers * num_directions, N, H).
H_0_SHAPE = (1, 1, handset.HIDDEN_SIZE)


def _h_0() -> torch.Tensor:
    return handset.tensors()["h_0"].view(H_0_SHAPE)  # (1, 1, H)


def _torch_orientation(name: str, value: torch.Tensor) -> torch.Tensor:
    return value.reshape(H_0_SHAPE) if name == "h_0" else value


@dataclass(frozen=True)
class Forward:
    """The forward pass by two witnesses.

    Attributes
    ----------
    preactivations : list of list of float, shape (L, H)
        :math:`a_t` from the plain-Python forward.
    hidden : list of list of float, shape (L, H)
        :math:`h_t` from the plain-Python forward.
    output : Tensor, shape (N, L, H) = (1, 3, 2)
        ``nn.RNN`` output (``batch_first=True``), detached.
    h_n : Tensor, shape (num_layers * D, N, H) = (1, 1, 2)
    max_abs_error : float
        Largest gap between ``hidden`` and ``output``.
    """

    preactivations: list[list[float]]
    hidden: list[list[float]]
    output: torch.Tensor
    h_n: torch.Tensor
    max_abs_error: float


def forward() -> Forward:
    r"""Run the hand-set sequence A, B, C through plain Python and through ``nn.RNN``.

    .. math:: h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})

    Returns
    -------
    Forward

    Examples
    --------
    >>> from rnndoc.mechanics import forward
    >>> f = forward()
    >>> f.output.shape, f.h_n.shape, f.max_abs_error < 1e-14
    (torch.Size([1, 3, 2]), torch.Size([1, 1, 2]), True)
    """
    t = {k: v.tolist() for k, v in handset.tensors().items()}
    preactivations, hidden = rnn_forward(
        t["inputs"], t["h_0"], t["weight_ih_l0"], t["weight_hh_l0"], t["bias_ih_l0"], t["bias_hh_l0"]
    )
    with torch.no_grad():
        output, h_n = handset.make_rnn()(handset.inputs(), _h_0())  # (1, L, H), (1, 1, H)
    gap = max_abs_difference(output[0], hidden)
    return Forward(preactivations, hidden, output, h_n, gap)


@dataclass(frozen=True)
class Order:
    """Final states for two orders of the same tokens.

    Attributes
    ----------
    order, reordered : str
        Token orders, e.g. ``"ABC"`` and ``"CAB"``.
    h_n, reordered_h_n : Tensor, shape (1, 1, H)
    max_abs_difference : float
    """

    order: str
    reordered: str
    h_n: torch.Tensor
    reordered_h_n: torch.Tensor
    max_abs_difference: float


def order_sensitivity(reordered: str = "CAB") -> Order:
    """Read the same tokens in another order with unchanged weights and ``h_0``.

    Parameters
    ----------
    reordered : str, default ``"CAB"``
        A permutation of ``"ABC"``.

    Returns
    -------
    Order

    Raises
    ------
    TypeError
        If ``reordered`` is not a str.
    ValueError
        If ``reordered`` is not a permutation of ``"ABC"``.

    Examples
    --------
    >>> from rnndoc.mechanics import order_sensitivity
    >>> o = order_sensitivity("CAB")
    >>> o.reordered_h_n.shape, o.max_abs_difference > 0.1
    (torch.Size([1, 1, 2]), True)
    """
    if not isinstance(reordered, str):
        raise TypeError(f"reordered must be a str such as 'CAB', got {type(reordered).__name__}")
    if sorted(reordered) != sorted(handset.SEQUENCE):
        raise ValueError(f"reordered must be a permutation of {handset.SEQUENCE!r}, got {reordered!r}")
    rnn = handset.make_rnn()
    with torch.no_grad():
        _, h_n = rnn(handset.inputs(), _h_0())  # (1, 1, H)
        _, other = rnn(handset.inputs(reordered), _h_0())  # (1, 1, H)
    return Order(handset.SEQUENCE, reordered, h_n, other, max_abs_difference(other, h_n))


@dataclass(frozen=True)
class Chunks:
    """The sequence read in two chunks, with the state carried and with it reset.

    Attributes
    ----------
    split : int
        Length of the first chunk.
    carried_output : Tensor, shape (1, L, H)
        Both chunks' outputs concatenated along time, state carried.
    carried_h_n, reset_h_n, h_n : Tensor, shape (1, 1, H)
        Final state with the state carried, with it reset to zeros, and of the full
        sequence.
    carry_max_abs_error : float
        Largest gap between the carried run (outputs and h_n) and the full sequence.
    reset_max_abs_difference : float
        Largest gap between the reset run's h_n and the full sequence's.
    """

    split: int
    carried_output: torch.Tensor
    carried_h_n: torch.Tensor
    reset_h_n: torch.Tensor
    h_n: torch.Tensor
    carry_max_abs_error: float
    reset_max_abs_difference: float


def chunked_forward(split: int = 2) -> Chunks:
    """Run A, B, C as two chunks ``[:split]`` and ``[split:]``, carrying h_n or resetting it.

    Parameters
    ----------
    split : int, default 2
        Between 1 and L - 1 = 2.

    Returns
    -------
    Chunks

    Raises
    ------
    TypeError, ValueError
        If ``split`` is not an int in [1, L - 1].

    Examples
    --------
    >>> from rnndoc.mechanics import chunked_forward
    >>> c = chunked_forward(2)
    >>> c.carry_max_abs_error < 1e-14, c.reset_max_abs_difference > 0.01
    (True, True)
    """
    x = handset.inputs()  # (1, L, H_in)
    length = x.shape[1]
    if isinstance(split, bool) or not isinstance(split, int):
        raise TypeError(f"split must be an int, got {type(split).__name__}")
    if not 1 <= split <= length - 1:
        raise ValueError(f"split must be in [1, {length - 1}], got {split}")
    rnn = handset.make_rnn()
    with torch.no_grad():
        output, h_n = rnn(x, _h_0())  # (1, L, H), (1, 1, H)
        first, state = rnn(x[:, :split], _h_0())  # (1, split, H), (1, 1, H)
        second, carried_h_n = rnn(x[:, split:], state)  # (1, L - split, H), (1, 1, H)
        _, reset_h_n = rnn(x[:, split:], torch.zeros_like(state))  # (1, 1, H)
    carried = torch.cat([first, second], dim=1)  # (1, L, H)
    gap = max(max_abs_difference(carried, output), max_abs_difference(carried_h_n, h_n))
    return Chunks(split, carried, carried_h_n, reset_h_n, h_n, gap, max_abs_difference(reset_h_n, h_n))


def _loss(rnn: torch.nn.RNN, overrides: dict[str, torch.Tensor], h_0: torch.Tensor) -> torch.Tensor:
    output, _ = functional_call(rnn, overrides, (handset.inputs(), h_0))  # (1, L, H)
    return hidden_state_loss(output[0], handset.tensors()["targets"])


def autograd_gradients() -> dict[str, torch.Tensor]:
    """Gradients of the hand-set loss by ``loss.backward()`` through ``nn.RNN``.

    Returns
    -------
    dict of str to Tensor
        Keyed by :data:`rnndoc.handset.PARAMETER_NAMES`, in PyTorch's orientation.

    Examples
    --------
    >>> from rnndoc.mechanics import autograd_gradients
    >>> g = autograd_gradients()
    >>> list(g), tuple(g["h_0"].shape)
    (['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'h_0'], (1, 1, 2))
    """
    rnn = handset.make_rnn()
    h_0 = _h_0().requires_grad_()  # (1, 1, H)
    _loss(rnn, {}, h_0).backward()
    grads = {name: p.grad.detach() for name, p in rnn.named_parameters()}
    grads["h_0"] = h_0.grad.detach()
    return {name: grads[name] for name in handset.PARAMETER_NAMES}


def finite_difference_gradients(eps: float = FINITE_DIFF_EPS) -> dict[str, torch.Tensor]:
    r"""Gradients of the hand-set loss by central differences through the real ``nn.RNN``.

    Each parameter entry is moved by :math:`\pm\varepsilon` in a copy passed to
    ``torch.func.functional_call``; the module itself is never modified.

    Parameters
    ----------
    eps : float, default 1e-6
        The step of :func:`rnndoc.verdict.central_difference`.

    Returns
    -------
    dict of str to Tensor
        As :func:`autograd_gradients`.

    Raises
    ------
    ValueError
        If ``eps`` is not positive and finite.

    Examples
    --------
    >>> from rnndoc.mechanics import autograd_gradients, finite_difference_gradients
    >>> fd, ag = finite_difference_gradients(), autograd_gradients()
    >>> bool((fd["weight_hh_l0"] - ag["weight_hh_l0"]).abs().max() < 1e-7)
    True
    """
    rnn = handset.make_rnn()
    params = {name: p.detach() for name, p in rnn.named_parameters()}
    out = {
        name: central_difference(lambda v, name=name: _loss(rnn, {name: v}, _h_0()), value, eps)
        for name, value in params.items()
    }
    out["h_0"] = central_difference(lambda v: _loss(rnn, {}, v), _h_0(), eps)
    return {name: out[name] for name in handset.PARAMETER_NAMES}


def bptt_handset_gradients() -> dict[str, torch.Tensor]:
    """Gradients of the hand-set loss by the numeric δ recursion (:func:`rnndoc.bptt.bptt_gradients`).

    Returns
    -------
    dict of str to Tensor
        As :func:`autograd_gradients`.

    Examples
    --------
    >>> from rnndoc.mechanics import bptt_handset_gradients
    >>> bptt_handset_gradients()["weight_ih_l0"].shape
    torch.Size([2, 2])
    """
    t = handset.tensors()
    result = bptt_gradients(
        t["inputs"],
        t["targets"],
        t["h_0"],
        t["weight_ih_l0"],
        t["weight_hh_l0"],
        t["bias_ih_l0"],
        t["bias_hh_l0"],
    )
    return {name: _torch_orientation(name, result.gradients[name]) for name in handset.PARAMETER_NAMES}


def _check_digits(digits: object) -> None:
    # float64 needs 17 significant digits to round correctly; fewer would return a
    # value that only looks exact.
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError(f"digits must be an int, got {type(digits).__name__}")
    if digits < 17:
        raise ValueError(f"digits must be at least 17 (float64 needs 17 to round once), got {digits}")


@functools.cache
def _symbolic_handset():
    """The unrolled hand-set network with symbolic parameters and exact inputs/targets."""
    values = handset.exact()
    params = symbolic_parameters(handset.INPUT_SIZE, handset.HIDDEN_SIZE)
    net = unroll(params, values["inputs"], values["targets"])
    at = {s: values[name][k] for name in handset.PARAMETER_NAMES for k, s in enumerate(params[name])}
    return net, at


def sympy_gradients(digits: int = 50) -> dict[str, torch.Tensor]:
    r"""Gradients by direct differentiation of the unrolled sympy loss, evaluated exactly.

    sympy differentiates :math:`L` (a nested expression in 14 parameter symbols) by each
    entry, then evaluates at the exact rational hand-set values to ``digits`` digits;
    the result is rounded once to float64.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    dict of str to Tensor
        As :func:`autograd_gradients`, float64.

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Examples
    --------
    >>> from rnndoc.mechanics import sympy_gradients
    >>> round(sympy_gradients()["bias_hh_l0"][0].item(), 12)
    0.73283966584
    """
    _check_digits(digits)
    net, at = _symbolic_handset()
    out = {}
    for name, grad in direct_gradients(net).items():
        value = evaluate(grad, digits, subs=at)
        tensor = torch.tensor([float(v) for v in value], dtype=torch.float64)  # flat
        shape = H_0_SHAPE if name == "h_0" else (value.shape[0],) if value.shape[1] == 1 else value.shape
        out[name] = tensor.reshape(shape)
    return out


def exact_loss(digits: int = 50) -> sympy.Float:
    """The hand-set loss, evaluated from the exact rationals to ``digits`` digits.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    sympy.Float

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Examples
    --------
    >>> from rnndoc.mechanics import exact_loss
    >>> exact_loss(20)
    0.094816267350151306784
    """
    _check_digits(digits)
    net, at = _symbolic_handset()
    return evaluate(net.loss, digits, subs=at)


def finite_difference_error(eps_values: list[float]) -> list[float]:
    """Largest error of the finite-difference gradients against sympy, per step.

    Parameters
    ----------
    eps_values : list of float, length K
        Positive steps.

    Returns
    -------
    list of float, length K
        For each step, the largest absolute gap over all 14 gradient entries.

    Raises
    ------
    ValueError
        If a step is not positive and finite.

    Examples
    --------
    >>> from rnndoc.mechanics import finite_difference_error
    >>> big, good = finite_difference_error([1e-2, 1e-6])
    >>> big > 1e-6 > 1e-8 > good
    True
    """
    exact = sympy_gradients()
    errors = []
    for eps in eps_values:
        approx = finite_difference_gradients(eps)
        errors.append(max(max_abs_difference(approx[name], exact[name]) for name in exact))
    return errors
