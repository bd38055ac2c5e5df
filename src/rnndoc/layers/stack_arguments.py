"""The checks of :func:`rnndoc.layers.stack.run_layers` and :func:`~rnndoc.layers.stack.run_layers_backward`.

Every weight of every layer and direction is checked against the state it meets (one
``check_shapes`` call each), ``lengths`` against the batch and the
sequence length, and the gradients against the tape the forward sweep filled.
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_choice, check_int, check_mapping, check_tensor
from .shared import check_shapes

__all__: list[str] = []  # internal checks of the stack; run_layers and run_layers_backward are public

_MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


def _check_flags(mode: object, num_layers: object, bidirectional: object) -> int:
    """Check the three flags; return num_layers."""
    check_choice("mode", mode, _MODES)
    layers = check_int("num_layers", num_layers, minimum=1)
    check_bool("bidirectional", bidirectional)
    return layers


def _check_lengths(lengths: object, length: int, batch: int) -> None:
    """Each sequence's length: a 1-D integer tensor of ``batch`` entries, each in 1..``length``."""
    if lengths is None:
        return
    if not isinstance(lengths, torch.Tensor) or lengths.is_floating_point() or lengths.is_complex():
        raise TypeError(
            f"lengths must be an integer tensor of shape (N,), got {getattr(lengths, 'dtype', type(lengths).__name__)}"
        )
    if tuple(lengths.shape) != (batch,):
        raise ValueError(f"lengths must have shape (N,) = ({batch},), got {tuple(lengths.shape)}")
    if batch and not (int(lengths.min()) >= 1 and int(lengths.max()) <= length):
        raise ValueError(f"lengths must lie between 1 and L = {length}, got {lengths.tolist()}")


def check_stack_arguments(input, h_0, c_0, params, mode, num_layers, bidirectional, lengths=None) -> None:
    """Check :func:`rnndoc.layers.stack.run_layers`'s arguments; each error names the argument."""
    _check_flags(mode, num_layers, bidirectional)
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of PyTorch's weight names, got {type(params).__name__}")
    directions = 2 if bidirectional else 1
    sizes = check_shapes(input=(input, "L,N,H_in"), h_0=(h_0, "S,N,H_out"), c_0=(c_0, "S,N,H"))
    if sizes["S"] != num_layers * directions:
        raise ValueError(
            f"h_0 must have D * num_layers = {num_layers * directions} rows, got {tuple(h_0.shape)}"
        )
    if (mode == "LSTM") != (c_0 is not None):
        raise ValueError(f"c_0 must be given for an LSTM and only then (mode={mode!r})")
    if sizes["L"] < 1:
        raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
    _check_lengths(lengths, sizes["L"], sizes["N"])
    gates = {"LSTM": "4", "GRU": "3"}.get(mode, "")  # the gate blocks, as a label's factor
    for layer in range(num_layers):
        features = "H_in" if layer == 0 else ("2H_out" if bidirectional else "H_out")  # what layer k reads
        for suffix in ["", "_reverse"][:directions]:
            weights = {kind: params.get(f"{kind}_l{layer}{suffix}") for kind in _KINDS}
            for kind in ("weight_ih", "weight_hh"):
                if weights[kind] is None:
                    raise ValueError(
                        f"params must hold '{kind}_l{layer}{suffix}' (PyTorch's name), got {sorted(params)}"
                    )
            hidden = "H" if weights["weight_hr"] is not None or mode == "LSTM" else "H_out"
            named = {
                "weight_ih": (weights["weight_ih"], f"{gates}{hidden},{features}"),
                "weight_hh": (weights["weight_hh"], f"{gates}{hidden},H_out"),
                "bias_ih": (weights["bias_ih"], f"{gates}{hidden}"),
                "bias_hh": (weights["bias_hh"], f"{gates}{hidden}"),
                "weight_hr": (weights["weight_hr"], "H_out,H"),
                "input": (input, "L,N,H_in"), "h_0": (h_0, "S,N,H_out"), "c_0": (c_0, "S,N,H"),
            }  # fmt: skip
            check_shapes(**{_name(key, layer, suffix): value for key, value in named.items()})
            if mode == "LSTM" and weights["weight_hr"] is None and sizes["H"] != sizes["H_out"]:
                raise ValueError(
                    f"h_0 has {sizes['H_out']} features but c_0 has {sizes['H']}: give weight_hr_l{layer}{suffix}"
                )


