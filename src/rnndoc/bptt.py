r"""Backpropagation through time in float64 torch, by the δ recursion (no autograd).

The recursion is the one :func:`rnndoc.symbolic.derive_delta_rule` derives:

.. math::

    \delta_t = (h_t - y_t + W_{hh}^\top \delta_{t+1}) \odot (1 - h_t^2),\qquad
    \delta_{T+1} = 0,

and each use of a parameter at step t contributes :math:`\delta_t \otimes
\partial a_t/\partial\theta` to its gradient.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._validate import check_same_dtype, check_tensor

__all__ = ["BPTTGradients", "bptt_gradients", "gradient_split", "hidden_state_loss"]


def hidden_state_loss(hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    r"""The book's loss on the hidden states: :math:`L = \tfrac12 \sum_t \sum_k (h_t[k] - y_t[k])^2`.

    Parameters
    ----------
    hidden : Tensor, shape (..., L, H)
        Hidden states :math:`h_1 \dots h_L` (an ``nn.RNN`` output works as it is).
    targets : Tensor, shape (..., L, H)
        Same shape as ``hidden``.

    Returns
    -------
    Tensor, shape ()
        The summed loss (no averaging), same dtype.

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor, the dtypes differ, or the shapes differ.

    Notes
    -----
    The book's hand-set loss (a squared error on every hidden state, summed, not
    averaged); it stands in for a task loss so that every step's state has a target.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.bptt import hidden_state_loss
    >>> hidden_state_loss(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.0, 0.0]]))
    tensor(2.5000)
    """
    if not isinstance(hidden, torch.Tensor) or hidden.dim() < 2:
        check_tensor("hidden", hidden, (None, None), "(..., L, H)")
    check_tensor("hidden", hidden, (None,) * hidden.dim(), "(..., L, H)")
    check_tensor("targets", targets, tuple(hidden.shape), "hidden.shape")
    check_same_dtype(hidden=hidden, targets=targets)
    return 0.5 * (hidden - targets).square().sum()


@dataclass(frozen=True)
class BPTTGradients:
    r"""What :func:`bptt_gradients` returns (all float tensors of the inputs' dtype).

    Attributes
    ----------
    loss : Tensor, shape ()
    preactivations : Tensor, shape (L, H)
        :math:`a_1 \dots a_L`.
    hidden : Tensor, shape (L, H)
        :math:`h_1 \dots h_L`.
    deltas : Tensor, shape (L, H)
        :math:`\delta_1 \dots \delta_L`, :math:`\delta_t = \partial L / \partial a_t`.
    contributions : dict of str to Tensor
        Per-use contributions, time first: ``weight_ih_l0`` (L, H, H_in),
        ``weight_hh_l0`` (L, H, H), ``bias_ih_l0`` and ``bias_hh_l0`` (L, H).
    gradients : dict of str to Tensor
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``,
        ``bias_hh_l0`` and ``h_0`` (H,).
    """

    loss: torch.Tensor
    preactivations: torch.Tensor
    hidden: torch.Tensor
    deltas: torch.Tensor
    contributions: dict[str, torch.Tensor]
    gradients: dict[str, torch.Tensor]


def _forward(inputs, h_0, weight_ih, weight_hh, bias_ih, bias_hh):
    check_tensor("weight_ih", weight_ih, (None, None), "(H, H_in)")
    hidden_size, input_size = weight_ih.shape
    check_tensor("inputs", inputs, (None, input_size), "(L, H_in)")
    if inputs.shape[0] < 1:
        raise ValueError(f"inputs must hold at least one time step, got shape {tuple(inputs.shape)}")
    check_tensor("h_0", h_0, (hidden_size,), "(H,)")
    check_tensor("weight_hh", weight_hh, (hidden_size, hidden_size), "(H, H)")
    check_tensor("bias_ih", bias_ih, (hidden_size,), "(H,)")
    check_tensor("bias_hh", bias_hh, (hidden_size,), "(H,)")
    check_same_dtype(
        weight_ih=weight_ih, inputs=inputs, h_0=h_0, weight_hh=weight_hh, bias_ih=bias_ih, bias_hh=bias_hh
    )
    h = h_0
    preactivations, hidden = [], []
    for x_t in inputs:
        a = weight_ih @ x_t + bias_ih + weight_hh @ h + bias_hh  # (H,)
        h = torch.tanh(a)  # (H,)
        preactivations.append(a)
        hidden.append(h)
    return torch.stack(preactivations), torch.stack(hidden)  # (L, H), (L, H)


def _deltas(
    hidden: torch.Tensor, residuals: torch.Tensor, weight_hh: torch.Tensor, truncation: int | None = None
) -> torch.Tensor:
    # delta_t = (r_t + W_hh^T delta_{t+1}) * (1 - h_t^2), delta_{L+1} = 0, r_t = dl/dh_t;
    # truncated BPTT drops W_hh^T delta_{t+1} where step t ends a chunk of `truncation` steps
    deltas = torch.zeros_like(hidden)  # (L, H)
    delta_next = torch.zeros_like(hidden[0])  # (H,)
    for t in reversed(range(hidden.shape[0])):
        if truncation is not None and (t + 1) % truncation == 0:
            delta_next = torch.zeros_like(delta_next)  # the state was detached here
        delta_next = deltas[t] = (residuals[t] + weight_hh.T @ delta_next) * (1 - hidden[t] ** 2)
    return deltas


def _check_truncation(truncation: object) -> int | None:
    if truncation is None:
        return None
    if isinstance(truncation, bool) or not isinstance(truncation, int):
        raise TypeError(f"truncation must be an int or None, got {type(truncation).__name__}")
    if truncation < 1:
        raise ValueError(f"truncation must be at least 1 step, got {truncation}")
    return truncation


def bptt_gradients(
    inputs: torch.Tensor,
    targets: torch.Tensor,
    h_0: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor,
    bias_hh: torch.Tensor,
    truncation: int | None = None,
) -> BPTTGradients:
    r"""Forward a tanh RNN over one sequence, then run the δ recursion backwards.

    .. math::

        \begin{aligned}
        \delta_t &= (h_t - y_t + W_{hh}^\top \delta_{t+1}) \odot (1 - h_t^2), \\
        \frac{\partial L}{\partial W_{hh}} &= \sum_t \delta_t h_{t-1}^\top, \\
        \frac{\partial L}{\partial W_{ih}} &= \sum_t \delta_t x_t^\top, \\
        \frac{\partial L}{\partial b} &= \sum_t \delta_t, \\
        \frac{\partial L}{\partial h_0} &= W_{hh}^\top \delta_1
        \end{aligned}

    Parameters
    ----------
    inputs : Tensor, shape (L, H_in)
        One unbatched sequence; L is its length.
    targets : Tensor, shape (L, H)
    h_0 : Tensor, shape (H,)
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,)
        All of one floating dtype (float64 for the book's checks).
    truncation : int, optional
        Truncated BPTT: the sequence is read in chunks of this many steps with the state
        carried but detached, so :math:`W_{hh}^\top \delta_{t+1}` is dropped wherever step t
        ends a chunk. Default: full BPTT.

    Returns
    -------
    BPTTGradients
        Loss, forward values, deltas, per-use contributions and gradients.

    Raises
    ------
    TypeError
        If an argument is not a floating tensor, or the dtypes differ.
    ValueError
        If a shape disagrees, or L is 0; the message names the argument, the expected
        and the actual shape.

    Notes
    -----
    Werbos (1990); the recursion is derived in :func:`rnndoc.symbolic.derive_delta_rule`.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.bptt import bptt_gradients
    >>> from rnndoc.handset import tensors
    >>> t = tensors()
    >>> g = bptt_gradients(t["inputs"], t["targets"], t["h_0"], t["weight_ih_l0"],
    ...                    t["weight_hh_l0"], t["bias_ih_l0"], t["bias_hh_l0"])
    >>> g.deltas.shape, g.gradients["weight_hh_l0"].shape
    (torch.Size([3, 2]), torch.Size([2, 2]))
    >>> round(g.loss.item(), 12)
    0.09481626735
    """
    preactivations, hidden = _forward(inputs, h_0, weight_ih, weight_hh, bias_ih, bias_hh)
    check_tensor("targets", targets, tuple(hidden.shape), "(L, H)")
    check_same_dtype(inputs=inputs, targets=targets)
    deltas = _deltas(hidden, hidden - targets, weight_hh, _check_truncation(truncation))  # (L, H)
    h_prev = torch.cat([h_0.unsqueeze(0), hidden[:-1]])  # (L, H): h_0 ... h_{L-1}
    contributions = {
        "weight_ih_l0": deltas.unsqueeze(2) * inputs.unsqueeze(1),  # (L, H, H_in): delta_t x_t^T
        "weight_hh_l0": deltas.unsqueeze(2) * h_prev.unsqueeze(1),  # (L, H, H): delta_t h_{t-1}^T
        "bias_ih_l0": deltas,  # (L, H)
        "bias_hh_l0": deltas,  # (L, H)
    }
    gradients = {name: c.sum(0) for name, c in contributions.items()}
    gradients["h_0"] = weight_hh.T @ deltas[0]  # (H,): dL/dh_0 = W_hh^T delta_1
    return BPTTGradients(
        hidden_state_loss(hidden, targets), preactivations, hidden, deltas, contributions, gradients
    )


def gradient_split(
    inputs: torch.Tensor,
    targets: torch.Tensor,
    h_0: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor,
    bias_hh: torch.Tensor,
) -> torch.Tensor:
    r"""The W_hh gradient split by both use and loss term: a (use s, loss t) table.

    Entry ``[s, t]`` is what the use of :math:`W_{hh}` at step s contributes to the
    gradient of the loss term :math:`\ell_t` (zero for s > t, since a later use cannot
    change an earlier state):

    .. math:: C_{s,t} = \delta^{(t)}_s h_{s-1}^\top,\qquad
              \delta^{(t)}_s = \frac{\partial \ell_t}{\partial a_s}

    Summing over t gives the per-use contribution :math:`\delta_s h_{s-1}^\top`;
    summing over s gives :math:`\partial \ell_t / \partial W_{hh}`; both total
    :math:`\partial L / \partial W_{hh}`.

    Parameters
    ----------
    inputs, targets, h_0, weight_ih, weight_hh, bias_ih, bias_hh : Tensor
        As in :func:`bptt_gradients`.

    Returns
    -------
    Tensor, shape (L, L, H, H)
        Axes (use s, loss term t, hidden row, hidden column).

    Raises
    ------
    TypeError, ValueError
        As :func:`bptt_gradients`.

    Notes
    -----
    The table follows from the chain rule with one loss term at a time: the δ recursion
    of :func:`bptt_gradients` run with the residual :math:`h_t - y_t` kept at step t only.

    Examples
    --------
    >>> from rnndoc.bptt import gradient_split
    >>> from rnndoc.handset import tensors
    >>> t = tensors()
    >>> table = gradient_split(t["inputs"], t["targets"], t["h_0"], t["weight_ih_l0"],
    ...                        t["weight_hh_l0"], t["bias_ih_l0"], t["bias_hh_l0"])
    >>> table.shape, bool(table[2, 0].eq(0).all())
    (torch.Size([3, 3, 2, 2]), True)
    """
    _, hidden = _forward(inputs, h_0, weight_ih, weight_hh, bias_ih, bias_hh)  # (L, H)
    check_tensor("targets", targets, tuple(hidden.shape), "(L, H)")
    check_same_dtype(inputs=inputs, targets=targets)
    length = hidden.shape[0]
    h_prev = torch.cat([h_0.unsqueeze(0), hidden[:-1]])  # (L, H)
    table = []
    for t in range(length):
        residuals = torch.zeros_like(hidden)  # (L, H): only loss term t is kept
        residuals[t] = hidden[t] - targets[t]
        deltas = _deltas(hidden, residuals, weight_hh)  # (L, H): d l_t / d a_s
        table.append(deltas.unsqueeze(2) * h_prev.unsqueeze(1))  # (L, H, H), indexed by s
    return torch.stack(table, dim=1)  # (L_s, L_t, H, H)
