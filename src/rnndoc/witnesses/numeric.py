"""The numeric witnesses: the hand-set forward pass and gradients in float64, by plain Python and torch.

Each computes one result its own way, in float64, and compares nothing; every gradient comes
back keyed and shaped like :func:`rnndoc.handset.tensors`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .. import handset
from ..bptt import bptt_gradients
from ..finite_differences import handset_loss
from ..loss import hidden_state_loss
from ..reference import handset_forward

__all__ = ["Forward", "autograd_gradients", "bptt_handset_gradients", "forward"]


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
    preactivations, hidden = handset_forward()
    rnn, h_0 = handset.make_rnn()
    with torch.no_grad():
        output, h_n = rnn(handset.inputs(), h_0)  # (1, L, H), (1, 1, H)
    loss = hidden_state_loss(output, handset.tensors()["targets"])  # targets (1, L, H)
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
    rnn, h_0 = handset.make_rnn()
    h_0.requires_grad_()  # (1, 1, H)
    leaves = dict(rnn.named_parameters()) | {"h_0": h_0}
    grads = torch.autograd.grad(
        handset_loss(rnn, {}, h_0), [leaves[name] for name in handset.PARAMETER_NAMES]
    )
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
