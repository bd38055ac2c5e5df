"""The argument checks of the state Jacobians: one unbatched step, or a module and a sequence."""

from __future__ import annotations

import torch
from torch import nn

from .._recurrent import (
    Weights,
    as_weights,
    check_kind_and_hooks,
    check_one_layer,
    layer_weights,
    rnn_nonlinearity,
)
from .._validate import check_same_device, check_same_dtype, check_tensor

Recurrent = nn.RNN | nn.LSTM | nn.GRU


def check_step(
    gates: int,
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None,
    bias_hh: torch.Tensor | None,
    c_prev: torch.Tensor | None = None,
) -> int:
    """Check one unbatched step's arguments (shapes, one dtype, one device); return H."""
    check_tensor("weight_hh", weight_hh, (None, None), "(G*H, H)")
    size = weight_hh.shape[1]
    check_tensor("weight_hh", weight_hh, (gates * size, size), f"({gates}H, H)")
    check_tensor("h_prev", h_prev, (size,), "(H,)")
    check_tensor("x_t", x_t, (None,), "(H_in,)")
    check_tensor("weight_ih", weight_ih, (gates * size, x_t.shape[0]), f"({gates}H, H_in)")
    given = {"x_t": x_t, "h_prev": h_prev, "weight_ih": weight_ih, "weight_hh": weight_hh}
    for name, bias in (("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if bias is not None:
            given[name] = check_tensor(name, bias, (gates * size,), f"({gates}H,)")
    if gates == 4:
        given["c_prev"] = check_tensor("c_prev", c_prev, (size,), "(H,)")
    check_same_dtype(**given)
    check_same_device("x_t", x_t, **given)
    return size


def check_module_input(module: Recurrent, input: torch.Tensor, *, autograd: bool = False) -> Weights:
    """Check the module (kind, hooks, one layer...) and the sequence (shape, dtype, device); its weights.

    The weights are read as the module computes with them (parametrized, pruned, weight-normed
    too); forward hooks and an overridden ``forward`` are refused, and with ``autograd`` (the
    helper runs autograd through the module) backward hooks too.
    """
    check_kind_and_hooks("module", module, autograd=autograd)
    check_one_layer("module", module)
    if isinstance(module, nn.RNN) and rnn_nonlinearity("module", module) != "tanh":  # torch reads mode
        raise ValueError(f"module must be a tanh RNN, got mode={module.mode!r} (the ReLU RNN)")
    check_tensor("input", input, (None, module.input_size), "(T, H_in)")
    return as_weights(layer_weights("module", module, input))
