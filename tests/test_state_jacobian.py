"""Full-state Jacobians: each step Jacobian against autograd, products against autograd through the module."""

import copy

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from rnndoc.layers import gru_cell, lstm_cell, rnn_cell
from rnndoc.state_jacobian import (
    autograd_state_jacobians,
    gate_values,
    gru_step_jacobian,
    lstm_step_jacobian,
    raise_forget_bias,
    raise_update_bias,
    rnn_step_jacobian,
    state_jacobians,
)
from rnndoc.state_jacobian.steps import _unbatched_gru_step, _unbatched_lstm_step

ATOL = 1e-12  # float64, two computations of one formula: round-off only
F64 = torch.float64
MODULES = {"RNN": torch.nn.RNN, "LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}


def _random(shape, generator, scale=1.0):
    return scale * torch.randn(*shape, generator=generator, dtype=F64)


def _weights(gates, input_size, hidden_size, generator, bias):
    w = [_random((gates * hidden_size, n), generator, 0.7) for n in (input_size, hidden_size)]
    b = [_random((gates * hidden_size,), generator, 0.5) if bias else None for _ in range(2)]
    return (*w, *b)


sizes = st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(0, 2**16), st.booleans())


@given(sizes)
def test_lstm_step_jacobian_is_autograds(args):
    input_size, hidden_size, seed, bias = args
    g = torch.Generator().manual_seed(seed)
    weights = _weights(4, input_size, hidden_size, g, bias)
    x, h, c = _random((input_size,), g), _random((hidden_size,), g), _random((hidden_size,), g)

    def step(h, c):
        return torch.cat(lstm_cell(x, (h, c), *weights))  # (2H,)

    blocks = torch.autograd.functional.jacobian(step, (h, c))  # each (2H, H)
    expected = torch.cat(blocks, dim=1)  # (2H, 2H)
    assert torch.allclose(lstm_step_jacobian(x, h, c, *weights), expected, rtol=0, atol=ATOL)


@pytest.mark.parametrize(
    ("gates", "cell", "step_jacobian"), [(3, gru_cell, gru_step_jacobian), (1, rnn_cell, rnn_step_jacobian)]
)
@given(sizes)
def test_gru_and_rnn_step_jacobians_are_autograds(gates, cell, step_jacobian, args):
    input_size, hidden_size, seed, bias = args
    g = torch.Generator().manual_seed(seed)
    weights = _weights(gates, input_size, hidden_size, g, bias)
    x, h = _random((input_size,), g), _random((hidden_size,), g)
    expected = torch.autograd.functional.jacobian(lambda h: cell(x, h, *weights), h)
    assert torch.allclose(step_jacobian(x, h, *weights), expected, rtol=0, atol=ATOL)


@given(
    st.sampled_from(sorted(MODULES)),
    st.integers(1, 6),
    st.integers(1, 3),
    st.integers(0, 2**16),
    st.booleans(),
)
def test_products_equal_autograd_through_the_module(kind, length, hidden_size, seed, bias):
    torch.manual_seed(seed)
    module = MODULES[kind](2, hidden_size, bias=bias, dtype=F64)
    x = torch.randn(length, 2, dtype=F64)
    products = state_jacobians(module, x)
    size = 2 * hidden_size if kind == "LSTM" else hidden_size
    assert products.shape == (length + 1, size, size)
    assert torch.equal(products[0], torch.eye(size, dtype=F64))
    assert torch.allclose(autograd_state_jacobians(module, x), products, rtol=0, atol=ATOL)


def test_lstm_top_left_block_is_dh_dh_with_c_held():
    torch.manual_seed(3)
    lstm = torch.nn.LSTM(2, 3, dtype=F64)
    x = torch.randn(5, 2, dtype=F64)
    weights = [getattr(lstm, f"{n}_l0") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    h = c = torch.zeros(3, dtype=F64)
    with torch.no_grad():
        for x_t in x[:2]:  # the state at t = 2
            h, c = lstm_cell(x_t, (h, c), *weights)

    def final_h(h_t):  # c_2 held at its value
        h, c_ = h_t, c
        for x_t in x[2:]:
            h, c_ = lstm_cell(x_t, (h, c_), *weights)
        return h

    expected = torch.autograd.functional.jacobian(final_h, h)  # (H, H)
    assert torch.allclose(state_jacobians(lstm, x)[3, :3, :3], expected, rtol=0, atol=ATOL)


def test_the_forget_gate_bias_moves_the_cell_path():
    torch.manual_seed(1)
    lstm = torch.nn.LSTM(2, 8, dtype=F64)
    x = 0.02 * torch.randn(30, 2, dtype=F64)
    far = {}
    for delta in (0.0, 3.0):
        raised = raise_forget_bias(copy.deepcopy(lstm), delta)
        far[delta] = torch.linalg.matrix_norm(state_jacobians(raised, x)[-1], ord=2).item()
        f = gate_values(raised, x)["f"]
        assert abs(f.mean().item() - (0.5 if delta == 0 else 0.95)) < 0.05
    assert far[0.0] < 1e-5
    assert far[3.0] > 0.5


def test_raise_forget_bias_raises_the_sum_in_every_layer_and_direction():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=F64)
    before = copy.deepcopy(lstm)
    assert raise_forget_bias(lstm, 1.5) is lstm
    for name, value in lstm.named_parameters():
        change = value - before.get_parameter(name)
        expected = torch.zeros(12, dtype=F64)
        if name.startswith("bias_ih"):
            expected[3:6] = 1.5  # b_if
        assert torch.allclose(change, expected if name.startswith("bias") else torch.zeros_like(change))


