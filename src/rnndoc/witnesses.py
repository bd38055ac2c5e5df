r"""The witnesses: each computes one result of the hand-set network its own way, and compares nothing.

* the plain-Python forward (:func:`rnndoc.reference.handset_forward`, no torch) and
  ``nn.RNN`` with the loss of its output (:func:`forward` runs both);
* the gradients of the loss four ways: sympy (:func:`sympy_gradients`), the numeric δ
  recursion (:func:`bptt_handset_gradients`), autograd (:func:`autograd_gradients`) and
  central finite differences (:func:`rnndoc.finite_differences.finite_difference_gradients`);
  :data:`GRADIENT_WITNESSES` names them;
* the exact loss (:func:`exact_loss`);
* sympy's two splits of the :math:`W_{hh}` gradient, per use and per loss term
  (:func:`sympy_weight_hh_split`), the reference for :func:`rnndoc.bptt.gradient_split`.

The numeric witnesses work in float64; the exact ones (sympy) differentiate or evaluate the
unrolled network at the exact rational hand-set values to ``digits`` digits and round once to
float64. Every gradient comes back keyed and shaped like :func:`rnndoc.handset.tensors`
(PyTorch's names; ``h_0`` in ``nn.RNN``'s layout (1, 1, H)). :mod:`rnndoc.verdict` compares them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import sympy
import torch

from . import handset
from ._validate import check_float, check_int
from .bptt import bptt_gradients, gradient_split
from .finite_differences import FINITE_DIFF_EPS, finite_difference_gradients, handset_differences
from .loss import hidden_state_loss
from .reference import handset_forward
from .symbolic import bptt, direct_gradients, evaluate, symbolic_parameters, to_tensor, unroll

__all__ = [
    "GRADIENT_WITNESSES",
    "REFERENCE",
    "Forward",
    "Witnessed",
    "autograd_gradients",
    "bptt_handset_gradients",
    "exact_loss",
    "forward",
    "sympy_gradients",
    "sympy_weight_hh_split",
    "witness_all",
]


@dataclass(frozen=True)
class Forward:
    r"""The forward pass by two witnesses.

    Attributes
    ----------
    preactivations : list of list of float, shape (L, H)
        :math:`a_t` from the plain-Python forward.
    hidden : list of list of float, shape (L, H)
        :math:`h_t` from the plain-Python forward.
    output : Tensor, shape (N, L, H) = (1, 3, 2)
        ``nn.RNN`` output (``batch_first=True``), detached.
    h_n : Tensor, shape (num_layers * D, N, H) = (1, 1, 2)
    loss : float
        :math:`\mathcal{L}` of the ``nn.RNN`` output against the hand-set targets
        (:func:`rnndoc.bptt.hidden_state_loss`, defined in :mod:`rnndoc.loss`).

    Examples
    --------
    >>> from rnndoc.witnesses import forward
    >>> f = forward()
    >>> len(f.hidden), round(f.loss, 12)
    (3, 0.09481626735)
    """

    preactivations: list[list[float]]
    hidden: list[list[float]]
    output: torch.Tensor
    h_n: torch.Tensor
    loss: float


def forward() -> Forward:
    r"""Run the hand-set sequence A, B, C through plain Python and through ``nn.RNN``.

    .. math::

        h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),\qquad
        \mathcal{L} = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2

    The loss is taken of ``nn.RNN``'s output only; the plain-Python pass gives the states.

    Returns
    -------
    Forward

    Notes
    -----
    The book's :eq:`eq-rnn-forward` (chapter "How does order enter an RNN?" computes it with
    :func:`rnndoc.reference.rnn_forward`) and :eq:`eq-loss`; PyTorch's ``torch.nn.RNN``.

    Examples
    --------
    >>> from rnndoc.witnesses import forward
    >>> f = forward()
    >>> f.output.shape, f.h_n.shape, len(f.hidden)
    (torch.Size([1, 3, 2]), torch.Size([1, 1, 2]), 3)
    """
    return _forward(handset.make_rnn()[0], handset.tensors())


def _forward(rnn: torch.nn.RNN, values: dict[str, torch.Tensor]) -> Forward:
    """The plain-Python forward and ``rnn``'s on ``values``, with the loss (eq-rnn-forward, eq-loss)."""
    preactivations, hidden = handset_forward()
    with torch.no_grad():
        output, h_n = rnn(values["inputs"], values["h_0"])  # (1, L, H), (1, 1, H)
    loss = hidden_state_loss(output, values["targets"])  # targets (1, L, H)
    return Forward(preactivations, hidden, output, h_n, float(loss))


