r"""Truncated BPTT as it is done in practice: chunks, the state carried but detached.

Reading a long sequence in chunks of k steps, with ``h = h.detach()`` between chunks, keeps
the forward pass exact (the state is carried) but cuts the backward pass: the gradient of a
chunk's loss stops at the chunk's first step. In the δ recursion this drops the term
:math:`W_{hh}^\top \delta_{t+1}` wherever step t ends a chunk (see
:func:`rnndoc.bptt.bptt_gradients` with ``truncation=k``).
"""

from __future__ import annotations

import torch

from ._validate import check_tensor
from .bptt import hidden_state_loss

__all__ = ["chunked_autograd_gradients"]


def chunked_autograd_gradients(
    rnn: torch.nn.RNN,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    h_0: torch.Tensor,
    truncation: int,
    detach=True,
) -> dict[str, torch.Tensor]:
    r"""Gradients of the hidden-state loss by truncated BPTT through a real ``nn.RNN``.

    For each chunk of ``truncation`` steps: run the chunk from the carried state, compute its
    share of :math:`L = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2`, call ``backward()``
    (gradients accumulate over chunks), and carry the final state on, detached.

    Parameters
    ----------
    rnn : nn.RNN
        One layer, ``batch_first=True`` (as :func:`rnndoc.handset.make_rnn` makes it).
    inputs : Tensor, shape (L, H_in)
    targets : Tensor, shape (L, H)
    h_0 : Tensor, shape (H,)
    truncation : int
        Chunk length k, at least 1.
    detach : bool, default True
        False reproduces the classic mistake: the second ``backward()`` then fails with
        "Trying to backward through the graph a second time".

    Returns
    -------
    dict of str to Tensor
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``, ``bias_hh_l0`` and
        ``h_0`` (H,); the module's own gradients are left zeroed.

    Raises
    ------
    TypeError, ValueError
        If ``truncation`` is not a positive int, or a shape disagrees.
    RuntimeError
        From torch, with ``detach=False`` and more than one chunk.

    Notes
    -----
    Williams and Peng (1990) and Werbos (1990) describe truncation; the detach idiom is
    PyTorch's.

    Examples
    --------
    >>> from rnndoc.handset import make_rnn, tensors
    >>> from rnndoc.truncated import chunked_autograd_gradients
    >>> t = tensors()
    >>> g = chunked_autograd_gradients(make_rnn(), t["inputs"], t["targets"], t["h_0"], truncation=2)
    >>> g["weight_hh_l0"].shape
    torch.Size([2, 2])
    """
    if isinstance(truncation, bool) or not isinstance(truncation, int) or truncation < 1:
        raise ValueError(f"truncation must be a positive int, got {truncation!r}")
    check_tensor("inputs", inputs, (None, rnn.input_size), "(L, H_in)")
    check_tensor("targets", targets, (inputs.shape[0], rnn.hidden_size), "(L, H)")
    check_tensor("h_0", h_0, (rnn.hidden_size,), "(H,)")
    rnn.zero_grad()
    start = h_0.detach().clone().requires_grad_()  # (H,)
    state = start.view(1, 1, -1)  # (1, 1, H): nn.RNN's h_0 layout
    for begin in range(0, inputs.shape[0], truncation):
        chunk = slice(begin, begin + truncation)
        output, state = rnn(inputs[chunk].unsqueeze(0), state)  # (1, k, H), (1, 1, H)
        hidden_state_loss(output[0], targets[chunk]).backward()
        if detach:
            state = state.detach()  # carry the value, cut the graph
    grads = {name: p.grad.detach().clone() for name, p in rnn.named_parameters()}
    grads["h_0"] = start.grad.detach().clone()
    rnn.zero_grad()
    return grads
