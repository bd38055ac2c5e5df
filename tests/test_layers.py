"""The from-scratch layers against torch.nn.RNN."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from rnndoc.layers import rnn_tanh_layer
from rnndoc.verdict import FLOAT64_ATOL, assert_close


@given(
    st.integers(1, 5),
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(1, 5),
    st.booleans(),
    st.integers(0, 2**31 - 1),
)
def test_rnn_tanh_layer_matches_nn_rnn(length, batch, input_size, hidden_size, bias, seed):
    torch.manual_seed(seed)
    rnn = torch.nn.RNN(input_size, hidden_size, bias=bias, dtype=torch.float64)  # its own initial weights
    x = torch.randn(length, batch, input_size, dtype=torch.float64)  # (L, N, H_in)
    h_0 = torch.randn(1, batch, hidden_size, dtype=torch.float64)  # (1, N, H)
    expected, expected_h_n = rnn(x, h_0)
    biases = (rnn.bias_ih_l0, rnn.bias_hh_l0) if bias else (None, None)
    output, h_n = rnn_tanh_layer(x, h_0[0], rnn.weight_ih_l0, rnn.weight_hh_l0, *biases)
    assert output.shape == expected.shape
    assert_close(output, expected.detach(), atol=FLOAT64_ATOL, what="output")
    assert_close(h_n, expected_h_n[0].detach(), atol=FLOAT64_ATOL, what="h_n")


def test_biases_enter_only_as_their_sum():
    torch.manual_seed(0)
    x, h_0 = torch.randn(4, 2, 3, dtype=torch.float64), torch.randn(2, 5, dtype=torch.float64)
    w_ih, w_hh = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 5, dtype=torch.float64)
    b_ih, b_hh = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    a = rnn_tanh_layer(x, h_0, w_ih, w_hh, b_ih, b_hh)[0]
    b = rnn_tanh_layer(x, h_0, w_ih, w_hh, b_ih + b_hh, torch.zeros(5, dtype=torch.float64))[0]
    assert_close(a, b, atol=1e-15)


@pytest.mark.parametrize(
    ("key", "value", "error", "match"),
    [
        (
            "input",
            torch.zeros(3, 2, dtype=torch.float64),
            ValueError,
            r"input must have shape \(L, N, H_in\)",
        ),
        ("input", torch.zeros(0, 1, 2, dtype=torch.float64), ValueError, "at least one time step"),
        (
            "h_0",
            torch.zeros(2, 2, dtype=torch.float64),
            ValueError,
            r"h_0 must have shape \(N, H\) = \(1, 2\), got \(2, 2\)",
        ),
        (
            "weight_ih",
            torch.zeros(2, 3, dtype=torch.float64),
            ValueError,
            r"weight_ih must have shape \(H, H_in\)",
        ),
        (
            "bias_hh",
            torch.zeros(3, dtype=torch.float64),
            ValueError,
            r"bias_hh must have shape \(H,\) = \(2,\)",
        ),
        ("weight_hh", torch.zeros(2, 2), TypeError, "weight_hh must have the dtype of input"),
        ("input", torch.zeros(3, 1, 2, dtype=torch.int64), TypeError, "input must have a floating dtype"),
    ],
)
def test_bad_arguments_are_named(key, value, error, match):
    args = {
        "input": torch.zeros(3, 1, 2, dtype=torch.float64),
        "h_0": torch.zeros(1, 2, dtype=torch.float64),
        "weight_ih": torch.zeros(2, 2, dtype=torch.float64),
        "weight_hh": torch.zeros(2, 2, dtype=torch.float64),
        "bias_ih": torch.zeros(2, dtype=torch.float64),
        "bias_hh": torch.zeros(2, dtype=torch.float64),
    } | {key: value}
    with pytest.raises(error, match=match):
        rnn_tanh_layer(**args)


@given(st.integers(1, 8), st.integers(2, 8), st.data(), st.booleans())
def test_lstm_costs_count_the_modules_parameters(input_size, hidden_size, data, bias):
    from rnndoc.layers.costs import lstm_costs  # noqa: PLC0415

    proj_size = data.draw(st.integers(0, hidden_size - 1))
    module = torch.nn.LSTM(input_size, hidden_size, proj_size=proj_size, bias=bias)
    costs = lstm_costs(input_size, hidden_size, proj_size, bias)
    assert costs["parameters"] == sum(p.numel() for p in module.parameters())
    weights = [p for name, p in module.named_parameters() if name.startswith("weight")]
    assert costs["multiply_adds"] == sum(w.numel() for w in weights)  # one multiply-add per weight per step


def test_lstm_costs_errors():
    from rnndoc.layers.costs import lstm_costs  # noqa: PLC0415

    with pytest.raises(ValueError, match="proj_size must be below hidden_size = 4, got 4"):
        lstm_costs(2, 4, proj_size=4)
    with pytest.raises(TypeError, match="input_size must be an int"):
        lstm_costs(2.0, 4)


def test_gru_reset_before_is_chos_form():
    """reset_after=False is n = tanh(W_in x + b_in + W_hn (r * h) + b_hn), written out by hand here."""
    from rnndoc.layers import gru_cell  # noqa: PLC0415

    torch.manual_seed(3)
    cell = torch.nn.GRUCell(3, 4, dtype=torch.float64)
    x, h = torch.randn(2, 3, dtype=torch.float64), torch.randn(2, 4, dtype=torch.float64)
    w_ir, w_iz, w_in = cell.weight_ih.chunk(3)
    w_hr, w_hz, w_hn = cell.weight_hh.chunk(3)
    b_ir, b_iz, b_in = cell.bias_ih.chunk(3)
    b_hr, b_hz, b_hn = cell.bias_hh.chunk(3)
    r = torch.sigmoid(x @ w_ir.T + b_ir + h @ w_hr.T + b_hr)
    z = torch.sigmoid(x @ w_iz.T + b_iz + h @ w_hz.T + b_hz)
    n = torch.tanh(x @ w_in.T + b_in + (r * h) @ w_hn.T + b_hn)
    expected = (1 - z) * n + z * h
    args = (x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    assert_close(gru_cell(*args, reset_after=False), expected.detach(), atol=FLOAT64_ATOL)
    assert (gru_cell(*args) - gru_cell(*args, reset_after=False)).abs().max() > 1e-3


@given(
    st.integers(1, 5), st.integers(1, 8), st.sampled_from(["RNN", "LSTM", "GRU"]), st.integers(0, 2**31 - 1)
)
def test_state_gradient_norms_agree_and_respect_the_bound(hidden_size, length, kind, seed):
    from rnndoc.vanishing import autograd_state_gradient_norms, state_gradient_norms  # noqa: PLC0415

    torch.manual_seed(seed)
    module = getattr(torch.nn, kind)(2, hidden_size, dtype=torch.float64)
    x = torch.randn(length, 2, dtype=torch.float64)
    by_autograd = autograd_state_gradient_norms(module, x)
    assert by_autograd.shape == (length + 1,)
    assert by_autograd[0].item() == pytest.approx(1.0, abs=1e-12)  # dh_T/dh_T = I
    if kind == "RNN":
        hidden, _ = module(x)
        product = state_gradient_norms(module.weight_hh_l0.detach(), hidden.detach())
        assert_close(by_autograd, product, atol=1e-12 * max(1.0, product.max().item()))
        sigma = torch.linalg.matrix_norm(module.weight_hh_l0.detach(), ord=2).item()
        bound = torch.tensor([sigma**d for d in range(length + 1)], dtype=torch.float64)
        assert torch.all(product <= bound * (1 + 1e-12))


def test_state_gradient_norm_errors():
    from rnndoc.vanishing import autograd_state_gradient_norms, state_gradient_norms  # noqa: PLC0415

    with pytest.raises(ValueError, match=r"hidden must have shape \(T, H\) = \(\*, 2\), got \(3, 4\)"):
        state_gradient_norms(torch.eye(2, dtype=torch.float64), torch.zeros(3, 4, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"module must be an nn\.RNN, nn\.LSTM or nn\.GRU"):
        autograd_state_gradient_norms(torch.nn.Linear(2, 2), torch.zeros(3, 2))
    with pytest.raises(ValueError, match="one layer, one direction and no projection"):
        autograd_state_gradient_norms(torch.nn.GRU(2, 3, num_layers=2), torch.zeros(3, 2))


def _t(*shape):
    return torch.zeros(*shape)


def _params():
    return {"weight_ih_l0": _t(4, 3), "weight_hh_l0": _t(4, 4)}
