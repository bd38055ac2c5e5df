"""A module and its call arguments read into the sweeps' terms, and the results written back.

The sweeps (:mod:`rnndoc.layers.sweep`) see time-first tensors: a sequence (L, N, F), a state
(D * num_layers, N, F), the weights by PyTorch's names. The caller's layouts (time-first,
batch-first, unbatched, packed, a cell's single step) are each one ``Layout``: a pair of
transforms for a sequence and a pair for a state, each beside its inverse, applied alike to
values (input, output, h_0, h_n) and to their gradients. The weights are read as the module
computes with them (pruned, weight-normed, parametrized), through ``effective_tensor``.
Every check is in :mod:`rnndoc.layers.checks`, called here once per call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from . import checks

__all__: list[str] = []  # internal: forward and backward are the public face


# --- layouts: the caller's, to the sweeps' and back -----------------------------------------


def _same(value: torch.Tensor) -> torch.Tensor:
    return value


@dataclass(frozen=True)
class Layout:
    """The caller's layout of a sequence and of a state, to the sweeps' (L, N, F) / (S, N, F) and back."""

    sequence: Callable[[Any], torch.Tensor]  # a tensor, or (packed) a PackedSequence or its data
    sequence_back: Callable[[torch.Tensor], Any]  # a tensor, or (packed) a PackedSequence
    state: Callable[[torch.Tensor], torch.Tensor]
    state_back: Callable[[torch.Tensor], torch.Tensor]
    cell: bool = False  # a cell returns its state only


#: The caller's layouts of a plain tensor input, by name; a sequence and a state, each way.
LAYOUTS = {
    # output (L, N, F), state (S, N, F): as the sweeps
    "time_first": Layout(_same, _same, _same, _same),
    # output (N, L, F), state (S, N, F)
    "batch_first": Layout(lambda x: x.transpose(0, 1), lambda y: y.transpose(0, 1), _same, _same),
    # output (L, F), state (S, F)
    "unbatched": Layout(
        lambda x: x.unsqueeze(1), lambda y: y.squeeze(1), lambda s: s.unsqueeze(1), lambda s: s.squeeze(1)
    ),
    # input (N, F), state (N, F): one step, one state
    "cell": Layout(lambda x: x[None], lambda y: y[0], lambda s: s[None], lambda s: s[0], cell=True),
    # input (F,), state (F,)
    "unbatched_cell": Layout(
        lambda x: x[None, None], lambda y: y[0, 0], lambda s: s[None, None], lambda s: s[0, 0], cell=True
    ),
}


def packed_layout(packed: PackedSequence) -> Layout:
    """A ``PackedSequence``'s layout: padded to (L, N, F) in the caller's batch order, and packed back so."""

    def padded(value) -> torch.Tensor:  # the input, or a gradient's data, packed as the input is
        data = value.data if isinstance(value, PackedSequence) else value  # (sum len, F)
        return pad_packed_sequence(packed._replace(data=data))[0]  # (L, N, F)

    return Layout(padded, lambda output: pack_like(output, packed), _same, _same)


def pack_like(output: torch.Tensor, packed: PackedSequence) -> PackedSequence:
    """Pack time-first ``output`` (L, N, F), in the caller's batch order, as ``packed`` is packed."""
    order = packed.sorted_indices
    order = torch.arange(output.shape[1], device=output.device) if order is None else order.to(output.device)
    by_length = output[:, order]  # (L, N, F): longest sequence first
    data = torch.cat(
        [by_length[t, :size] for t, size in enumerate(packed.batch_sizes.tolist())]
    )  # (sum len, F)
    return PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)


# --- the module's weights, as its call computes with them -----------------------------------


def effective_tensor(module: nn.Module, name: str, hooks: dict | None = None) -> torch.Tensor:
    """The module's tensor ``name`` as its call computes with it (parametrized, or recomputed by a hook).

    The attribute itself is stale after ``weight_orig`` (pruning) or ``v`` (weight_norm)
    changes: a weight that a forward pre-hook recomputes on every call is recomputed so.
    """
    hooks = checks.weight_hooks(module) if hooks is None else hooks  # read once per call by read_call
    if name in hooks:
        return hooks[name](module)
    value = getattr(module, name, None)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"module has no tensor {name!r} (got {type(value).__name__}); it cannot be run")
    return value


