"""Every argument check of :mod:`rnndoc.layers`, called from its front doors only.

The front doors are :func:`rnndoc.layers.forward` and :func:`rnndoc.layers.backward`
(through :mod:`rnndoc.layers.boundary`), the cells and single steps of
:mod:`rnndoc.layers.cells`, and :func:`rnndoc.layers.rnn_tanh_layer`. One rule, the
package's (``rnndoc._validate``): a value of the wrong type raises ``TypeError``, one of
the right type but the wrong shape, range or choice raises ``ValueError``, and the message
names the argument, the expected shape with its axis names and the actual one. Past a front
door nothing is checked again: the sweeps and the steps trust their callers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn.modules import module as _module_hooks
from torch.nn.modules.dropout import _DropoutNd
from torch.nn.utils import parametrizations, prune
from torch.nn.utils.rnn import PackedSequence
from torch.nn.utils.spectral_norm import SpectralNorm
from torch.nn.utils.weight_norm import WeightNorm

from .._validate import (
    check_choice,
    check_mapping,
    check_same_device,
    check_same_dtype,
    check_tensor,
)

__all__: list[str] = []  # internal: the front doors call these

LAYERS = (nn.RNN, nn.LSTM, nn.GRU)
CELLS = (nn.RNNCell, nn.LSTMCell, nn.GRUCell)
MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")
_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


# --- tensors against axis labels ------------------------------------------------------------


def check_shapes(**named: tuple[object, str]) -> dict[str, int]:
    """Check tensors against axis labels that must agree across them; return the axis sizes.

    ``check_shapes(x_part=(x_part, "N,4H"), h=(h, "N,H"))`` requires two floating 2-D
    tensors whose first axes agree and whose second sizes are 4H and H for one H. Labels that
    end in ``?`` are optional (``"H_out,H?"``: a weight that may be None); any other None is a
    ``TypeError``. One device (else ``ValueError``) and one dtype (else ``TypeError``), unless
    autocast mixes dtypes.
    """
    sizes = _check_axes(named)
    tensors = {name: value for name, (value, _) in named.items() if isinstance(value, torch.Tensor)}
    (first, reference), *_ = tensors.items()
    check_same_device(first, reference, **tensors)
    _check_dtypes(tensors)
    return sizes


def _check_axes(named: dict[str, tuple[object, str]]) -> dict[str, int]:
    """:func:`check_shapes` without the device and dtype: each tensor's axes against the labels."""
    sizes: dict[str, int] = {}
    for name, (value, given) in named.items():
        if value is None and given.endswith("?"):
            continue
        labels = given.removesuffix("?")
        axes = _axes(labels)
        tensor = check_tensor(name, value, (None,) * len(axes), f"({labels.replace(',', ', ')})")
        for (factor, symbol), size in zip(axes, tensor.shape, strict=True):
            expected = sizes.setdefault(symbol, size // factor)
            if size != factor * expected:
                known = {symbol: sizes[symbol] for _, symbol in axes if symbol in sizes}
                raise ValueError(
                    f"{name} must have shape ({labels.replace(',', ', ')}) with {known}, got {tuple(tensor.shape)}"
                )
    return sizes


def check_activation_dtypes(
    weight_name: str, weight: torch.Tensor, **activations: torch.Tensor | None
) -> None:
    """The input and state tensors in the weights' dtype, or (under autocast on their device) in autocast's.

    torch's call accepts an activation in the autocast dtype under autocast (its products cast
    every operand to it); outside autocast, one dtype. The message blames the activation.
    """
    for name, value in activations.items():
        if value is None or value.dtype == weight.dtype:
            continue
        device = value.device.type
        autocast = torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)
        cast = torch.get_autocast_dtype(device) if autocast else None
        if value.dtype == cast:
            continue
        also = f" or autocast's ({cast})" if autocast else ""
        raise TypeError(
            f"{name} must have the dtype of {weight_name} ({weight.dtype}){also}, got {value.dtype}"
        )


def _check_dtypes(tensors: dict[str, torch.Tensor]) -> None:
    """One dtype, unless autocast (on the first tensor's device) mixes them."""
    device = next(iter(tensors.values())).device.type
    if not (torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)):
        check_same_dtype(**tensors)


@functools.cache
def _axes(labels: str) -> tuple[tuple[int, str], ...]:
    """``"N,4H"`` -> ((1, "N"), (4, "H")): each axis's multiple of its symbol."""
    pairs = [re.fullmatch(r"(\d*)(\w+)", axis.strip()) for axis in labels.split(",")]
    return tuple((int(pair[1] or 1), pair[2]) for pair in pairs if pair is not None)


