"""Hypothesis strategies for small tanh RNNs in float64."""

from __future__ import annotations

import torch
from hypothesis import strategies as st


@st.composite
def rnn_problems(draw, max_size: int = 4, max_length: int = 5, max_batch: int = 3, scale: float = 1.0):
    """A random one-layer tanh RNN problem keyed by PyTorch's names, in nn.RNN's batch_first layout.

    ``inputs`` (N, L, H_in), ``targets`` (N, L, H), ``h_0`` (1, N, H), the four parameters.
    """
    input_size = draw(st.integers(1, max_size))
    hidden_size = draw(st.integers(1, max_size))
    length = draw(st.integers(1, max_length))
    batch = draw(st.integers(1, max_batch))
    seed = draw(st.integers(0, 2**31 - 1))
    gen = torch.Generator().manual_seed(seed)

    def rand(*shape):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * scale

    return {
        "inputs": rand(batch, length, input_size),
        "targets": rand(batch, length, hidden_size),
        "h_0": rand(1, batch, hidden_size),
        "weight_ih_l0": rand(hidden_size, input_size),
        "weight_hh_l0": rand(hidden_size, hidden_size),
        "bias_ih_l0": rand(hidden_size),
        "bias_hh_l0": rand(hidden_size),
    }


def torch_rnn(problem) -> torch.nn.RNN:
    """An nn.RNN (float64, batch_first=True) holding the problem's parameters."""
    hidden_size, input_size = problem["weight_ih_l0"].shape
    rnn = torch.nn.RNN(input_size, hidden_size, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for name, parameter in rnn.named_parameters():
            parameter.copy_(problem[name])
    return rnn
