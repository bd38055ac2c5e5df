r"""One Elman (tanh) RNN layer in PyTorch's row form, batched: one layer of the stack.

PyTorch's ``torch.nn.RNN`` documentation writes the layer for a batch of row vectors:

.. math:: h_t = \tanh(x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh})

with :math:`x_t` of shape (N, H_in) and :math:`h_t` of shape (N, H). It sits above
:mod:`rnndoc.layers.stack` (it runs one layer, one direction of it).
"""

from __future__ import annotations

import torch

from .._validate import check_same_device, check_same_dtype, check_tensor
from .stack import run_layers

__all__ = ["rnn_tanh_layer"]


def rnn_tanh_layer(
    input: torch.Tensor,
    h_0: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One tanh RNN layer over a batch of sequences, in the row form of PyTorch's docs.

    .. math:: h_t = \tanh(x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh})

    The input projection :math:`x_t W_{ih}^\top + b_{ih}` of the whole sequence is one
    matrix product; the loop over time carries only the recurrent product.

    Parameters
    ----------
    input : Tensor, shape (L, N, H_in)
        Time first, as ``nn.RNN`` with ``batch_first=False``.
    h_0 : Tensor, shape (N, H)
        Initial state of each sequence in the batch.
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,), optional
        Omitted for ``bias=False``.

    Returns
    -------
    output : Tensor, shape (L, N, H)
        :math:`h_t` for every step.
    h_n : Tensor, shape (N, H)
        The state after the last step.

    Raises
    ------
    TypeError
        If an argument is not a floating tensor or its dtype differs from ``input``'s.
    ValueError
        If a shape disagrees (the message names the argument, the expected and the
        actual shape), or the tensors are on different devices.

    Notes
    -----
    Equation as in PyTorch's ``torch.nn.RNN`` documentation; Elman (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import rnn_tanh_layer
    >>> output, h_n = rnn_tanh_layer(torch.ones(3, 1, 2), torch.zeros(1, 2), torch.eye(2), torch.eye(2))
    >>> output.shape, h_n.shape, round(h_n[0, 0].item(), 6)
    (torch.Size([3, 1, 2]), torch.Size([1, 2]), 0.959746)
    """
    check_tensor("input", input, (None, None, None), "(L, N, H_in)")
    if input.shape[0] < 1:
        raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
    check_tensor("weight_ih", weight_ih, (None, input.shape[2]), "(H, H_in)")
    hidden_size = weight_ih.shape[0]
    check_tensor("h_0", h_0, (input.shape[1], hidden_size), "(N, H)")
    check_tensor("weight_hh", weight_hh, (hidden_size, hidden_size), "(H, H)")
    biases = {name: b for name, b in (("bias_ih", bias_ih), ("bias_hh", bias_hh)) if b is not None}
    for name, bias in biases.items():
        check_tensor(name, bias, (hidden_size,), "(H,)")
    check_same_dtype(input=input, weight_ih=weight_ih, h_0=h_0, weight_hh=weight_hh, **biases)
    check_same_device("input", input, weight_ih=weight_ih, h_0=h_0, weight_hh=weight_hh, **biases)

    # One layer, one direction of the general stack: the input projection of the whole
    # sequence is one product, the loop carries h_(t-1) W_hh^T (rnndoc.layers.stack).
    params = {"weight_ih_l0": weight_ih, "weight_hh_l0": weight_hh}
    params |= {f"{name}_l0": b for name, b in biases.items()}
    output, h_n, _ = run_layers(
        input, h_0.unsqueeze(0), None, params, mode="RNN_TANH", num_layers=1, bidirectional=False
    )  # (L, N, H), (1, N, H)
    return output, h_n[0]  # (L, N, H), (N, H)
