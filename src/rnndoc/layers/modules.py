"""Reading a PyTorch recurrent module and its call arguments into the stack's terms, and back.

``read_call`` checks what ``module(input, hx)`` is given, as torch reads it (the module's
``mode``, a cell's ``nonlinearity``, its weights as the module computes with them), and
returns time-first tensors; ``caller_output`` and ``caller_gradients`` lay results
out as the caller's input was laid out. Every refusal names the argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from .._validate import check_same_device, check_same_dtype, check_tensor
from .effective import check_runs_as_torch_class, effective_tensor
from .packed import check_packed, pack_like
from .shared import check_cell_arguments, check_real

__all__: list[str] = []  # dispatch's internals: forward and backward are the public face

_LAYERS = (nn.RNN, nn.LSTM, nn.GRU)
_CELLS = (nn.RNNCell, nn.LSTMCell, nn.GRUCell)
_RNN_MODES = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}


@dataclass
class Call:
    """A module call in the stack's terms (see :func:`rnndoc.layers.stack.run_layers`)."""

    mode: str
    num_layers: int
    bidirectional: bool
    names: dict[str, str]  # the stack's parameter name -> the module's (cells: weight_ih_l0 -> weight_ih)
    params: dict[str, torch.Tensor]  # by the stack's names
    x: torch.Tensor  # (L, N, H_in)
    h_0: torch.Tensor  # (D * num_layers, N, H_out)
    c_0: torch.Tensor | None  # (D * num_layers, N, H), LSTM only
    lengths: torch.Tensor | None  # (N,), packed input only
    form: str  # "cell", "unbatched", "packed", "batch_first" or "time_first"
    input: object  # the caller's input, for the packed layout


def _mode(module: nn.Module) -> str:
    """What torch dispatches on: ``nn.RNN`` reads ``mode``, ``nn.RNNCell`` reads ``nonlinearity``."""
    if isinstance(module, nn.LSTM | nn.LSTMCell):
        return "LSTM"
    if isinstance(module, nn.GRU | nn.GRUCell):
        return "GRU"
    if isinstance(module, nn.RNN):
        if module.mode not in ("RNN_TANH", "RNN_RELU"):
            raise ValueError(f"module.mode must be 'RNN_TANH' or 'RNN_RELU', got {module.mode!r}")
        return module.mode
    if getattr(module, "nonlinearity", None) not in _RNN_MODES:
        raise ValueError(f"module.nonlinearity must be 'tanh' or 'relu', got {module.nonlinearity!r}")
    return _RNN_MODES[module.nonlinearity]


def _names(module: nn.Module) -> dict[str, str]:
    """The stack's name of every weight the module computes with, mapped to the module's name."""
    kinds = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if module.bias else [])
    if isinstance(module, _CELLS):
        return {f"{kind}_l0": kind for kind in kinds}
    kinds += ["weight_hr"] if getattr(module, "proj_size", 0) else []
    suffixes = ["", "_reverse"] if module.bidirectional else [""]
    names = [f"{kind}_l{k}{s}" for k in range(module.num_layers) for s in suffixes for kind in kinds]
    return {name: name for name in names}


def _sequence(module: nn.Module, input, weight: torch.Tensor):
    """The layer's input as (L, N, H_in), the lengths (packed) and the caller's form."""
    if isinstance(input, PackedSequence):
        check_packed(input, module.input_size)
        check_same_dtype(weight_ih_l0=weight, input=input.data)
        x, lengths = pad_packed_sequence(input)  # (L, N, H_in), lengths (N,), caller's batch order
        return x, lengths, "packed"
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor or PackedSequence, got {type(input).__name__}")
    layout = "(N, L, H_in)" if module.batch_first else "(L, N, H_in)"
    if input.dim() not in (2, 3):
        raise ValueError(
            f"input must have shape {layout}, or (L, H_in) unbatched, with H_in = {module.input_size}; "
            f"got {tuple(input.shape)}"
        )
    form = "unbatched" if input.dim() == 2 else ("batch_first" if module.batch_first else "time_first")
    check_tensor("input", input, (None,) * (input.dim() - 1) + (module.input_size,),
                 "(L, H_in)" if form == "unbatched" else layout)  # fmt: skip
    check_same_dtype(weight_ih_l0=weight, input=input)
    if input.shape[1 if form == "batch_first" else 0] < 1:
        raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
    x = input.transpose(0, 1) if form == "batch_first" else input  # (L, N, H_in) or (L, H_in)
    return (x.unsqueeze(1) if form == "unbatched" else x), None, form  # (L, N, H_in)


