"""The numeric δ recursion against autograd, and the two splits of the W_hh gradient."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import rnn_problems, torch_rnn

from rnndoc.bptt import bptt_gradients, gradient_split, hidden_state_loss
from rnndoc.verdict import FLOAT64_ATOL, assert_close


def autograd(problem):
    """The loss and its gradients by autograd through torch's own nn.RNN."""
    rnn = torch_rnn(problem)
    h_0 = problem["h_0"].clone().requires_grad_()  # (1, N, H)
    output, _ = rnn(problem["inputs"], h_0)  # (N, L, H)
    loss = 0.5 * (output - problem["targets"]).square().sum()
    loss.backward()
    grads = {name: p.grad for name, p in rnn.named_parameters()}
    grads["h_0"] = h_0.grad
    return loss.detach(), grads


@given(rnn_problems(scale=1.5))
def test_recursion_matches_autograd(problem):
    result = bptt_gradients(problem)
    loss, expected = autograd(problem)
    assert_close(result.loss, loss, atol=FLOAT64_ATOL, what="loss")
    assert sorted(result.gradients) == sorted(expected)
    for name, grad in expected.items():
        assert_close(result.gradients[name], grad, atol=FLOAT64_ATOL, what=name)


@given(rnn_problems())
def test_split_rows_and_columns_sum_to_the_total(problem):
    table = gradient_split(problem)  # (s, t, H, H)
    result = bptt_gradients(problem)
    length = problem["inputs"].shape[1]
    assert table.shape == (length, length, *problem["weight_hh_l0"].shape)
    assert_close(table.sum(1), result.contributions["weight_hh_l0"], atol=FLOAT64_ATOL, what="per use")
    assert_close(table.sum((0, 1)), result.gradients["weight_hh_l0"], atol=FLOAT64_ATOL, what="total")
    for s in range(length):
        for t in range(s):
            assert torch.all(table[s, t] == 0), "a later use cannot change an earlier loss term"


def test_dropping_the_tanh_derivative_breaks_agreement():
    """The check has teeth: the recursion without (1 - h^2) disagrees with autograd."""
    gen = torch.Generator().manual_seed(0)
    problem = {
        k: torch.rand(s, generator=gen, dtype=torch.float64)
        for k, s in {
            "inputs": (1, 3, 2),
            "targets": (1, 3, 2),
            "h_0": (1, 1, 2),
            "weight_ih_l0": (2, 2),
            "weight_hh_l0": (2, 2),
            "bias_ih_l0": (2,),
            "bias_hh_l0": (2,),
        }.items()
    }
    result = bptt_gradients(problem)
    _, expected = autograd(problem)
    h = result.hidden[0]  # (L, H)
    wrong = (h - problem["targets"][0]).clone()  # delta without the 1 - h^2 factor
    for t in reversed(range(2)):
        wrong[t] += problem["weight_hh_l0"].T @ wrong[t + 1]
    assert (wrong.sum(0) - expected["bias_hh_l0"]).abs().max() > 1e-3
    assert_close(result.deltas[0].sum(0), expected["bias_hh_l0"], atol=FLOAT64_ATOL)


def test_hidden_state_loss_value():
    hidden = torch.tensor([[1.0, 2.0], [0.0, -1.0]], dtype=torch.float64)
    assert hidden_state_loss(hidden, torch.zeros_like(hidden)).item() == 3.0


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        (
            "inputs",
            torch.zeros(1, 3, 5, dtype=torch.float64),
            r"inputs must have shape \(N, L, H_in\) = \(\*, \*, 2\), got \(1, 3, 5\)",
        ),
        (
            "h_0",
            torch.zeros(3, dtype=torch.float64),
            r"h_0 must have shape \(1, N, H\) = \(1, 1, 2\), got \(3,\)",
        ),
        (
            "targets",
            torch.zeros(1, 2, 2, dtype=torch.float64),
            r"targets must have shape \(N, L, H\) = \(1, 3, 2\), got \(1, 2, 2\)",
        ),
        (
            "weight_hh_l0",
            torch.zeros(2, 2, dtype=torch.int64),
            "weight_hh_l0 must have a floating dtype, got torch.int64",
        ),
        ("bias_ih_l0", [0.0, 0.0], "bias_ih_l0 must be a torch.Tensor, got list"),
        (
            "inputs",
            torch.zeros(1, 0, 2, dtype=torch.float64),
            r"inputs must hold at least one time step, got shape \(1, 0, 2\)",
        ),
        ("bias_hh_l0", torch.zeros(2, dtype=torch.float32), "bias_hh_l0 must have the dtype of weight_ih_l0"),
    ],
)
def test_bad_arguments_are_named(key, value, match):
    values = {
        "inputs": torch.zeros(1, 3, 2),
        "targets": torch.zeros(1, 3, 2),
        "h_0": torch.zeros(1, 1, 2),
        "weight_ih_l0": torch.zeros(2, 2),
        "weight_hh_l0": torch.zeros(2, 2),
        "bias_ih_l0": torch.zeros(2),
        "bias_hh_l0": torch.zeros(2),
    }
    values = {k: v.double() for k, v in values.items()} | {key: value}
    with pytest.raises((TypeError, ValueError), match=match):
        bptt_gradients(values)


def test_a_missing_entry_is_named():
    from rnndoc.handset import tensors  # noqa: PLC0415

    values = tensors()
    del values["h_0"]
    with pytest.raises(ValueError, match="values is missing h_0"):
        bptt_gradients(values)


@given(rnn_problems(max_length=7), st.integers(1, 8))
def test_truncated_recursion_matches_chunked_autograd(problem, truncation):
    from rnndoc.truncated import chunked_autograd_gradients  # noqa: PLC0415

    ours = bptt_gradients(problem, truncation=truncation).gradients
    theirs = chunked_autograd_gradients(torch_rnn(problem), problem, truncation)
    for name, grad in theirs.items():
        assert_close(ours[name], grad, atol=FLOAT64_ATOL, what=name)
    if truncation >= problem["inputs"].shape[1]:  # one chunk: full BPTT
        full = bptt_gradients(problem).gradients
        for name in full:
            assert torch.equal(ours[name], full[name])


def test_truncation_argument_errors():
    from rnndoc.handset import tensors  # noqa: PLC0415

    with pytest.raises(ValueError, match="truncation must be at least 1, got 0"):
        bptt_gradients(tensors(), truncation=0)
    with pytest.raises(TypeError, match="truncation must be an int, got float"):
        bptt_gradients(tensors(), truncation=2.0)
