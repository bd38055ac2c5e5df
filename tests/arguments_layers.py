"""The argument table's rows for rnndoc.layers (tests/test_arguments.py reads them)."""

from __future__ import annotations

import math

import torch
from arguments import Bool, Choice, Instance, Int, Spec, Tensor, custom, optional
from torch import nn

N, H_IN, H, L = 2, 3, 4, 5


def _t(*shape: int) -> torch.Tensor:
    """A deterministic float64 tensor with entries in [-0.5, 0.5]."""
    return torch.linspace(-0.5, 0.5, math.prod(shape), dtype=torch.float64).reshape(shape)


def _tensor(*shape: int) -> Tensor:
    return Tensor(lambda: _t(*shape))


def _given(*shape: int) -> Spec:
    """An optional tensor whose valid value is given (not None)."""
    return optional(_tensor(*shape), valid_none=False)


def _cell(gates: int) -> dict[str, Spec]:
    return {
        "input": _tensor(N, H_IN),
        "hx": _tensor(N, H),
        "weight_ih": _tensor(gates * H, H_IN),
        "weight_hh": _tensor(gates * H, H),
        "bias_ih": _given(gates * H),
        "bias_hh": _given(gates * H),
    }


def _module() -> nn.RNN:
    return nn.RNN(H_IN, H, dtype=torch.float64)


def _saved(count: int) -> Spec:
    """What a step returns for its backward: ``count`` tensors of shape (N, H)."""
    return custom(
        lambda: tuple(_t(N, H) for _ in range(count)),
        ("type", "x", TypeError),
        ("range", tuple(_t(N, H) for _ in range(count - 1)), ValueError),
        ("shape", tuple(_t(N, H + 1) for _ in range(count)), ValueError),
    )


MODULE = Instance(_module, extra=())
GATED = Instance(lambda: nn.GRU(H_IN, H, dtype=torch.float64), extra=())  # gates: a module with gates


#: Keyed like tests/test_arguments.TABLE.
LAYERS_TABLE: dict[str, dict[str, Spec]] = {
    "rnndoc.layers.cells.rnn_cell": _cell(1) | {"nonlinearity": Choice(lambda: "tanh")},
    "rnndoc.layers.cells.gru_cell": _cell(3) | {"reset_after": Bool(lambda: True)},
    "rnndoc.layers.cells.lstm_cell": _cell(4)
    | {
        "hx": custom(
            lambda: (_t(N, H), _t(N, H)),
            ("type", _t(N, H), TypeError),
            ("shape", (_t(N, H, 1), _t(N, H)), ValueError),
            ("dtype", (_t(N, H), torch.zeros(N, H, dtype=torch.int64)), TypeError),
        ),
        "weight_hr": optional(_tensor(H, H)),
    },
    "rnndoc.layers.cells.rnn_step": {
        "x_part": _tensor(N, H),
        "h": _tensor(N, H),
        "weight_hh": _tensor(H, H),
        "nonlinearity": Choice(lambda: "tanh"),
    },
    "rnndoc.layers.cells.rnn_step_backward": {
        "dh_next": _tensor(N, H),
        "h_next": _tensor(N, H),
        "weight_hh": _tensor(H, H),
        "nonlinearity": Choice(lambda: "tanh"),
    },
    "rnndoc.layers.cells.lstm_step": {
        "x_part": _tensor(N, 4 * H),
        "h": _tensor(N, H),
        "c": _tensor(N, H),
        "weight_hh": _tensor(4 * H, H),
        "weight_hr": optional(_tensor(H, H)),
    },
    "rnndoc.layers.cells.lstm_step_backward": {
        "dh_next": _tensor(N, H),
        "dc_next": _tensor(N, H),
        "saved": _saved(6),  # i, f, g, o, c, tanh_c
        "weight_hh": _tensor(4 * H, H),
        "weight_hr": optional(_tensor(H, H)),
    },
    "rnndoc.layers.cells.gru_step": {
        "x_part": _tensor(N, 3 * H),
        "h": _tensor(N, H),
        "weight_hh": _tensor(3 * H, H),
        "bias_hn": optional(_tensor(H)),
    },
    "rnndoc.layers.cells.gru_step_backward": {
        "dh_next": _tensor(N, H),
        "saved": _saved(5),  # h, r, z, n, q
        "weight_hh": _tensor(3 * H, H),
    },
    "rnndoc.layers.cells.gru_bias_hn": {
        "bias_hh": optional(
            custom(lambda: _t(3 * H), ("type", [0.0] * 3, TypeError), ("shape", _t(3 * H + 1), ValueError))
        )
    },
    "rnndoc.layers.cells.input_projection": {
        "x": _tensor(L, N, H_IN),
        "weight_ih": _tensor(3 * H, H_IN),
        "bias_ih": _given(3 * H),
        "bias_hh": _given(3 * H),
        "mode": Choice(lambda: "GRU"),
    },
    "rnndoc.layers.sweep.rnn_tanh_layer": {
        "input": _tensor(L, N, H_IN),
        "h_0": _tensor(N, H),
        "weight_ih": _tensor(H, H_IN),
        "weight_hh": _tensor(H, H),
        "bias_ih": _given(H),
        "bias_hh": _given(H),
    },
    "rnndoc.layers.forward": {
        "module": MODULE,
        "input": _tensor(L, N, H_IN),
        "hx": optional(_tensor(1, N, H)),
    },
    "rnndoc.layers.gates": {
        "module": GATED,
        "input": _tensor(L, N, H_IN),
        "hx": optional(_tensor(1, N, H)),
    },
    "rnndoc.layers.backward": {
        "module": MODULE,
        "input": _tensor(L, N, H_IN),
        "hx": optional(_tensor(1, N, H)),
        "grad_output": optional(_tensor(L, N, H)),
        "grad_hx": optional(_tensor(1, N, H)),
    },
    "rnndoc.layers.costs.lstm_costs": {
        "input_size": Int(lambda: 3, minimum=1),
        "hidden_size": Int(lambda: 4, minimum=1),
        "proj_size": Int(lambda: 0, minimum=0, maximum=3),
        "bias": Bool(lambda: True),
    },
}