def test_only_the_sum_of_the_two_forget_biases_matters():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 3, dtype=F64)
    other = copy.deepcopy(lstm)
    raise_forget_bias(lstm, 2.0)
    with torch.no_grad():
        other.bias_hh_l0[3:6] += 2.0  # b_hf instead of b_if
    x = torch.randn(4, 2, dtype=F64)
    assert torch.allclose(lstm(x)[0], other(x)[0], rtol=0, atol=ATOL)


def test_raise_update_bias_opens_z():
    torch.manual_seed(0)
    gru = torch.nn.GRU(2, 4, dtype=F64)
    x = torch.zeros(3, 2, dtype=F64)
    z_before = gate_values(gru, x)["z"]
    z_after = gate_values(raise_update_bias(gru, 4.0), x)["z"]
    assert torch.all(z_after > z_before)
    assert z_after.min() > 0.9


def test_gate_values_rebuild_the_states():
    torch.manual_seed(2)
    lstm, gru = torch.nn.LSTM(2, 3, dtype=F64), torch.nn.GRU(2, 3, dtype=F64)
    x = torch.randn(4, 2, dtype=F64)
    gates = gate_values(lstm, x)
    c = torch.zeros(3, dtype=F64)
    for t in range(4):
        c = gates["f"][t] * c + gates["i"][t] * gates["g"][t]
    h = gates["o"][-1] * torch.tanh(c)
    assert torch.allclose(h, lstm(x)[0][-1], rtol=0, atol=ATOL)
    gates = gate_values(gru, x)
    h = torch.zeros(3, dtype=F64)
    for t in range(4):
        h = (1 - gates["z"][t]) * gates["n"][t] + gates["z"][t] * h
    assert torch.allclose(h, gru(x)[0][-1], rtol=0, atol=ATOL)


def test_the_step_jacobians_read_the_gates_of_the_layers_own_steps():
    """One gate arithmetic: the state the gates come with is rnndoc.layers' cell's, bit for bit."""
    generator = torch.Generator().manual_seed(3)
    x, h, c = (_random((n,), generator) for n in (2, 3, 3))
    lstm = [_random(shape, generator) for shape in ((12, 2), (12, 3), (12,), (12,))]
    h_t, c_t, (*_, o, tanh_c) = _unbatched_lstm_step(x, h, c, *lstm)
    expected_h, expected_c = lstm_cell(x, (h, c), *lstm)
    assert torch.equal(h_t, expected_h)
    assert torch.equal(c_t, expected_c)
    assert torch.equal(h_t, o * tanh_c)
    gru = [_random(shape, generator) for shape in ((9, 2), (9, 3), (9,), (9,))]
    h_t, (*_, q) = _unbatched_gru_step(x, h, *gru)
    assert torch.equal(h_t, gru_cell(x, h, *gru))
    assert torch.allclose(q, gru[1][6:] @ h + gru[3][6:], rtol=0, atol=ATOL)  # q_t = W_hn h + b_hn


@pytest.mark.parametrize(
    ("module", "error", "match"),
    [
        (torch.nn.Linear(2, 2), TypeError, "nn.RNN, nn.LSTM or nn.GRU"),
        (torch.nn.LSTM(2, 3, num_layers=2), ValueError, "one layer"),
        (torch.nn.GRU(2, 3, bidirectional=True), ValueError, "one direction"),
        (torch.nn.LSTM(2, 3, proj_size=2), ValueError, "no projection"),
        (torch.nn.RNN(2, 3, nonlinearity="relu"), ValueError, "tanh RNN"),
    ],
)
def test_unsupported_modules_are_refused(module, error, match):
    for function in (state_jacobians, autograd_state_jacobians):
        with pytest.raises(error, match=match):
            function(module, torch.zeros(3, 2))


def test_bad_arguments_get_clear_errors():
    lstm = torch.nn.LSTM(2, 3)
    with pytest.raises(ValueError, match=r"input must have shape \(T, H_in\) = \(\*, 2\), got \(3, 4\)"):
        state_jacobians(lstm, torch.zeros(3, 4))
    with pytest.raises(TypeError, match="no gates"):
        gate_values(torch.nn.RNN(2, 3), torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r"c_prev must have shape \(H,\) = \(2,\), got \(3,\)"):
        lstm_step_jacobian(
            torch.zeros(1), torch.zeros(2), torch.zeros(3), torch.zeros(8, 1), torch.zeros(8, 2)
        )
    with pytest.raises(ValueError, match=r"weight_hh must have shape \(3H, H\)"):
        gru_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(6, 1), torch.zeros(8, 2))
    with pytest.raises(TypeError, match=r"must be an nn\.LSTM, got GRU"):
        raise_forget_bias(torch.nn.GRU(2, 3), 1.0)
    with pytest.raises(TypeError, match=r"must be an nn\.GRU, got LSTM"):
        raise_update_bias(torch.nn.LSTM(2, 3), 1.0)
    with pytest.raises(ValueError, match="no biases"):
        raise_forget_bias(torch.nn.LSTM(2, 3, bias=False), 1.0)
    with pytest.raises(ValueError, match="finite"):
        raise_forget_bias(lstm, float("nan"))
    with pytest.raises(TypeError, match="delta must be a number"):
        raise_forget_bias(lstm, True)