# --- a call in the sweeps' terms --------------------------------------------------------------


@dataclass
class Call:
    """``module(input, hx)`` in the sweeps' terms (see :func:`rnndoc.layers.sweep.run_layers`)."""

    mode: str
    num_layers: int
    bidirectional: bool
    names: dict[str, str]  # the sweeps' parameter name -> the module's (cells: weight_ih_l0 -> weight_ih)
    params: dict[str, torch.Tensor]  # by the sweeps' names, as the sweeps compute with them
    sources: dict[str, torch.Tensor]  # the module's tensors the gradients are of (for tying and dtypes)
    x: torch.Tensor  # (L, N, H_in)
    h_0: torch.Tensor  # (D * num_layers, N, H_out)
    c_0: torch.Tensor | None  # (D * num_layers, N, H), LSTM only
    lengths: torch.Tensor | None  # (N,), packed input only
    layout: Layout
    dtypes: tuple[torch.dtype, torch.dtype]  # the caller's input's and state's, which the gradients take


def _mode(module: nn.Module) -> str:
    """What torch dispatches on: ``nn.RNN`` reads ``mode``, ``nn.RNNCell`` reads ``nonlinearity``."""
    if isinstance(module, nn.LSTM | nn.LSTMCell):
        return "LSTM"
    if isinstance(module, nn.GRU | nn.GRUCell):
        return "GRU"
    if isinstance(module, nn.RNN):
        return module.mode
    return {"tanh": "RNN_TANH", "relu": "RNN_RELU"}[str(module.nonlinearity)]  # an nn.RNNCell


def _names(module: nn.Module, hooks: dict) -> dict[str, str]:
    """The sweeps' name of every weight the module computes with, mapped to the module's name.

    A cell's call passes ``self.bias_ih`` and ``self.bias_hh`` whatever ``bias`` says: a bias is
    read where the module holds one (a tensor, or one a hook or parametrization computes), not
    by the flag. A layer's weights are its attributes' (``check_flat_weights`` has compared them
    with the ones it was built with).
    """
    if not isinstance(module, nn.RNNBase):  # a cell
        kinds = ["weight_ih", "weight_hh"] + [
            kind
            for kind in ("bias_ih", "bias_hh")
            if kind in hooks
            or parametrize.is_parametrized(module, kind)
            or isinstance(getattr(module, kind, None), torch.Tensor)
        ]
        return {f"{kind}_l0": kind for kind in kinds}
    return {
        name: name
        for name in checks.layer_weight_names(
            module.num_layers, module.bidirectional, module.bias, getattr(module, "proj_size", 0)
        )
    }


