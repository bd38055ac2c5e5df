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

from ._autograd import grad_on, plain
from ._recurrent import check_kind_and_hooks, check_one_layer, layer_weights, rnn_nonlinearity
from ._validate import (
    check_bool,
    check_int,
    check_mapping,
    check_same_device,
    check_same_dtype,
    check_tensor,
)
from .loss import hidden_state_loss

__all__ = ["chunked_autograd_gradients"]


def chunked_autograd_gradients(
    rnn: torch.nn.RNN, values: Mapping[str, torch.Tensor], truncation: int, detach: bool = True
) -> dict[str, torch.Tensor]:
    r"""Gradients of the hidden-state loss by truncated BPTT through a real ``nn.RNN``.

    For each chunk of ``truncation`` steps: run the chunk from the carried state, compute its
    share of :math:`\mathcal{L} = \tfrac12 \sum_t \lVert h_t - y_t \rVert^2`, call ``backward()``
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
        (with ``bias=True``) and ``h_0`` (1, N, H): the gradients with respect to the weights
        as ``rnn`` computes with them (parametrized, pruned, ``weight_norm`` ones too), whether
        or not they require grad, as :func:`rnndoc.layers.backward` gives them; a tensor tied
        under two names gets the sum over its uses under each, as autograd gives it. The loop
        runs on a plain ``nn.RNN`` holding those weights, so ``rnn`` and its ``.grad`` are
        left alone.

    Raises
    ------
    TypeError, ValueError
        If ``rnn`` is not a one-layer, one-direction, ``batch_first`` ``nn.RNN``, has hooks or
        overrides ``forward`` (TypeError), ``truncation`` is not a positive int, an entry is
        missing or not a floating tensor of the shape above, ``inputs`` holds no time step
        (as ``nn.RNN`` refuses), or the dtypes or devices differ.
    RuntimeError
        From torch, with ``detach=False`` and more than one chunk.

    Notes
    -----
    The RNN runs with the nonlinearity of ``rnn.mode``, which torch's call reads (not
    ``rnn.nonlinearity``); another ``mode`` is refused (ValueError). The answer does not
    depend on the caller's grad mode: autograd runs inside ``torch.no_grad()`` or
    ``torch.inference_mode()`` too, on copies of inference tensors; the gradients do not
    require grad.
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
    check_kind_and_hooks("rnn", rnn, (torch.nn.RNN,), "an nn.RNN", autograd=True)
    check_one_layer("rnn", rnn)
    if not rnn.batch_first:
        raise ValueError("rnn must be batch_first=True, got batch_first=False")
    truncation = check_int("truncation", truncation, minimum=1)
    detach = check_bool("detach", detach)
    values = check_mapping("values", values, ("inputs", "targets", "h_0"))
    inputs = check_tensor("inputs", values["inputs"], (None, None, rnn.input_size), "(N, L, H_in)")
    batch, length, _ = inputs.shape
    if length < 1:
        raise ValueError(f"inputs must hold at least one time step, got shape {tuple(inputs.shape)}")
    targets = check_tensor("targets", values["targets"], (batch, length, rnn.hidden_size), "(N, L, H)")
    h_0 = check_tensor("h_0", values["h_0"], (1, batch, rnn.hidden_size), "(1, N, H)")
    weights = layer_weights("rnn", rnn, inputs, "inputs")
    check_same_dtype(inputs=inputs, targets=targets, h_0=h_0)
    check_same_device("inputs", inputs, targets=targets, h_0=h_0)
    nonlinearity = rnn_nonlinearity("rnn", rnn)  # what torch's call reads: mode
    with grad_on():  # the same gradients under no_grad or inference_mode
        inputs, targets = plain(inputs), plain(targets)
        module = _plain_rnn(rnn, weights, nonlinearity)
        start = h_0.detach().clone().requires_grad_()  # (1, N, H); a clone is never an inference tensor here
        state = start
        for begin in range(0, length, truncation):
            chunk = slice(begin, begin + truncation)
            output, state = module(inputs[:, chunk], state)  # (N, k, H), (1, N, H)
            hidden_state_loss(output, targets[:, chunk]).backward()
            if detach:
                state = state.detach()  # carry the value, cut the graph
        grads = _tied(weights, {name: _grad(p) for name, p in module.named_parameters()})
        grads["h_0"] = _grad(start)
        return grads


def _plain_rnn(rnn: torch.nn.RNN, weights: dict[str, torch.Tensor], nonlinearity: str) -> torch.nn.RNN:
    """A plain one-layer ``nn.RNN`` of ``rnn``'s configuration holding ``weights`` as its own.

    Built on the meta device, which draws nothing from the random generators, then moved; its
    parameters are fresh leaves, so the gradients are those with respect to the weights as
    ``rnn`` computes with them (parametrized, pruned, frozen ones too), and ``rnn`` itself,
    its hooks and its ``.grad`` are left alone. ``nonlinearity`` is the one of ``rnn.mode``,
    which torch's call reads (``rnn.nonlinearity`` may have been changed after ``__init__``).
    """
    weight = weights["weight_ih_l0"]
    plain = torch.nn.RNN(
        rnn.input_size, rnn.hidden_size, nonlinearity=nonlinearity, bias=rnn.bias,
        batch_first=True, device="meta", dtype=weight.dtype,
    ).to_empty(device=weight.device)  # fmt: skip
    with torch.no_grad():
        for name, parameter in plain.named_parameters():
            parameter.copy_(weights[name])
    return plain


def _tied(weights: dict[str, torch.Tensor], grads: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A tensor used under several names (tied weights) gets, under each, the sum over its uses."""
    total: dict[int, torch.Tensor] = {}
    for name, g in grads.items():
        key = id(weights[name])
        total[key] = g if key not in total else total[key] + g
    return {name: total[id(weights[name])] for name in grads}


def _grad(leaf: torch.Tensor) -> torch.Tensor:
    assert leaf.grad is not None  # every leaf reaches the loss
    return leaf.grad.detach().clone()