def check_dense(name: str, value: object) -> None:
    """Refuse a sparse (or other non-strided) tensor: the products are dense ones (TypeError)."""
    if isinstance(value, torch.Tensor) and value.layout != torch.strided:
        raise TypeError(f"{name} must be a dense tensor (layout torch.strided), got layout {value.layout}")


def check_real(name: str, value: torch.Tensor) -> None:
    """Refuse a complex tensor: the equations and gradients are written for real tensors."""
    if value.is_complex():
        raise TypeError(
            f"{name} is {value.dtype}: complex recurrent modules are not supported by rnndoc.layers "
            "(its equations and gradients are written for real tensors)"
        )


# --- single steps and cells (rnndoc.layers.cells) -------------------------------------------


def check_lstm_shapes(**named) -> None:
    """Shapes agree (:func:`check_shapes`) and, without a projection, H_out = H."""
    sizes = check_shapes(**named)
    if named["weight_hr"][0] is None and sizes.get("H_out", sizes["H"]) != sizes["H"]:
        raise ValueError(f"h has {sizes['H_out']} features but c has {sizes['H']}: give weight_hr (P, H)")


def check_lstm_cell_projection(weight_hr: object, weight_ih: object, weight_hh: object) -> int:
    """An LSTM cell's ``weight_hr`` (P, H), P from weight_hh's columns, H from weight_ih's rows: P."""
    w_hr = check_tensor("weight_hr", weight_hr, (None, None), "(P, H)")
    w_ih = check_tensor("weight_ih", weight_ih, (None, None), "(4H, H_in)")
    w_hh = check_tensor("weight_hh", weight_hh, (None, None), "(4H, P)")
    expected = (w_hh.shape[1], w_ih.shape[0] // 4)
    if tuple(w_hr.shape) != expected:
        raise ValueError(
            f"weight_hr must have shape (P, H) = {expected} (P: weight_hh's columns, H: a quarter of "
            f"weight_ih's rows), got {tuple(w_hr.shape)}"
        )
    return w_hr.shape[0]


def check_gru_bias_hh(bias_hh: object) -> None:
    """A GRU's ``bias_hh`` (3H,), or None."""
    if bias_hh is not None:
        b_hh = check_tensor("bias_hh", bias_hh, (None,), "(3H,)")
        if b_hh.shape[0] % 3:
            raise ValueError(f"bias_hh must have shape (3H,), got {tuple(b_hh.shape)}")


def saved_labels(saved: object, names: tuple[str, ...], step: str) -> dict:
    """``saved`` is the tuple ``step`` returned: ``saved[k] (name)`` -> (tensor, "N,H") for :func:`check_shapes`."""
    expected = f"the tuple ({', '.join(names)}) {step} returned"
    if not isinstance(saved, tuple | list):
        raise TypeError(f"saved must be {expected}, got {type(saved).__name__}")
    if len(saved) != len(names):
        raise ValueError(f"saved must be {expected}, got {len(saved)} entries")
    return {
        f"saved[{k}] ({name})": (value, "N,H")
        for k, (name, value) in enumerate(zip(names, saved, strict=True))
    }


def as_batch(name: str, value: object, size: int, unbatched: bool, what: str) -> torch.Tensor:
    """A cell argument in the caller's layout ((N, size), or (size,) unbatched), returned as (N, size)."""
    check_dense(name, value)
    if unbatched:
        return check_tensor(name, value, (size,), f"({what},) for unbatched input").unsqueeze(0)  # (1, size)
    return check_tensor(name, value, (None, size), f"(N, {what})")  # (N, size)


def check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates: int, out_size=None):
    """Check one cell step's arguments; return ``x`` (N, H_in), ``h`` (N, H_out), unbatched, H."""
    check_tensor("weight_ih", weight_ih, (None, None), "(G*H, H_in)")
    rows, input_size = weight_ih.shape
    if rows % gates:
        raise ValueError(f"weight_ih must have a multiple of {gates} rows (the gate blocks), got {rows}")
    hidden_size = rows // gates
    h_size = hidden_size if out_size is None else out_size
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor, got {type(input).__name__}")
    if input.dim() not in (1, 2):
        shape = tuple(input.shape)
        raise ValueError(f"input must have shape (N, H_in) or (H_in,) with H_in = {input_size}, got {shape}")
    unbatched = input.dim() == 1
    x = as_batch("input", input, input_size, unbatched, "H_in")  # (N, H_in)
    h = as_batch("hx", hx, h_size, unbatched, "H_out")  # (N, H_out)
    if h.shape[0] != x.shape[0]:
        raise ValueError(f"hx must have shape (N, H_out) = ({x.shape[0]}, {h_size}), got {tuple(hx.shape)}")
    check_tensor("weight_hh", weight_hh, (rows, h_size), "(G*H, H_out)")
    tensors = {"weight_ih": weight_ih, "weight_hh": weight_hh}
    for name, bias in (("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if bias is not None:
            tensors[name] = check_tensor(name, bias, (rows,), "(G*H,)")
    check_same_dtype(**tensors)  # the weights among themselves, then the activations against them
    check_activation_dtypes("weight_ih", weight_ih, input=x, hx=h)
    check_same_device("input", x, hx=h, **tensors)
    return x, h, unbatched, hidden_size


def check_projection_input(x: object, weight_ih: object, bias_ih, bias_hh, mode: object) -> None:
    """:func:`rnndoc.layers.input_projection`'s arguments: x (..., H_in) against weight_ih (G*H, H_in)."""
    mode = check_choice("mode", mode, MODES)
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise TypeError(f"x must be a torch.Tensor of shape (..., H_in), got {type(x).__name__}")
    h_in = x.shape[-1]
    if isinstance(weight_ih, torch.Tensor) and weight_ih.dim() == 2 and weight_ih.shape[1] != h_in:
        raise ValueError(
            f"x must have shape (..., H_in) with H_in = {weight_ih.shape[1]} (weight_ih's), got {tuple(x.shape)}"
        )
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)  # the gate blocks of weight_ih
    check_shapes(
        x=(x.reshape(-1, h_in) if x.numel() else x.new_zeros(0, h_in), "M,H_in"),
        weight_ih=(weight_ih, f"{gates}H,H_in"),
        bias_ih=(bias_ih, f"{gates}H?"),
        bias_hh=(bias_hh, f"{gates}H?"),
    )


def check_tanh_layer(input, h_0, weight_ih, weight_hh, bias_ih, bias_hh) -> None:
    """:func:`rnndoc.layers.rnn_tanh_layer`'s arguments."""
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


# --- modules and their call arguments (rnndoc.layers.boundary) ------------------------------


def weight_hooks(module: nn.Module) -> dict[str, Callable[[nn.Module], torch.Tensor]]:
    """The forward pre-hooks that recompute a weight on every call, by the weight's name: the ones
    the layers follow (pruning, weight_norm, spectral_norm in eval mode, where it does no power
    iteration) instead of refusing."""
    hooks: dict[str, Callable[[nn.Module], torch.Tensor]] = {}
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, prune.BasePruningMethod):
            hooks[hook._tensor_name] = hook.apply_mask  # weight = weight_orig * weight_mask
        elif isinstance(hook, WeightNorm):
            hooks[hook.name] = hook.compute_weight  # weight = g * v / |v|
        elif isinstance(hook, SpectralNorm) and not module.training:
            hooks[hook.name] = functools.partial(hook.compute_weight, do_power_iteration=False)
    return hooks