def read_call(module: nn.Module, input, hx) -> Call:
    """Check ``module(input, hx)``'s arguments as torch would run them, and read them into a :class:`Call`."""
    hooks = checks.check_supported_module(module)  # and the forward pre-hooks that recompute a weight
    checks.check_projection(module)  # before the weights are read: weight_hr_l0 is read iff proj_size
    if isinstance(module, nn.RNNBase):
        checks.check_flat_weights(module)  # num_layers, bias, bidirectional: the weights it was built with
    mode, names = _mode(module), _names(module, hooks)
    params = {name: effective_tensor(module, own, hooks) for name, own in names.items()}
    weight = params["weight_ih_l0"]
    checks.check_real("module's weight_ih", weight)
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    if not isinstance(module, nn.RNNBase):  # a cell (check_supported_module allows nothing else)
        checks.check_cell_weights(params, gates)  # the weights among themselves,
        checks.check_sizes(module, params, gates, state_given=hx is not None)  # then the size attributes
        return _read_cell(module, input, hx, mode, names, params)
    checks.check_weights(params, mode, module.num_layers, module.bidirectional)  # among themselves,
    checks.check_sizes(module, params, gates)  # then the attributes that size the input and the state
    form = checks.check_sequence(module, input, weight)
    layout = packed_layout(input) if form == "packed" else LAYOUTS[form]
    # (L, N, H_in); lengths (N,) in the caller's batch order, packed input only
    x, lengths = pad_packed_sequence(input) if form == "packed" else (layout.sequence(input), None)
    stacked = module.num_layers * (2 if module.bidirectional else 1)
    sizes = {"h_0": module.proj_size or module.hidden_size, "c_0": module.hidden_size}
    if mode == "LSTM":
        checks.check_pair("hx of an LSTM", hx, "(h_0, c_0)", none_inside=True)  # a None inside is named below
        given = dict(zip(("h_0", "c_0"), (None, None) if hx is None else hx, strict=True))
        labels = {"h_0": "hx[0] (h_0)", "c_0": "hx[1] (c_0)"}
    else:
        given, labels = {"h_0": hx}, {"h_0": "hx (h_0)"}
    state, passed = {}, {}
    for key, value in given.items():
        if hx is None:
            state[key] = x.new_zeros(stacked, x.shape[1], sizes[key])  # (D * num_layers, N, size)
            continue
        shape = (stacked, sizes[key]) if form == "unbatched" else (stacked, x.shape[1], sizes[key])
        features = "H_out" if key == "h_0" else "H"  # H_out: proj_size with a projection, else H
        axes = f"(D * num_layers, {features})" if form == "unbatched" else f"(D * num_layers, N, {features})"
        checks.check_layer_state(module, labels[key], value, shape, axes, weight)
        state[key], passed[labels[key]] = layout.state(value), value  # (D * num_layers, N, size)
    checks.check_same_device("input", x, **params, **passed)  # the one device check of the call
    call = Call(mode, module.num_layers, module.bidirectional, names, params, dict(params), x, state["h_0"],
                state.get("c_0"), lengths, layout, (x.dtype, state["h_0"].dtype))  # fmt: skip
    return _as_autocast_runs_it(call, module, form)


def _read_cell(module, input, hx, mode, names, params) -> Call:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor, got {type(input).__name__}")
    checks.check_real("input", input)
    checks.check_same_device("input", input, **params)
    batch = () if input.dim() == 1 else input.shape[:1]
    c = None
    if mode == "LSTM":
        checks.check_pair("hx", hx, "(h, c)")
        hx, c = (None, None) if hx is None else hx
    zeros = input.new_zeros(*batch, module.hidden_size) if input.dim() in (1, 2) else None  # (N, H)
    w_ih, w_hh, b_ih, b_hh = (
        params.get(f"{kind}_l0") for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    )
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    x, h, unbatched, _ = checks.check_cell_arguments(
        input, zeros if hx is None else hx, w_ih, w_hh, b_ih, b_hh, gates
    )
    layout = LAYOUTS["unbatched_cell" if unbatched else "cell"]
    if mode == "LSTM":
        shape, labels = ((h.shape[1],), "(H,)") if unbatched else (tuple(h.shape), "(N, H)")
        c = layout.state(
            checks.check_cell_state("c", zeros if c is None else c, shape, labels, x, w_ih)
        )  # (1, N, H)
    return Call(
        mode, 1, False, names, params, dict(params), x[None], h[None], c, None, layout, (x.dtype, h.dtype)
    )


def _as_autocast_runs_it(call: Call, module: nn.Module, form: str) -> Call:
    """Under CPU autocast, torch's LSTM runs oneDNN's fused kernel in the autocast dtype: do the same.

    torch takes that kernel for a non-empty ``nn.LSTM`` input on the CPU without projection or
    packing, in float32, in bfloat16 where oneDNN supports it (an input already in autocast's
    dtype), or in float16 where oneDNN supports it and autograd records nothing
    (``use_mkldnn`` in ATen's ``RNN.cpp``); everywhere else its steps are ordinary operations,
    which autocast casts one by one, as it casts ours.
    """
    float16 = getattr(torch.ops.mkldnn, "_is_mkldnn_fp16_supported", None)
    bfloat16 = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    fused_dtype = (
        call.x.dtype == torch.float32
        or (call.x.dtype == torch.bfloat16 and bfloat16 is not None and bool(bfloat16()))
        or (
            call.x.dtype == torch.float16
            and not torch.is_grad_enabled()
            and float16 is not None
            and bool(float16())
        )
    )
    fused = (
        call.mode == "LSTM"
        and form != "packed"
        and not getattr(module, "proj_size", 0)
        and call.x.device.type == "cpu"
        and fused_dtype
        and call.x.numel() > 0  # torch takes its plain path for an empty input
        and torch.is_autocast_enabled("cpu")
        and torch.backends.mkldnn.is_available()
        and torch.backends.mkldnn.enabled
    )
    if fused:
        dtype = torch.get_autocast_dtype("cpu")
        call.params = {name: p.to(dtype) for name, p in call.params.items()}
        call.x, call.h_0 = call.x.to(dtype), call.h_0.to(dtype)
        call.c_0 = None if call.c_0 is None else call.c_0.to(dtype)
    return call


