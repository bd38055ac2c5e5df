"""The checks of :func:`rnndoc.layers.stack.run_layers` and :func:`~rnndoc.layers.stack_backward.run_layers_backward`.

One weight check for both (``check_weights``): every weight of every layer and direction
against the others and against the state it meets (one ``check_shapes`` call each). Besides:
``lengths`` against the batch and the sequence length, and the gradients against the tape the
forward sweep filled.
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_choice, check_int, check_lengths, check_mapping
from .shared import check_shapes

__all__: list[str] = []  # internal checks of the stack; run_layers and run_layers_backward are public

_MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")
_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


def _check_flags(mode: object, num_layers: object, bidirectional: object) -> int:
    """Check the three flags; return num_layers."""
    check_choice("mode", mode, _MODES)
    layers = check_int("num_layers", num_layers, minimum=1)
    check_bool("bidirectional", bidirectional)
    return layers


def check_stack_arguments(input, h_0, c_0, params, mode, num_layers, bidirectional, lengths=None) -> None:
    """Check :func:`rnndoc.layers.stack.run_layers`'s arguments; each error names the argument."""
    _check_flags(mode, num_layers, bidirectional)
    directions = 2 if bidirectional else 1
    state = {"input": (input, "L,N,H_in"), "h_0": (h_0, "S,N,H_out"), "c_0": (c_0, "S,N,H")}
    sizes = check_shapes(**state)
    if sizes["S"] != num_layers * directions:
        raise ValueError(
            f"h_0 must have D * num_layers = {num_layers * directions} rows, got {tuple(h_0.shape)}"
        )
    if (mode == "LSTM") != (c_0 is not None):
        raise ValueError(f"c_0 must be given for an LSTM and only then (mode={mode!r})")
    if sizes["L"] < 1:
        raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
    if lengths is not None:
        check_lengths("lengths", lengths, sizes["N"], sizes["L"])
    check_weights(params, mode, num_layers, bidirectional, **state)


def check_weights(params: object, mode: str, num_layers: int, bidirectional: bool, **state) -> None:
    """Check every layer's and direction's weights, by PyTorch's names, against each other and ``state``.

    ``state`` holds the tensors the weights meet, labelled as for
    :func:`rnndoc.layers.shared.check_shapes`: ``input`` (``"L,N,H_in"``), ``h_0``
    (``"S,N,H_out"``) and ``c_0`` (``"S,N,H"``) for the forward sweep; the tape's input and
    the gradients at h_n and c_n for the backward sweep. Layer k > 0 reads D * H_out
    features; without ``weight_hr`` an LSTM's H_out is H. Each error names the weight
    (``params['weight_hh_l0']``) or the state tensor, the expected and the actual shape.
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
                "bias_ih": f"{gates}{hidden}",
                "bias_hh": f"{gates}{hidden}",
                "weight_hr": "H_out,H",
            }
            weights = {f"params['{name[k]}']": (params.get(name[k]), label) for k, label in labels.items()}
            sizes = check_shapes(**weights, **state)
            if mode == "LSTM" and name["weight_hr"] not in params and sizes["H"] != sizes["H_out"]:
                raise ValueError(
                    f"the state has H_out = {sizes['H_out']} features but the cell state has "
                    f"H = {sizes['H']}: give weight_hr_l{layer}{suffix}"
                )


def check_tape(tape, grad_output, grad_h_n, grad_c_n, mode, num_layers, bidirectional) -> None:
    """Check :func:`rnndoc.layers.stack_backward.run_layers_backward`'s arguments against the forward's tape."""
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