def check_runs_as_torch_class(
    module: nn.Module, kinds: tuple[type[nn.Module], ...] = LAYERS + CELLS
) -> dict[str, Callable[[nn.Module], torch.Tensor]]:
    """Refuse what ``module(input)`` would run besides its class's equations: an own forward, hooks.

    Returns the forward pre-hooks it allows, :func:`weight_hooks`, which recompute a weight.
    """
    base = next(kind for kind in kinds if isinstance(module, kind))
    if type(module).forward is not base.forward:
        raise TypeError(
            f"module is a {type(module).__name__}, which overrides {base.__name__}.forward: rnndoc.layers "
            f"computes {base.__name__}'s equations only"
        )
    hooks = weight_hooks(module)
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and module.training:  # weight_hooks follows it in eval mode
            raise TypeError(
                f"module has a spectral_norm hook on {hook.name} (torch.nn.utils.spectral_norm) and is in "
                "training mode, where each call runs a power iteration that updates its vectors u and v "
                "before computing the weight: call module.eval() first"
            )
    pre_hooks = len(module._forward_pre_hooks) > len(hooks)
    global_hooks = _module_hooks._global_forward_hooks or _module_hooks._global_forward_pre_hooks
    if pre_hooks or module._forward_hooks or global_hooks:
        raise TypeError(
            "module has forward hooks (or global module hooks are registered), which module(input) runs "
            "and rnndoc.layers cannot: remove them, or apply them to the result yourself"
        )
    return hooks