_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


def _name(key: str, layer: int, suffix: str) -> str:
    return f"params['{key}_l{layer}{suffix}']" if key in _KINDS else key


def check_tape(tape, grad_output, grad_h_n, grad_c_n, mode, num_layers, bidirectional) -> None:
    """Check :func:`rnndoc.layers.stack.run_layers_backward`'s arguments against the forward's tape."""
    _check_flags(mode, num_layers, bidirectional)
    directions = 2 if bidirectional else 1
    records = num_layers * directions
    if not isinstance(tape, list):
        raise TypeError(f"tape must be the list run_layers filled, got {type(tape).__name__}")
    if len(tape) != records or not all(isinstance(r, dict) for r in tape):
        raise ValueError(
            f"tape must be the list run_layers filled with the same arguments ({records} records)"
        )
    if any(record.get("mode") != mode for record in tape):
        raise ValueError(f"tape was filled with mode={tape[0].get('mode')!r}, not mode={mode!r}")
    length, batch = tape[-1]["x"].shape[:2]
    h_out = tape[-1]["h_prev"][0].shape[1]
    for name, value, expected in (
        ("grad_output", grad_output, (length, batch, directions * h_out)),
        ("grad_h_n", grad_h_n, (records, batch, h_out)),
    ):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
        if tuple(value.shape) != expected:
            raise ValueError(
                f"{name} must have the shape of what run_layers returned, {expected}, got {tuple(value.shape)}"
            )
    check_shapes(
        grad_output=(grad_output, "L,N,DH"), grad_h_n=(grad_h_n, "S,N,H_out"), grad_c_n=(grad_c_n, "S,N,H")
    )
    if (mode == "LSTM") != (grad_c_n is not None):
        raise ValueError(f"grad_c_n must be given for an LSTM and only then (mode={mode!r})")


def check_params(params: object, mode: object, num_layers: object, bidirectional: object) -> None:
    """Check the weights :func:`~rnndoc.layers.stack.run_layers_backward` reads, by PyTorch's names."""
    layers = _check_flags(mode, num_layers, bidirectional)
    params = check_mapping("params", params)
    gates = {"LSTM": 4, "GRU": 3}.get(str(mode), 1)
    suffixes = ["", "_reverse"] if bidirectional else [""]
    for suffix in (f"_l{k}{s}" for k in range(layers) for s in suffixes):
        for kind in ("weight_ih", "weight_hh"):
            if f"{kind}{suffix}" not in params:
                raise ValueError(f"params must hold '{kind}{suffix}' (PyTorch's name), got {sorted(params)}")
        name = f"params['weight_ih{suffix}']"
        rows = check_tensor(name, params[f"weight_ih{suffix}"], (None, None), "(G*H, H_in)").shape[0]
        if rows % gates:
            raise ValueError(f"{name} must have a multiple of {gates} rows (the gate blocks), got {rows}")
        shapes = {
            "weight_hh": ((rows, None), "(G*H, H_out)"),
            "bias_ih": ((rows,), "(G*H,)"),
            "bias_hh": ((rows,), "(G*H,)"),
            "weight_hr": ((None, rows // gates), "(H_out, H)"),
        }
        for kind, (shape, labels) in shapes.items():
            if f"{kind}{suffix}" in params:
                check_tensor(f"params['{kind}{suffix}']", params[f"{kind}{suffix}"], shape, labels)