def _state(module, name, value, size, x, form, weight, required):
    """h_0 or c_0 checked in the caller's layout, returned as (D * num_layers, N, size)."""
    stacked = module.num_layers * (2 if module.bidirectional else 1)
    shape = (stacked, size) if form == "unbatched" else (stacked, x.shape[1], size)
    labels = "(D * num_layers, H)" if form == "unbatched" else "(D * num_layers, N, H)"
    if value is None and not required:
        return x.new_zeros(stacked, x.shape[1], size)  # (D * num_layers, N, size)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if tuple(value.shape) != shape:
        hint = ""
        if (
            name.endswith("(h_0)")
            and getattr(module, "proj_size", 0)
            and value.shape[-1] == module.hidden_size
        ):
            hint = f" (with proj_size={module.proj_size}, h_0 has proj_size features, not hidden_size)"
        if form == "unbatched" and value.dim() != 2:
            hint += " (unbatched input takes an unbatched state)"
        raise ValueError(f"{name} must have shape {labels} = {shape}, got {tuple(value.shape)}{hint}")
    check_tensor(name, value, shape, labels)
    check_same_dtype(weight_ih_l0=weight, **{name: value})
    check_same_device("input", x, **{name: value})
    return value.unsqueeze(1) if form == "unbatched" else value  # (D * num_layers, N, size)