def check_supported_module(module: object) -> dict[str, Callable[[nn.Module], torch.Tensor]]:
    """A torch recurrent module whose call runs only its class's equations, in a mode they cover.

    Returns the forward pre-hooks that recompute a weight (:func:`weight_hooks`), read once.
    """
    if not isinstance(module, LAYERS + CELLS):
        raise TypeError(
            "module must be a torch.nn.RNN, LSTM, GRU, RNNCell, LSTMCell or GRUCell, "
            f"got {type(module).__name__}{_compiled_hint(module)}"
        )
    hooks = check_runs_as_torch_class(module)
    check_parametrizations(module)
    if isinstance(module, nn.RNN) and module.mode not in ("RNN_TANH", "RNN_RELU"):
        raise ValueError(f"module.mode must be 'RNN_TANH' or 'RNN_RELU', got {module.mode!r}")
    if isinstance(module, nn.RNNCell) and module.nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"module.nonlinearity must be 'tanh' or 'relu', got {module.nonlinearity!r}")
    if isinstance(module, LAYERS) and module.training and module.dropout > 0 and module.num_layers > 1:
        raise ValueError(
            f"module applies dropout={module.dropout} between layers in training mode, with random masks "
            "this function cannot reproduce: call module.eval() (or set dropout=0) first"
        )
    return hooks


def _compiled_hint(module: object) -> str:
    """For a ``torch.compile``'d module (an ``OptimizedModule``): where the module it wraps is."""
    inner = getattr(module, "_orig_mod", None) if isinstance(module, nn.Module) else None
    if isinstance(inner, nn.Module):
        return f" (torch.compile's wrapper; the {type(inner).__name__} it compiled is module._orig_mod: pass that)"
    return ""


def check_sizes(
    module: nn.Module, params: dict[str, torch.Tensor], gates: int, state_given: bool = False
) -> None:
    """``hidden_size``, ``proj_size`` and ``input_size`` against the weights, which agree among
    themselves (:func:`check_weights`, :func:`check_cell_weights`): attributes changed after construction.

    torch's call (and the zeros of a default state) take the sizes from the attributes, the
    products from the weights: a changed attribute fails there, blamed on a state never passed.
    A cell reads no ``input_size``, and ``hidden_size`` only for the zeros of a state not given
    (``state_given`` False): the cell is checked so, and runs where torch's call does.
    """
    cell = not isinstance(module, nn.RNNBase)
    weight_ih, weight_hh = params["weight_ih_l0"], params["weight_hh_l0"]
    weight_hr = params.get("weight_hr_l0")
    name = "weight_hh_l0" if isinstance(module, nn.RNNBase) else "weight_hh"
    hidden_size, out_size = weight_hh.shape[0] // gates, weight_hh.shape[1]
    if not cell and module.input_size != weight_ih.shape[1]:
        raise ValueError(
            f"module.input_size is {module.input_size}, but its weights read {weight_ih.shape[1]} input "
            f"features ({name.replace('hh', 'ih')} has shape {tuple(weight_ih.shape)}): was input_size "
            "changed after construction? (torch's call fails too)"
        )
    if cell and state_given:
        return
    if module.hidden_size != hidden_size:
        raise ValueError(
            f"module.hidden_size is {module.hidden_size}, but its weights have hidden size {hidden_size} "
            f"({name} has shape {tuple(weight_hh.shape)}): was hidden_size changed after construction? "
            "(torch's call fails too)"
        )
    proj_size = getattr(module, "proj_size", 0)
    if proj_size and weight_hr is not None and weight_hr.shape[0] != proj_size:
        raise ValueError(
            f"module.proj_size is {proj_size}, but weight_hr_l0 has shape {tuple(weight_hr.shape)}: "
            "was proj_size changed after construction? (torch's call fails too)"
        )
    if (proj_size or module.hidden_size) != out_size:
        raise ValueError(
            f"module.proj_size is {proj_size}, but {name} has shape {tuple(weight_hh.shape)} (its state has "
            f"{out_size} features): was proj_size changed after construction? (torch's call fails too)"
        )


def check_cell_weights(params: dict[str, torch.Tensor], gates: int) -> None:
    """A cell's weights against each other (``weight_ih`` (G*H, H_in), ``weight_hh`` (G*H, H), biases (G*H,))."""
    check_shapes(
        weight_ih=(params["weight_ih_l0"], f"{gates}H,H_in"),
        weight_hh=(params["weight_hh_l0"], f"{gates}H,H"),
        bias_ih=(params.get("bias_ih_l0"), f"{gates}H?"),
        bias_hh=(params.get("bias_hh_l0"), f"{gates}H?"),
    )


