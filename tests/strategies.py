"""Hypothesis strategies for small tanh RNNs in float64."""

from __future__ import annotations

import torch
from hypothesis import strategies as st


@st.composite
def rnn_problems(draw, max_size: int = 4, max_length: int = 5, scale: float = 1.0):
    """A random one-layer tanh RNN problem: parameters, inputs, targets (float64, unbatched)."""
    input_size = draw(st.integers(1, max_size))
    hidden_size = draw(st.integers(1, max_size))
    length = draw(st.integers(1, max_length))
    seed = draw(st.integers(0, 2**31 - 1))
    gen = torch.Generator().manual_seed(seed)

    def rand(*shape):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * scale

    return {
        "inputs": rand(length, input_size),
        "targets": rand(length, hidden_size),
        "h_0": rand(hidden_size),
        "weight_ih": rand(hidden_size, input_size),
        "weight_hh": rand(hidden_size, hidden_size),
        "bias_ih": rand(hidden_size),
        "bias_hh": rand(hidden_size),
    }


def torch_rnn(problem) -> torch.nn.RNN:
    """An nn.RNN (float64, batch_first=False) holding the problem's parameters."""
    hidden_size, input_size = problem["weight_ih"].shape
    rnn = torch.nn.RNN(input_size, hidden_size, dtype=torch.float64)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(rnn, f"{name}_l0").copy_(problem[name])
    return rnn