def autograd_gradients() -> dict[str, torch.Tensor]:
    """Gradients of the hand-set loss by ``loss.backward()`` through ``nn.RNN``.

    Returns
    -------
    dict of str to Tensor
        Keyed by :data:`rnndoc.handset.PARAMETER_NAMES`, in PyTorch's orientation.

    Examples
    --------
    >>> from rnndoc.witnesses import autograd_gradients
    >>> g = autograd_gradients()
    >>> list(g), tuple(g["h_0"].shape)
    (['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'h_0'], (1, 1, 2))
    """
    return _autograd_gradients(handset.make_rnn()[0], handset.tensors())


def _autograd_gradients(rnn: torch.nn.RNN, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The gradients of the loss of ``rnn``'s output on ``values`` by autograd (eq-loss)."""
    h_0 = values["h_0"].clone().requires_grad_()  # (1, 1, H); ``values`` stays a plain leaf
    leaves = dict(rnn.named_parameters()) | {"h_0": h_0}
    output, _ = rnn(values["inputs"], h_0)  # (1, L, H)
    loss = hidden_state_loss(output, values["targets"])
    grads = torch.autograd.grad(loss, [leaves[name] for name in handset.PARAMETER_NAMES])
    return dict(zip(handset.PARAMETER_NAMES, grads, strict=True))


def bptt_handset_gradients() -> dict[str, torch.Tensor]:
    """Gradients of the hand-set loss by the numeric δ recursion (:func:`rnndoc.bptt.bptt_gradients`).

    Returns
    -------
    dict of str to Tensor
        As :func:`autograd_gradients`.

    Examples
    --------
    >>> from rnndoc.witnesses import bptt_handset_gradients
    >>> bptt_handset_gradients()["weight_ih_l0"].shape
    torch.Size([2, 2])
    """
    return bptt_gradients(handset.tensors()).gradients


#: The exact witnesses' working precision, in digits, unless asked for another.
_DIGITS = 50


def _check_digits(digits: object) -> int:
    # float64 needs 17 significant digits to round correctly; fewer would return a
    # value that only looks exact.
    return check_int("digits", digits, minimum=17)


@functools.cache
def _symbolic_handset():
    """The unrolled hand-set network with symbolic parameters and exact inputs/targets."""
    values = handset.exact()
    params = symbolic_parameters(handset.INPUT_SIZE, handset.HIDDEN_SIZE)
    net = unroll(params, values["inputs"], values["targets"])
    at = {s: values[name][k] for name in handset.PARAMETER_NAMES for k, s in enumerate(params[name])}
    return net, at


def sympy_gradients(digits: int = _DIGITS) -> dict[str, torch.Tensor]:
    r"""Gradients by direct differentiation of the unrolled sympy loss, evaluated exactly.

    sympy differentiates :math:`\mathcal{L}` (a nested expression in 14 parameter symbols) by each
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
    >>> from rnndoc.witnesses import sympy_gradients
    >>> round(sympy_gradients()["bias_hh_l0"][0].item(), 12)
    0.73283966584
    """
    return _sympy_gradients(handset.tensors(), _check_digits(digits))


def _sympy_gradients(like: dict[str, torch.Tensor], digits: int) -> dict[str, torch.Tensor]:
    """``sympy.diff`` of the unrolled loss, to ``digits`` digits, shaped as ``like`` (eq-loss)."""
    net, at = _symbolic_handset()
    return {
        name: to_tensor(evaluate(grad, digits, subs=at), like=like[name])
        for name, grad in direct_gradients(net).items()
    }


def exact_loss(digits: int = _DIGITS) -> sympy.Float:
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
    >>> from rnndoc.witnesses import exact_loss
    >>> exact_loss(20)
    0.094816267350151306784
    """
    return _exact_loss(_check_digits(digits))


def _exact_loss(digits: int) -> sympy.Float:
    """The unrolled loss at the exact hand-set values, to ``digits`` digits (eq-loss)."""
    net, at = _symbolic_handset()
    return evaluate(net.loss, digits, subs=at)


def sympy_weight_hh_split(digits: int = _DIGITS) -> dict[str, torch.Tensor]:
    r"""The :math:`W_{hh}` gradient of the hand-set loss split two ways by sympy, evaluated exactly.

    .. math::

        \frac{\partial \mathcal{L}}{\partial W_{hh}}
        = \sum_{s=1}^{L} \delta_s h_{s-1}^\top
        = \sum_{t=1}^{L} \frac{\partial \ell_t}{\partial W_{hh}}

    Per use s (the BPTT chapter's t'): the contribution of step s's use of :math:`W_{hh}`,
    from the rules sympy derived (:func:`rnndoc.symbolic.bptt`'s ``contributions``). Per loss
    term t: ``sympy.diff`` of :math:`\ell_t` alone (:func:`rnndoc.symbolic.direct_gradients`).
    Both are evaluated at the exact hand-set values to ``digits`` digits and rounded once.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    dict of str to Tensor
        ``per_use`` and ``per_loss_term``, each shape (L, H, H), float64: the references for
        :func:`rnndoc.bptt.gradient_split` summed over its loss-term axis and over its use axis.

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Notes
    -----
    The two splits of the BPTT chapter's section on the shared weight (the per-use terms of
    :eq:`eq-gradients`; per loss term, :math:`\partial \ell_t / \partial W_{hh}`); the
    reference against which :func:`rnndoc.verdict.handset_gaps` holds
    :func:`rnndoc.bptt.gradient_split`.

    Examples
    --------
    >>> from rnndoc.witnesses import sympy_gradients, sympy_weight_hh_split
    >>> split = sympy_weight_hh_split()
    >>> split["per_use"].shape, bool(split["per_use"][0].eq(split["per_loss_term"][0]).all())
    (torch.Size([3, 2, 2]), False)
    >>> total = sympy_gradients()["weight_hh_l0"]
    >>> bool((split["per_use"].sum(0) - total).abs().max() < 1e-15)
    True
    """
    return _sympy_weight_hh_split(handset.tensors()["weight_hh_l0"], _check_digits(digits))


def _sympy_weight_hh_split(like: torch.Tensor, digits: int) -> dict[str, torch.Tensor]:
    """The W_hh gradient per use and per loss term by sympy, shaped (L,) + ``like`` (eq-gradients)."""
    net, at = _symbolic_handset()

    def exact(matrix: sympy.Matrix) -> torch.Tensor:
        return to_tensor(evaluate(matrix, digits, subs=at), like=like)  # (H, H)

    uses = bptt(net).contributions["weight_hh_l0"]  # delta_s h_(s-1)^T, s = 1 ... L
    terms = [direct_gradients(net, loss=ell)["weight_hh_l0"] for ell in net.step_losses]  # d l_t / d W_hh
    return {
        "per_use": torch.stack([exact(m) for m in uses]),  # (L, H, H)
        "per_loss_term": torch.stack([exact(m) for m in terms]),  # (L, H, H)
    }


@dataclass(frozen=True)
class GradientWitness:
    """One gradient witness: called with no argument, it builds the hand-set data itself; ``shared``
    is the same computation on the ``nn.RNN``, tensors and step that :func:`witness_all` builds once."""

    alone: Callable[[], dict[str, torch.Tensor]]
    shared: Callable[[torch.nn.RNN, dict[str, torch.Tensor], float], dict[str, torch.Tensor]]

    def __call__(self) -> dict[str, torch.Tensor]:
        return self.alone()


#: The name of the reference witness, against which the verdict measures the others.
REFERENCE = "sympy"

#: The gradient witnesses by the names the report and the verdict use, the reference first: the
#: one list of them (:func:`witness_all` runs them; :data:`rnndoc.verdict.GRADIENT_CHECKS` names the
#: others). Each has two faces: called with no argument (``alone``), ``"sympy"`` is
#: :func:`sympy_gradients`, ``"bptt"`` :func:`bptt_handset_gradients`, ``"autograd"``
#: :func:`autograd_gradients` and ``"finite_difference"``
#: :func:`rnndoc.finite_differences.finite_difference_gradients`; :func:`witness_all` calls the
#: other face (``shared``) with the one build of the hand-set data it made, so the report builds it once.
#:
#: :meta hide-value:
GRADIENT_WITNESSES: dict[str, GradientWitness] = {
    REFERENCE: GradientWitness(sympy_gradients, lambda rnn, values, eps: _sympy_gradients(values, _DIGITS)),
    "bptt": GradientWitness(
        bptt_handset_gradients, lambda rnn, values, eps: bptt_gradients(values).gradients
    ),
    "autograd": GradientWitness(
        autograd_gradients, lambda rnn, values, eps: _autograd_gradients(rnn, values)
    ),
    "finite_difference": GradientWitness(finite_difference_gradients, handset_differences),
}


@dataclass(frozen=True)
class Witnessed:
    r"""Every witness's raw result on one build of the hand-set data: what the verdict judges.

    :func:`witness_all` makes it; :func:`rnndoc.verdict.handset_gaps` measures it as it is
    (nothing in it is checked again).

    Attributes
    ----------
    values : dict of str to Tensor
        The hand-set tensors every numeric witness read (:func:`rnndoc.handset.tensors`).
    eps : float
        The finite-difference step.
    gradients : dict of str to dict of str to Tensor
        Witness name (the keys of :data:`GRADIENT_WITNESSES`, ``"sympy"`` first) to its
        gradients, keyed by :data:`rnndoc.handset.PARAMETER_NAMES` in PyTorch's orientation.
    forward : Forward
        Both forward witnesses, and the loss of the ``nn.RNN`` output.
    exact_loss : sympy.Float
        The exact loss (:func:`exact_loss`); ``forward.loss`` is ``nn.RNN``'s, in float64.
    split : Tensor, shape (L, L, H, H)
        :func:`rnndoc.bptt.gradient_split` of ``values`` (use s, loss term t).
    exact_split : dict of str to Tensor
        sympy's ``per_use`` and ``per_loss_term``, each (L, H, H) (:func:`sympy_weight_hh_split`).

    Examples
    --------
    >>> from rnndoc.witnesses import witness_all
    >>> w = witness_all()
    >>> list(w.gradients), tuple(w.split.shape), round(float(w.exact_loss), 12)
    (['sympy', 'bptt', 'autograd', 'finite_difference'], (3, 3, 2, 2), 0.09481626735)
    """

    values: dict[str, torch.Tensor]
    eps: float
    gradients: dict[str, dict[str, torch.Tensor]]
    forward: Forward
    exact_loss: sympy.Float
    split: torch.Tensor
    exact_split: dict[str, torch.Tensor]


def witness_all(eps: float = FINITE_DIFF_EPS) -> Witnessed:
    """Run every witness once, on one build of the hand-set tensors and one ``nn.RNN``.

    The numeric witnesses share the tensors and the module (none modifies them), the finite
    differences (:func:`rnndoc.finite_differences.finite_difference_gradients`' 28 losses)
    included; sympy works from the exact rationals, the plain-Python forward from the plain
    floats.

    Parameters
    ----------
    eps : float, default 1e-6
        The finite-difference step, positive (the verdict's tolerance holds only for the steps
        of :data:`rnndoc.finite_differences.FINITE_DIFF_EPS_RANGE`).

    Returns
    -------
    Witnessed

    Raises
    ------
    TypeError, ValueError
        If ``eps`` is not a positive finite number.

    Examples
    --------
    >>> from rnndoc.witnesses import witness_all
    >>> w = witness_all(1e-5)
    >>> w.eps, sorted(w.exact_split)
    (1e-05, ['per_loss_term', 'per_use'])
    """
    return _witness_all(check_float("eps", eps, positive=True))


def _witness_all(eps: float) -> Witnessed:
    """:func:`witness_all` for a step already checked (by :func:`rnndoc.report.mechanics_report`)."""
    values = handset.tensors()  # (1, L, .) inputs and targets, (1, 1, H) h_0, the parameters
    rnn = handset.make_rnn()[0]  # the same numbers in nn.RNN
    gradients = {name: witness.shared(rnn, values, eps) for name, witness in GRADIENT_WITNESSES.items()}
    return Witnessed(
        values=values,
        eps=eps,
        gradients=gradients,
        forward=_forward(rnn, values),
        exact_loss=_exact_loss(_DIGITS),
        split=gradient_split(values),  # (use s, loss term t, H, H)
        exact_split=_sympy_weight_hh_split(values["weight_hh_l0"], _DIGITS),
    )