def check_projection(module: nn.Module) -> None:
    """A ``proj_size`` that the module's weights have (``weight_hr_l0`` is there iff proj_size is set)."""
    proj_size = getattr(module, "proj_size", 0)
    if not isinstance(module, nn.RNNBase):
        return
    weight_hr = getattr(module, "weight_hr_l0", None)
    if proj_size and not isinstance(weight_hr, torch.Tensor):
        raise ValueError(
            f"module.proj_size is {proj_size}, but the module has no weight_hr_l0 (it was built without a "
            "projection): was proj_size changed after construction? (torch's call fails too)"
        )
    if not proj_size and isinstance(weight_hr, torch.Tensor):
        raise ValueError(
            f"module.proj_size is 0, but the module has weight_hr_l0 of shape {tuple(weight_hr.shape)} "
            "(it was built with a projection): was proj_size changed after construction? "
            "(torch's call fails too)"
        )


def layer_weight_names(num_layers: int, bidirectional: bool, bias: bool, proj_size: int) -> list[str]:
    """The names of a layer's weights, in torch's order (``_flat_weights_names``), for these attributes."""
    kinds = (
        ["weight_ih", "weight_hh"]
        + (["bias_ih", "bias_hh"] if bias else [])
        + (["weight_hr"] if proj_size else [])
    )
    suffixes = ["", "_reverse"] if bidirectional else [""]
    return [f"{k}_l{n}{s}" for n in range(num_layers) for s in suffixes for k in kinds]


def _span(names: list[str]) -> str:
    return f"{names[0]} to {names[-1]}" if names else "none"


def check_flat_weights(module: nn.RNNBase, name: str = "module") -> None:
    """``num_layers``, ``bias`` and ``bidirectional`` against the weights the module was built with.

    torch's call reads the weights listed in ``_flat_weights_names`` (made in ``__init__``) and
    the attributes separately: an attribute changed after construction makes it refuse ("Expected
    more weights in stacked_rnn", "got an incorrect number of RNN parameters"). Refused here
    (ValueError) naming the attribute, before any weight is read by the attributes.
    """
    given = getattr(module, "_flat_weights_names", None)
    if given is None:  # not made by nn.RNNBase.__init__: the weights are read by the attributes
        return
    given = list(given)
    flags: dict[str, Any] = {
        "num_layers": module.num_layers,
        "bidirectional": bool(module.bidirectional),
        "bias": bool(module.bias),
        "proj_size": getattr(module, "proj_size", 0),
    }
    if given == layer_weight_names(**flags):
        return
    layers = 1 + max((int(m[1]) for m in (re.search(r"_l(\d+)", n) for n in given) if m), default=-1)
    for attr, value in (
        ("num_layers", layers),
        ("bias", not flags["bias"]),
        ("bidirectional", not flags["bidirectional"]),
    ):
        if given == layer_weight_names(**(flags | {attr: value})):
            raise ValueError(
                f"{name}.{attr} is {flags[attr]}, but its weights are those of {attr}={value} "
                f"({len(given)} tensors, {_span(given)}): was {attr} changed after "
                "construction? (torch's call fails too)"
            )
    settings = ", ".join(f"{k}={v}" for k, v in flags.items())
    raise ValueError(
        f"{name}'s weights ({len(given)} tensors, {_span(given)}) are not those its "
        f"attributes ({settings}) call for: was one of them changed after construction? (torch's call fails too)"
    )


def check_parametrizations(module: nn.Module) -> None:
    """Refuse a parametrization whose value changes from one read to the next in training mode.

    Two kinds are known to: ``spectral_norm`` (a power iteration on every read) and any chain
    holding a module of the dropout family (``nn.Dropout``, ``AlphaDropout``, ...: a subclass of
    ``torch.nn.modules.dropout._DropoutNd``, anywhere inside), such as AWD-LSTM's weight drop
    (DropConnect). torch's call reads each weight once per call, with one random mask; the layers
    read it separately, and could not give that mask to the result anyway. Every other
    parametrization (``weight_norm``, ``orthogonal``, a function of the weight) is taken to be
    deterministic and followed in either mode; one that draws random numbers without a dropout
    module cannot be seen from outside and is not refused.
    """
    chains = getattr(module, "parametrizations", None)
    if not chains:
        return
    for name, chain in chains.items():
        for parametrization in chain:
            if module.training and isinstance(parametrization, parametrizations._SpectralNorm):
                raise ValueError(
                    f"module has a spectral_norm parametrization and is in training mode ({name}), where "
                    "every read of the weight runs a power iteration (torch's call reads it several times): "
                    "call module.eval() first"
                )
            dropout = next(
                (
                    part
                    for part in parametrization.modules()
                    if isinstance(part, _DropoutNd) and part.training
                ),
                None,
            )
            if dropout is not None and dropout.p > 0:
                raise ValueError(
                    f"module's parametrization of {name} holds a {type(dropout).__name__}(p={dropout.p}) in "
                    "training mode (a weight drop): each read of the weight draws a new random mask, which "
                    "module(input) draws once and rnndoc.layers cannot reproduce: call module.eval() first "
                    "(the dropout then passes the weight through)"
                )


