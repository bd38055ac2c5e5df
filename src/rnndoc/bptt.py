r"""Backpropagation through time in float64 torch, by the δ recursion (no autograd).

:func:`bptt_gradients` runs the recursion :eq:`eq-delta` (derived by
:func:`rnndoc.symbolic.derive_delta_rule`), full or truncated, and sums the per-use
contributions :eq:`eq-gradients`; :func:`gradient_split` splits the :math:`W_{hh}` gradient
by use and by loss term. The loss :math:`\mathcal{L}` is :func:`hidden_state_loss` (from
:mod:`rnndoc.loss`, re-exported); T in the equations is the L of the shapes. Both functions
take one mapping keyed by PyTorch's names in ``nn.RNN``'s layout with ``batch_first=True``
(:func:`rnndoc.handset.tensors` passes straight in) and return gradients under the same keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch

from ._validate import check_int, check_mapping, check_same_dtype, check_tensor
from .loss import hidden_state_loss

__all__ = ["BPTTGradients", "bptt_gradients", "gradient_split", "hidden_state_loss"]


@dataclass(frozen=True)
class BPTTGradients:
    r"""What :func:`bptt_gradients` returns (all float tensors of the inputs' dtype).

    Attributes
    ----------
    loss : Tensor, shape ()
    preactivations, hidden : Tensor, shape (N, L, H)
        :math:`a_1 \dots a_T` and :math:`h_1 \dots h_T` of each sequence (T = L steps).
    deltas : Tensor, shape (N, L, H)
        :math:`\delta_1 \dots \delta_T`, :math:`\delta_t = \partial \mathcal{L} / \partial a_t`.
    contributions : dict of str to Tensor
        Per-use contributions, time first, summed over the batch: ``weight_ih_l0``
        (L, H, H_in), ``weight_hh_l0`` (L, H, H), ``bias_ih_l0`` and ``bias_hh_l0`` (L, H).
    gradients : dict of str to Tensor
        Keyed and shaped like the parameters: ``weight_ih_l0`` (H, H_in), ``weight_hh_l0``
        (H, H), ``bias_ih_l0``, ``bias_hh_l0`` (H,) and ``h_0`` (1, N, H).
    """

    loss: torch.Tensor
    preactivations: torch.Tensor
    hidden: torch.Tensor
    deltas: torch.Tensor
    contributions: dict[str, torch.Tensor]
    gradients: dict[str, torch.Tensor]


#: The keys :func:`bptt_gradients` reads, and the axis names of each shape.
_LAYOUT = {
    "weight_ih_l0": "(H, H_in)",
    "weight_hh_l0": "(H, H)",
    "bias_ih_l0": "(H,)",
    "bias_hh_l0": "(H,)",
    "h_0": "(1, N, H)",
    "inputs": "(N, L, H_in)",
    "targets": "(N, L, H)",
}


def _read(values: object) -> dict[str, torch.Tensor]:
    """Check ``values`` against :data:`_LAYOUT` and return its tensors by name."""
    values = check_mapping("values", values, _LAYOUT)
    v = {name: values[name] for name in _LAYOUT}
    check_tensor("weight_ih_l0", v["weight_ih_l0"], (None, None), _LAYOUT["weight_ih_l0"])
    hidden_size, input_size = v["weight_ih_l0"].shape
    check_tensor("inputs", v["inputs"], (None, None, input_size), _LAYOUT["inputs"])
    batch, length, _ = v["inputs"].shape
    if length < 1:
        raise ValueError(f"inputs must hold at least one time step, got shape {tuple(v['inputs'].shape)}")
    shapes = {"weight_hh_l0": (hidden_size, hidden_size), "bias_ih_l0": (hidden_size,),
              "bias_hh_l0": (hidden_size,), "h_0": (1, batch, hidden_size),
              "targets": (batch, length, hidden_size)}  # fmt: skip
    for name, shape in shapes.items():
        check_tensor(name, v[name], shape, _LAYOUT[name])
    check_same_dtype(**v)
    return v


def _forward(v: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    h = v["h_0"][0]  # (N, H)
    preactivations, hidden = [], []
    for t in range(v["inputs"].shape[1]):
        # a_t = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, one row per sequence
        x_t = v["inputs"][:, t]  # (N, H_in)
        a = x_t @ v["weight_ih_l0"].T + v["bias_ih_l0"] + h @ v["weight_hh_l0"].T + v["bias_hh_l0"]  # (N, H)
        h = torch.tanh(a)  # (N, H)
        preactivations.append(a)
        hidden.append(h)
    return torch.stack(preactivations, dim=1), torch.stack(hidden, dim=1)  # (N, L, H), (N, L, H)


def _deltas(
    hidden: torch.Tensor, residuals: torch.Tensor, weight_hh: torch.Tensor, truncation: int | None = None
) -> torch.Tensor:
    # delta_t = (r_t + W_hh^T delta_{t+1}) * (1 - h_t^2), delta_{T+1} = 0, r_t = dl/dh_t;
    # truncated BPTT drops W_hh^T delta_{t+1} where step t ends a chunk of `truncation` steps
    deltas = torch.zeros_like(hidden)  # (N, L, H)
    delta_next = torch.zeros_like(hidden[:, 0])  # (N, H)
    for t in reversed(range(hidden.shape[1])):
        if truncation is not None and (t + 1) % truncation == 0:
            delta_next = torch.zeros_like(delta_next)  # the state was detached here
        delta_next = deltas[:, t] = (residuals[:, t] + delta_next @ weight_hh) * (1 - hidden[:, t] ** 2)
    return deltas


def _previous_states(v: dict[str, torch.Tensor], hidden: torch.Tensor) -> torch.Tensor:
    return torch.cat([v["h_0"][0].unsqueeze(1), hidden[:, :-1]], dim=1)  # (N, L, H): h_0 ... h_{L-1}


def bptt_gradients(values: Mapping[str, torch.Tensor], truncation: int | None = None) -> BPTTGradients:
    r"""Forward a tanh RNN over a batch of sequences, then run the δ recursion backwards.

    The recursion :eq:`eq-delta` and the gradients :eq:`eq-gradients` of the loss of
    :func:`hidden_state_loss` (:eq:`eq-loss`), in row form: :math:`\delta_t` is (N, H) for N
    sequences, and each gradient is summed over the batch and the L steps. With
    ``truncation=k``, truncated BPTT :eq:`eq-truncated` (chunks of k steps).

    Parameters
    ----------
    values : mapping of str to Tensor
        PyTorch's names in ``nn.RNN``'s layout with ``batch_first=True``: ``weight_ih_l0``
        (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0`` and ``bias_hh_l0`` (H,), ``h_0``
        (1, N, H), and the sequences ``inputs`` (N, L, H_in) and ``targets`` (N, L, H); all
        of one floating dtype (float64 for the book's checks). Other keys are ignored, so
        :func:`rnndoc.handset.tensors` passes straight in.
    truncation : int, optional
        k: the sequence is read in chunks of k steps, the state carried but detached at each
        chunk's end (step t ends a chunk when k divides t). Default: full BPTT.

    Returns
    -------
    BPTTGradients
        Loss, forward values, deltas, per-use contributions and the gradients, keyed like
        the parameters.

    Raises
    ------
    TypeError
        If ``values`` is not a mapping, an entry is not a floating tensor, the dtypes differ,
        or ``truncation`` is not an int.
    ValueError
        If an entry is missing, a shape disagrees (the message names the entry, the expected and
        the actual shape), the sequence is empty (L = 0), or ``truncation`` is below 1.

    Notes
    -----
    Werbos (1990); the recursion is derived in :func:`rnndoc.symbolic.derive_delta_rule`;
    truncated BPTT as Williams and Peng (1990). The loop is the private ``_deltas``.

    Examples
    --------
    >>> from rnndoc.bptt import bptt_gradients
    >>> from rnndoc.handset import tensors
    >>> g = bptt_gradients(tensors())
    >>> g.deltas.shape, g.gradients["weight_hh_l0"].shape, g.gradients["h_0"].shape
    (torch.Size([1, 3, 2]), torch.Size([2, 2]), torch.Size([1, 1, 2]))
    >>> round(g.loss.item(), 12)
    0.09481626735
    """
    v = _read(values)
    truncation = None if truncation is None else check_int("truncation", truncation, minimum=1)
    preactivations, hidden = _forward(v)  # (N, L, H) each
    deltas = _deltas(hidden, hidden - v["targets"], v["weight_hh_l0"], truncation)  # (N, L, H)
    h_prev = _previous_states(v, hidden)  # (N, L, H)
    contributions = {
        "weight_ih_l0": torch.einsum("nti,ntj->tij", deltas, v["inputs"]),  # (L, H, H_in): delta_t x_t^T
        "weight_hh_l0": torch.einsum("nti,ntj->tij", deltas, h_prev),  # (L, H, H): delta_t h_{t-1}^T
        "bias_ih_l0": deltas.sum(0),  # (L, H): delta_t
        "bias_hh_l0": deltas.sum(0),  # (L, H)
    }
    gradients = {name: c.sum(0) for name, c in contributions.items()}
    gradients["h_0"] = (deltas[:, 0] @ v["weight_hh_l0"]).unsqueeze(0)  # (1, N, H): W_hh^T delta_1
    loss = hidden_state_loss(hidden, v["targets"])
    return BPTTGradients(loss, preactivations, hidden, deltas, contributions, gradients)


def gradient_split(values: Mapping[str, torch.Tensor]) -> torch.Tensor:
    r"""The W_hh gradient split by both use and loss term: a (use t', loss term t) table.

    Entry ``[t', t]`` is :math:`C_{t',t}`, what the use of :math:`W_{hh}` at step t'
    contributes to the gradient of the loss term :math:`\ell_t` (zero for t' > t, since a
    later use cannot change an earlier state):

    .. math:: C_{t',t} = \delta^{(t)}_{t'} h_{t'-1}^\top,\qquad
              \delta^{(t)}_{t'} = \frac{\partial \ell_t}{\partial a_{t'}}

    Summed over t: the per-use part :math:`\delta_{t'} h_{t'-1}^\top`; over t':
    :math:`\partial \ell_t / \partial W_{hh}`; over both: :math:`\partial \mathcal{L} / \partial W_{hh}`.

    Parameters
    ----------
    values : mapping of str to Tensor
        As in :func:`bptt_gradients`.

    Returns
    -------
    Tensor, shape (L, L, H, H)
        Axes (use t', loss term t, hidden row, hidden column), summed over the batch.

    Raises
    ------
    TypeError, ValueError
        As :func:`bptt_gradients`.

    Notes
    -----
    The split of the BPTT chapter; the δ recursion of :func:`bptt_gradients` run with the
    residual :math:`h_t - y_t` of loss term t alone (the chain rule, one loss term at a time).

    Examples
    --------
    >>> from rnndoc.bptt import gradient_split
    >>> from rnndoc.handset import tensors
    >>> table = gradient_split(tensors())
    >>> table.shape, bool(table[2, 0].eq(0).all())
    (torch.Size([3, 3, 2, 2]), True)
    """
    v = _read(values)
    _, hidden = _forward(v)  # (N, L, H)
    h_prev = _previous_states(v, hidden)  # (N, L, H)
    table = []
    for t in range(hidden.shape[1]):
        residuals = torch.zeros_like(hidden)  # (N, L, H): only loss term t is kept
        residuals[:, t] = hidden[:, t] - v["targets"][:, t]
        deltas = _deltas(hidden, residuals, v["weight_hh_l0"])  # (N, L, H): d l_t / d a_t'
        table.append(torch.einsum("nsi,nsj->sij", deltas, h_prev))  # (L, H, H), indexed by t'
    return torch.stack(table, dim=1)  # (L_t', L_t, H, H)
