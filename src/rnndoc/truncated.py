r"""Truncated BPTT as it is done in practice: chunks, the state carried but detached.

Reading a long sequence in chunks of k steps, with ``h = h.detach()`` between chunks, keeps
the forward pass exact (the state is carried) but cuts the backward pass: the gradient of a
chunk's loss stops at the chunk's first step. In the δ recursion this drops the term
:math:`W_{hh}^\top \delta_{t+1}` wherever step t ends a chunk (see
:func:`rnndoc.bptt.bptt_gradients` with ``truncation=k``).
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from ._validate import check_tensor
from .bptt import hidden_state_loss

__all__ = ["chunked_autograd_gradients"]


def chunked_autograd_gradients(
    rnn: torch.nn.RNN, values: Mapping[str, torch.Tensor], truncation: int, detach: bool = True
) -> dict[str, torch.Tensor]:
    r"""Gradients of the hidden-state loss by truncated BPTT through a real ``nn.RNN``.

    For each chunk of ``truncation`` steps: run the chunk from the carried state, compute its
    share of :math:`L = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2`, call ``backward()``
    (gradients accumulate over chunks), and carry the final state on, detached.

    Parameters
    ----------
    rnn : nn.RNN
        One layer, ``batch_first=True`` (as :func:`rnndoc.handset.make_rnn` makes it).
    values : mapping of str to Tensor
        ``inputs`` (N, L, H_in), ``targets`` (N, L, H) and ``h_0`` (1, N, H), as
        :func:`rnndoc.handset.tensors` gives them; other keys are ignored.
    truncation : int
        Chunk length k, at least 1.
    detach : bool, default True
        False reproduces the classic mistake: the second ``backward()`` then fails with
        "Trying to backward through the graph a second time".

    Returns
    -------
    dict of str to Tensor
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``, ``bias_hh_l0`` (H,)
        and ``h_0`` (1, N, H); the module's own gradients are left zeroed.

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
    >>> rnn, _ = make_rnn()
    >>> g = chunked_autograd_gradients(rnn, tensors(), truncation=2)
    >>> g["weight_hh_l0"].shape, g["h_0"].shape
    (torch.Size([2, 2]), torch.Size([1, 1, 2]))
    """
    if isinstance(truncation, bool) or not isinstance(truncation, int):
        raise TypeError(f"truncation must be an int, got {type(truncation).__name__}")
    if truncation < 1:
        raise ValueError(f"truncation must be at least 1 step, got {truncation}")
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of names to tensors, got {type(values).__name__}")
    inputs = check_tensor("inputs", values.get("inputs"), (None, None, rnn.input_size), "(N, L, H_in)")
    batch, length, _ = inputs.shape
    targets = check_tensor("targets", values.get("targets"), (batch, length, rnn.hidden_size), "(N, L, H)")
    h_0 = check_tensor("h_0", values.get("h_0"), (1, batch, rnn.hidden_size), "(1, N, H)")
    rnn.zero_grad()
    start = h_0.detach().clone().requires_grad_()  # (1, N, H)
    state = start
    for begin in range(0, length, truncation):
        chunk = slice(begin, begin + truncation)
        output, state = rnn(inputs[:, chunk], state)  # (N, k, H), (1, N, H)
        hidden_state_loss(output, targets[:, chunk]).backward()
        if detach:
            state = state.detach()  # carry the value, cut the graph
    grads = {name: p.grad.detach().clone() for name, p in rnn.named_parameters()}
    grads["h_0"] = start.grad.detach().clone()
    rnn.zero_grad()
    return grads