# --- results and gradients, written back in the caller's layout -----------------------------


def _state_back(call: Call, h: torch.Tensor, c: torch.Tensor | None):
    """A state the sweeps' way, (S, N, F) each, in the caller's: h, or (h, c) for an LSTM."""
    h = call.layout.state_back(h)
    return h if c is None else (h, call.layout.state_back(c))


def write_output(call: Call, output: torch.Tensor, h_n: torch.Tensor, c_n: torch.Tensor | None):
    """What the module returns, from the sweeps' (L, N, D*H_out), (lD, N, H_out), (lD, N, H)."""
    state = _state_back(call, h_n, c_n)
    return state if call.layout.cell else (call.layout.sequence_back(output), state)


def write_gates(call: Call, found: list[dict[str, torch.Tensor]]) -> dict:
    """Gates by layer and direction (each (L, N, H), from :func:`~rnndoc.layers.sweep.gate_values`) in the caller's layout.

    Named as the module names its weights: ``f_l1_reverse`` for ``weight_hh_l1_reverse``'s
    layer and direction, ``f`` for a cell's; each laid out like one direction's output.
    """
    directions = 2 if call.bidirectional else 1
    out = {}
    for index, values in enumerate(found):
        layer, direction = divmod(index, directions)
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        for name, value in values.items():
            key = name if call.layout.cell else name + suffix
            out[key] = call.layout.sequence_back(value)
    return out


def read_gradients(call: Call, output: torch.Tensor, returned, grad_output, grad_hx):
    """The caller's gradients, checked against what forward returned, in the sweeps' layout.

    Returns the gradient at the output (L, N, D*H_out), at h_n (lD, N, H_out) and at c_n (or None).
    """
    if call.layout.cell:  # the cell's return is its final state
        d_output = torch.zeros_like(output)  # (1, N, H): the state is the only output
        d_state = checks.gradient_like("grad_output", grad_output, returned)
    else:
        d_output = call.layout.sequence(checks.gradient_like("grad_output", grad_output, returned[0]))
        d_state = checks.gradient_like("grad_hx", grad_hx, returned[1])
    d_h_n, d_c_n = d_state if call.mode == "LSTM" else (d_state, None)
    return d_output, call.layout.state(d_h_n), None if d_c_n is None else call.layout.state(d_c_n)


def write_gradients(call: Call, d_input, d_h_0, d_c_0, grads: dict) -> dict:
    """The gradients laid out as the caller's input, state and module names are, in their dtypes.

    A tensor used under several names (tied weights) gets, under each, the sum over its uses.
    """
    input_dtype, state_dtype = call.dtypes
    d_input = call.layout.sequence_back(d_input.to(input_dtype))
    d_input = d_input.data if isinstance(d_input, PackedSequence) else d_input  # (sum len, H_in) when packed
    d_hx = _state_back(call, d_h_0.to(state_dtype), None if d_c_0 is None else d_c_0.to(state_dtype))
    total: dict[int, torch.Tensor] = {}
    for name, g in grads.items():
        key = id(call.sources[name])
        total[key] = g if key not in total else total[key] + g
    return {"input": d_input, "hx": d_hx} | {
        call.names[name]: total[id(call.sources[name])].to(call.sources[name].dtype) for name in grads
    }