def _read_cell(module, input, hx, mode, params) -> Call:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor, got {type(input).__name__}")
    check_real("input", input)
    check_same_device("input", input, **params)
    batch = () if input.dim() == 1 else input.shape[:1]
    c = None
    if mode == "LSTM":
        if hx is not None and not (isinstance(hx, tuple | list) and len(hx) == 2 and None not in hx):
            raise TypeError(f"hx must be a pair (h, c) of tensors, got {type(hx).__name__}")
        hx, c = (None, None) if hx is None else hx
    zeros = input.new_zeros(*batch, module.hidden_size) if input.dim() in (1, 2) else None  # (N, H)
    weights = [params.get(f"{kind}_l0") for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    x, h, unbatched, _ = check_cell_arguments(input, zeros if hx is None else hx, *weights, gates)
    if mode == "LSTM":
        shape, labels = ((h.shape[1],), "(H,)") if unbatched else (tuple(h.shape), "(N, H)")
        c = check_tensor("c", zeros if c is None else c, shape, labels)
        check_same_dtype(input=x, c=c)
        check_same_device("input", x, c=c)
        c = c.reshape(1, *h.shape)  # (1, N, H)
    return Call(mode, 1, False, _names(module), params, x[None], h[None], c, None,
                "unbatched_cell" if unbatched else "cell", input)  # fmt: skip


def read_call(module: nn.Module, input, hx) -> Call:
    """Check ``module(input, hx)``'s arguments as torch would run them; see :func:`rnndoc.layers.forward`."""
    if not isinstance(module, _LAYERS + _CELLS):
        raise TypeError(
            "module must be a torch.nn.RNN, LSTM, GRU, RNNCell, LSTMCell or GRUCell, "
            f"got {type(module).__name__}"
        )
    check_runs_as_torch_class(module, _LAYERS + _CELLS)
    mode, names = _mode(module), _names(module)
    params = {name: effective_tensor(module, own) for name, own in names.items()}
    check_real("module's weight_ih", params["weight_ih_l0"])
    if isinstance(module, _CELLS):
        return _read_cell(module, input, hx, mode, params)
    if module.training and module.dropout > 0 and module.num_layers > 1:
        raise ValueError(
            f"module applies dropout={module.dropout} between layers in training mode, with random masks "
            "this function cannot reproduce: call module.eval() (or set dropout=0) first"
        )
    weight = params["weight_ih_l0"]
    x, lengths, form = _sequence(module, input, weight)  # (L, N, H_in)
    check_same_device("input", x, **params)
    h_out = getattr(module, "proj_size", 0) or module.hidden_size
    if mode == "LSTM":
        if hx is not None and not (isinstance(hx, tuple | list) and len(hx) == 2):
            raise TypeError(f"hx of an LSTM must be a pair (h_0, c_0), got {type(hx).__name__}")
        h, c = (None, None) if hx is None else hx
        h_0 = _state(module, "hx[0] (h_0)", h, h_out, x, form, weight, hx is not None)
        c_0 = _state(module, "hx[1] (c_0)", c, module.hidden_size, x, form, weight, hx is not None)
    else:
        h_0, c_0 = _state(module, "hx (h_0)", hx, h_out, x, form, weight, False), None
    call = Call(
        mode, module.num_layers, module.bidirectional, names, params, x, h_0, c_0, lengths, form, input
    )
    return _as_autocast_runs_it(call, module)


def _as_autocast_runs_it(call: Call, module: nn.Module) -> Call:
    """Under CPU autocast, torch's LSTM runs oneDNN's fused kernel in the autocast dtype: do the same.

    torch takes that kernel for a float32 ``nn.LSTM`` on the CPU without projection or packing
    (``use_mkldnn`` in ATen's ``RNN.cpp``); everywhere else its steps are ordinary operations,
    which autocast casts one by one, as it casts ours.
    """
    fused = (
        call.mode == "LSTM"
        and call.form not in ("packed", "cell", "unbatched_cell")
        and not getattr(module, "proj_size", 0)
        and call.x.device.type == "cpu"
        and call.x.dtype == torch.float32
        and torch.is_autocast_enabled("cpu")
        and torch.backends.mkldnn.is_available()
        and torch.backends.mkldnn.enabled
    )
    if fused:
        dtype = torch.get_autocast_dtype("cpu")
        call.params = {name: p.to(dtype) for name, p in call.params.items()}
        call.x, call.h_0, call.c_0 = call.x.to(dtype), call.h_0.to(dtype), call.c_0.to(dtype)
    return call


def caller_output(call: Call, output: torch.Tensor, h_n: torch.Tensor, c_n: torch.Tensor | None):
    """What the module returns, from the stack's (L, N, D*H_out), (lD, N, H_out), (lD, N, H)."""
    if call.form in ("cell", "unbatched_cell"):
        h, c = h_n[0], None if c_n is None else c_n[0]  # (N, H)
        if call.form == "unbatched_cell":
            h, c = h[0], None if c is None else c[0]  # (H,)
        return (h, c) if call.mode == "LSTM" else h
    if call.form == "packed":
        output = pack_like(output, call.input)
    elif call.form == "unbatched":
        output, h_n = output.squeeze(1), h_n.squeeze(1)  # (L, D*H_out), (lD, H_out)
        c_n = None if c_n is None else c_n.squeeze(1)  # (lD, H)
    elif call.form == "batch_first":
        output = output.transpose(0, 1)  # (N, L, D*H_out)
    return (output, (h_n, c_n)) if call.mode == "LSTM" else (output, h_n)


def caller_gradients(call: Call, d_input, d_h_0, d_c_0, grads: dict) -> dict:
    """The gradients laid out as the caller's input, state and module names are."""
    if call.form == "packed":
        d_input = pack_like(d_input, call.input).data  # (sum len, H_in)
    elif call.form in ("unbatched", "unbatched_cell"):
        d_input, d_h_0 = d_input.squeeze(1), d_h_0.squeeze(1)  # (L, H_in), (lD, H_out)
        d_c_0 = None if d_c_0 is None else d_c_0.squeeze(1)
    elif call.form == "batch_first":
        d_input = d_input.transpose(0, 1)  # (N, L, H_in)
    if call.form in ("cell", "unbatched_cell"):
        d_input, d_h_0 = d_input[0], d_h_0[0]  # (N, H_in), (N, H)
        d_c_0 = None if d_c_0 is None else d_c_0[0]
    d_hx = d_h_0 if call.mode != "LSTM" else (d_h_0, d_c_0)
    return {"input": d_input, "hx": d_hx} | {call.names[name]: g for name, g in _tied(call, grads).items()}


def _tied(call: Call, grads: dict) -> dict:
    """A tensor used under several names (tied weights) gets, under each, the sum over its uses."""
    total: dict[int, torch.Tensor] = {}
    for name, g in grads.items():
        key = id(call.params[name])
        total[key] = g if key not in total else total[key] + g
    return {name: total[id(call.params[name])] for name in grads}
