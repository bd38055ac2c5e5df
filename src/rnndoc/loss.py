r"""The book's loss on the hidden states, shared by every witness that differentiates it."""

from __future__ import annotations

import torch

from ._validate import check_same_dtype, check_tensor

__all__ = ["hidden_state_loss"]


def hidden_state_loss(hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    r"""The book's loss on the hidden states, summed over steps and units.

    .. math::

        \mathcal{L} = \sum_{t=1}^{T} \ell_t, \qquad
        \ell_t = \tfrac12 \sum_{k} \bigl(h_t[k] - y_t[k]\bigr)^2

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
    The book's hand-set loss :eq:`eq-loss` (chapter "Backpropagation through time, derived"):
    a squared error on every hidden state, summed, not averaged; it stands in for a task loss
    so that every step's state has a target. The chapters and the API page show it as
    ``rnndoc.bptt.hidden_state_loss`` (a re-export).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.loss import hidden_state_loss
    >>> hidden_state_loss(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.0, 0.0]]))
    tensor(2.5000)
    """
    axes = hidden.dim() if isinstance(hidden, torch.Tensor) and hidden.dim() >= 2 else 2  # (..., L, H)
    check_tensor("hidden", hidden, (None,) * axes, "(..., L, H)")
    check_tensor("targets", targets, tuple(hidden.shape), "hidden.shape")
    check_same_dtype(hidden=hidden, targets=targets)
    return 0.5 * (hidden - targets).square().sum()