def check_gated(module: object) -> None:
    """A module with gates to return: an ``nn.LSTM``, ``nn.GRU``, ``nn.LSTMCell`` or ``nn.GRUCell``."""
    if not isinstance(module, nn.LSTM | nn.GRU | nn.LSTMCell | nn.GRUCell):
        raise TypeError(
            "module must be a torch.nn.LSTM, GRU, LSTMCell or GRUCell (a tanh or ReLU RNN has no gates), "
            f"got {type(module).__name__}{_compiled_hint(module)}"
        )


def check_no_backward_hooks(module: nn.Module) -> None:
    """Refuse backward hooks: they change what autograd returns through ``module(input)``."""
    global_hooks = _module_hooks._global_backward_hooks or _module_hooks._global_backward_pre_hooks
    if module._backward_hooks or module._backward_pre_hooks or global_hooks:
        raise TypeError(
            "module has backward hooks (or global module backward hooks are registered), which change "
            "the gradients autograd gives and rnndoc.layers cannot run: remove them, or apply them to the "
            "result yourself"
        )


def check_weights(params: object, mode: str, num_layers: int, bidirectional: bool) -> None:
    """Every layer's and direction's weights, by PyTorch's names, against each other (shapes, one dtype).

    Layer k > 0 reads D * H_out features; without ``weight_hr`` an LSTM's H_out is H. Their
    device is checked by the caller, once, with the input's and the state's.
    """
    params = check_mapping("params", params)
    gates = {"LSTM": "4", "GRU": "3"}.get(mode, "")  # the gate blocks, as a label's factor
    for layer in range(num_layers):
        features = "H_in" if layer == 0 else ("2H_out" if bidirectional else "H_out")  # what layer k reads
        for suffix in ["", "_reverse"][: 2 if bidirectional else 1]:
            name = {kind: f"{kind}_l{layer}{suffix}" for kind in _KINDS}
            for kind in ("weight_ih", "weight_hh"):
                if name[kind] not in params:
                    raise ValueError(
                        f"params must hold '{name[kind]}' (PyTorch's name), got {sorted(params)}"
                    )
            hidden = "H" if name["weight_hr"] in params or mode == "LSTM" else "H_out"
            labels = {
                "weight_ih": f"{gates}{hidden},{features}",
                "weight_hh": f"{gates}{hidden},H_out",
                "bias_ih": f"{gates}{hidden}?",
                "bias_hh": f"{gates}{hidden}?",
                "weight_hr": "H_out,H?",
            }
            weights = {f"params['{name[k]}']": (params.get(name[k]), label) for k, label in labels.items()}
            sizes = _check_axes(weights)
            _check_dtypes({key: value for key, (value, _) in weights.items() if value is not None})
            if mode == "LSTM" and name["weight_hr"] not in params and sizes["H"] != sizes["H_out"]:
                raise ValueError(
                    f"the state has H_out = {sizes['H_out']} features but the cell state has "
                    f"H = {sizes['H']}: give weight_hr_l{layer}{suffix}"
                )


def check_packed(packed: PackedSequence, input_size: int) -> None:
    """Raise ``TypeError``/``ValueError`` naming the field of a ``PackedSequence`` that is malformed.

    torch's kernels trust a ``PackedSequence``: a hand-built one with increasing or zero batch
    sizes, rows that do not add up, or ``sorted_indices`` that are not a permutation gives a
    raw error from deep inside, or other numbers.
    """
    check_tensor("input.data", packed.data, (None, input_size), "(sum of lengths, H_in)")
    sizes = packed.batch_sizes
    if not isinstance(sizes, torch.Tensor) or sizes.dim() != 1 or sizes.dtype != torch.int64:
        got = f"{sizes.dim()}-D {sizes.dtype}" if isinstance(sizes, torch.Tensor) else type(sizes).__name__
        raise ValueError(
            f"input.batch_sizes must be a 1-D int64 tensor (as pack_sequence makes it), got {got}"
        )
    if sizes.numel() == 0:
        raise ValueError("input is an empty PackedSequence (no time steps): pack at least one step")
    if bool((sizes < 1).any()):
        raise ValueError(f"input.batch_sizes must be positive, got {sizes.tolist()}")
    if bool((sizes[1:] > sizes[:-1]).any()):
        raise ValueError(f"input.batch_sizes must be non-increasing (longest first), got {sizes.tolist()}")
    rows = int(sizes.sum())
    if packed.data.shape[0] != rows:
        raise ValueError(
            f"input.data must have {rows} rows (the sum of batch_sizes {sizes.tolist()}), "
            f"got shape {tuple(packed.data.shape)}"
        )
    batch = int(sizes[0])
    for name in ("sorted_indices", "unsorted_indices"):
        order = getattr(packed, name)
        if order is None:
            continue
        ok = order.dim() == 1 and order.numel() == batch and not order.is_floating_point()
        if not ok or not torch.equal(order.sort().values.cpu(), torch.arange(batch, device="cpu")):
            raise ValueError(
                f"input.{name} must be a permutation of range({batch}) (the batch size), got {order.tolist()}"
            )
    order, inverse = packed.sorted_indices, packed.unsorted_indices
    if (
        order is not None
        and inverse is not None
        and not torch.equal(order[inverse].cpu(), torch.arange(batch, device="cpu"))
    ):
        raise ValueError("input.unsorted_indices must be the inverse of input.sorted_indices")


def check_sequence(module: nn.RNNBase, input: object, weight: torch.Tensor) -> str:
    """A layer's input; returns its form: "packed", "unbatched", "batch_first" or "time_first"."""
    if isinstance(input, PackedSequence):
        check_dense("input.data", input.data)
        check_packed(input, module.input_size)
        check_activation_dtypes("weight_ih_l0", weight, **{"input.data": input.data})
        return "packed"
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor or PackedSequence, got {type(input).__name__}")
    check_dense("input", input)
    layout = "(N, L, H_in)" if module.batch_first else "(L, N, H_in)"
    if input.dim() not in (2, 3):
        raise ValueError(
            f"input must have shape {layout}, or (L, H_in) unbatched, with H_in = {module.input_size}; "
            f"got {tuple(input.shape)}"
        )
    form = "unbatched" if input.dim() == 2 else ("batch_first" if module.batch_first else "time_first")
    check_tensor("input", input, (None,) * (input.dim() - 1) + (module.input_size,),
                 "(L, H_in)" if form == "unbatched" else layout)  # fmt: skip
    check_activation_dtypes("weight_ih_l0", weight, input=input)
    if input.shape[1 if form == "batch_first" else 0] < 1:
        raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
    return form


def check_layer_state(
    module: nn.RNNBase, name: str, value: object, shape: tuple, labels: str, weight
) -> None:
    """h_0 or c_0 of a layer in the caller's layout, ``shape``, with the module's dtype."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    check_dense(name, value)
    if tuple(value.shape) != shape:
        hint = ""
        if name.endswith("(h_0)") and module.proj_size and value.shape[-1] == module.hidden_size:
            hint = f" (with proj_size={module.proj_size}, h_0 has proj_size features, not hidden_size)"
        if len(shape) == 2 and value.dim() == 3:
            hint += " (unbatched input takes an unbatched state)"
        elif len(shape) == 2 and value.dim() == 1:
            hint += f" (the first axis, D * num_layers = {shape[0]}, is there for every input, unbatched too)"
        raise ValueError(f"{name} must have shape {labels} = {shape}, got {tuple(value.shape)}{hint}")
    check_tensor(name, value, shape, labels)
    check_activation_dtypes("weight_ih_l0", weight, **{name: value})  # its device: read_call's one check


def check_pair(name: str, value: object, what: str, none_inside: bool = False, optional: bool = True) -> None:
    """An LSTM's state: a pair (of tensors unless ``none_inside``), or None where ``optional``."""
    if value is None and not optional:
        raise TypeError(f"{name} must be a pair {what} of tensors, got NoneType")
    if value is not None and not (
        isinstance(value, tuple | list) and len(value) == 2 and (none_inside or None not in value)
    ):
        got = (
            f"a {type(value).__name__} of length {len(value)}"
            if isinstance(value, tuple | list)
            else type(value).__name__
        )
        if isinstance(value, tuple | list) and len(value) == 2:
            got = f"a {type(value).__name__} holding None"
        raise TypeError(f"{name} must be a pair {what} of tensors, got {got}")


def check_cell_state(
    name: str, value: object, shape: tuple, labels: str, x: torch.Tensor, weight: torch.Tensor
) -> torch.Tensor:
    """An LSTM cell's c, as the batch of its h is, in the weights' dtype (or autocast's)."""
    check_dense(name, value)
    c = check_tensor(name, value, shape, labels)
    check_activation_dtypes("weight_ih", weight, c=c)
    check_same_device("input", x, c=c)
    return c


# --- gradients given to backward ------------------------------------------------------------


def gradient_like(name: str, value: object, like):
    """``value`` shaped, typed and placed like ``like`` (a tensor, a pair or a PackedSequence, as
    forward returned it), or zeros where it is None."""
    if isinstance(like, PackedSequence):
        if value is None:
            return like.data.new_zeros(like.data.shape)  # (sum len, D*H_out)
        if not isinstance(value, PackedSequence):
            raise TypeError(
                f"{name} must be a PackedSequence packed like the input, got {type(value).__name__}"
            )
        if not torch.equal(value.batch_sizes, like.batch_sizes):
            raise ValueError(
                f"{name}.batch_sizes must be {like.batch_sizes.tolist()} (the input's), "
                f"got {value.batch_sizes.tolist()}"
            )
        for field in ("sorted_indices", "unsorted_indices"):  # the rows are read in the input's order
            given, expected = getattr(value, field), getattr(like, field)
            if (given is None) != (expected is None) or (
                given is not None and not torch.equal(given, expected)
            ):
                raise ValueError(f"{name}.{field} must be the input's ({expected}), got {given}")
        return _tensor_like(f"{name}.data", value.data, like.data)
    if isinstance(like, tuple):
        if value is not None and not (isinstance(value, tuple | list) and len(value) == 2):
            got = (
                f"a {type(value).__name__} of length {len(value)}"
                if isinstance(value, tuple | list)
                else type(value).__name__
            )
            raise TypeError(f"{name} must be a pair (like the LSTM's state) or None, got {got}")
        parts = (None, None) if value is None else value
        return tuple(
            gradient_like(f"{name}[{k}]", v, part)
            for k, (v, part) in enumerate(zip(parts, like, strict=True))
        )
    return torch.zeros_like(like) if value is None else _tensor_like(name, value, like)


def _tensor_like(name: str, value: object, like: torch.Tensor) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor shaped like what it is the gradient of, got {type(value).__name__}"
        )
    if value.shape != like.shape:
        raise ValueError(f"{name} must have shape {tuple(like.shape)}, got {tuple(value.shape)}")
    if value.dtype != like.dtype:
        raise TypeError(f"{name} must have dtype {like.dtype}, got {value.dtype}")
    if value.device != like.device:
        raise ValueError(f"{name} is on device {value.device}, but the output is on device {like.device}")
    return value


def check_gradients_given(grad_output: object, grad_hx: object, cell: bool) -> None:
    if grad_output is None and grad_hx is None:
        raise ValueError("grad_output and grad_hx are both None: give the gradient of at least one")
    if cell and grad_hx is not None:
        raise ValueError("grad_hx must be None for a cell: pass the gradient of its return as grad_output")


# --- inference tensors, named when autograd refuses to save them ----------------------------


def inference_tensors(module: nn.Module, input: object, hx: object) -> list[str]:
    """The call's tensors made under ``torch.inference_mode()``, by name (``input``, ``hx[0]``, the module's weights)."""
    found = []
    data = input.data if isinstance(input, PackedSequence) else input
    if isinstance(data, torch.Tensor) and data.is_inference():
        found.append("input.data" if isinstance(input, PackedSequence) else "input")
    parts = hx if isinstance(hx, tuple | list) else (hx,)
    for k, part in enumerate(parts):
        if isinstance(part, torch.Tensor) and part.is_inference():
            found.append(f"hx[{k}]" if isinstance(hx, tuple | list) else "hx")
    found += [f"module.{name}" for name, value in module.named_parameters() if value.is_inference()]
    return found


def explain_inference_error(error: RuntimeError, module: nn.Module, input: object, hx: object) -> None:
    """Raise a ``RuntimeError`` naming the inference tensors, where autograd refused to save one.

    Outside ``torch.inference_mode()``, autograd records a call for backward and refuses to save
    an inference tensor; ``module(input, hx)`` fails then too (deep inside, naming no argument).
    Whether a tensor must be saved depends on which others require grad, so the refusal is
    autograd's own, at the product that needs it; only the message is made here.
    """
    if "Inference tensors cannot be saved for backward" not in str(error):
        return
    names = inference_tensors(module, input, hx)
    if not names:
        return
    what = (
        f"{names[0]} is an inference tensor"
        if len(names) == 1
        else f"{', '.join(names)} are inference tensors"
    )
    raise RuntimeError(
        f"{what} (made under torch.inference_mode()), which autograd cannot save for backward: outside "
        "inference mode the call is recorded for backward, and module(input) fails here too. Call it under "
        "torch.inference_mode() or torch.no_grad(), or pass a copy made outside inference mode "
        "(tensor.clone(); for a module, one built outside and given its state_dict)"
    ) from None
