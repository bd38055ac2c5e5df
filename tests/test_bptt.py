"""The numeric δ recursion against autograd, and the two splits of the W_hh gradient."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import rnn_problems

from rnndoc.bptt import bptt_gradients, gradient_split, hidden_state_loss
from rnndoc.verdict import FLOAT64_ATOL, assert_close

ORDER = ("inputs", "targets", "h_0", "weight_ih", "weight_hh", "bias_ih", "bias_hh")
NAMES = {
    "weight_ih": "weight_ih_l0",
    "weight_hh": "weight_hh_l0",
    "bias_ih": "bias_ih_l0",
    "bias_hh": "bias_hh_l0",
}


def autograd(problem):
    leaves = {k: v.clone().requires_grad_() for k, v in problem.items()}
    h = leaves["h_0"]
    hidden = []
    for x_t in leaves["inputs"]:
        h = torch.tanh(
            leaves["weight_ih"] @ x_t + leaves["bias_ih"] + leaves["weight_hh"] @ h + leaves["bias_hh"]
        )
        hidden.append(h)
    loss = 0.5 * (torch.stack(hidden) - leaves["targets"]).square().sum()
    loss.backward()
    grads = {NAMES[k]: leaves[k].grad for k in NAMES}
    grads["h_0"] = leaves["h_0"].grad
    return loss.detach(), grads


@given(rnn_problems(scale=1.5))
def test_recursion_matches_autograd(problem):
    result = bptt_gradients(*(problem[k] for k in ORDER))
    loss, expected = autograd(problem)
    assert_close(result.loss, loss, atol=FLOAT64_ATOL, what="loss")
    assert sorted(result.gradients) == sorted(expected)
    for name, grad in expected.items():
        assert_close(result.gradients[name], grad, atol=FLOAT64_ATOL, what=name)


@given(rnn_problems())
def test_split_rows_and_columns_sum_to_the_total(problem):
    table = gradient_split(*(problem[k] for k in ORDER))  # (s, t, H, H)
    result = bptt_gradients(*(problem[k] for k in ORDER))
    length = problem["inputs"].shape[0]
    assert table.shape == (length, length, *problem["weight_hh"].shape)
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
            "inputs": (3, 2),
            "targets": (3, 2),
            "h_0": (2,),
            "weight_ih": (2, 2),
            "weight_hh": (2, 2),
            "bias_ih": (2,),
            "bias_hh": (2,),
        }.items()
    }
    result = bptt_gradients(*(problem[k] for k in ORDER))
    _, expected = autograd(problem)
    h = result.hidden
    wrong = (h - problem["targets"]).clone()  # delta without the 1 - h^2 factor
    for t in reversed(range(2)):
        wrong[t] += problem["weight_hh"].T @ wrong[t + 1]
    assert (wrong.sum(0) - expected["bias_hh_l0"]).abs().max() > 1e-3
    assert_close(result.deltas.sum(0), expected["bias_hh_l0"], atol=FLOAT64_ATOL)


def test_hidden_state_loss_value():
    hidden = torch.tensor([[1.0, 2.0], [0.0, -1.0]], dtype=torch.float64)
    assert hidden_state_loss(hidden, torch.zeros_like(hidden)).item() == 3.0


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        (
            "inputs",
            torch.zeros(3, 5, dtype=torch.float64),
            r"inputs must have shape \(L, H_in\) = \(\*, 2\), got \(3, 5\)",
        ),
        ("h_0", torch.zeros(3, dtype=torch.float64), r"h_0 must have shape \(H,\) = \(2,\), got \(3,\)"),
        (
            "targets",
            torch.zeros(2, 2, dtype=torch.float64),
            r"targets must have shape \(L, H\) = \(3, 2\), got \(2, 2\)",
        ),
        (
            "weight_hh",
            torch.zeros(2, 2, dtype=torch.int64),
            "weight_hh must have a floating dtype, got torch.int64",
        ),
        ("bias_ih", [0.0, 0.0], "bias_ih must be a torch.Tensor, got list"),
        (
            "inputs",
            torch.zeros(0, 2, dtype=torch.float64),
            r"inputs must hold at least one time step, got shape \(0, 2\)",
        ),
        ("bias_hh", torch.zeros(2, dtype=torch.float32), "bias_hh must have the dtype of weight_ih"),
    ],
)
def test_bad_arguments_are_named(key, value, match):
    args = {
        "inputs": torch.zeros(3, 2),
        "targets": torch.zeros(3, 2),
        "h_0": torch.zeros(2),
        "weight_ih": torch.zeros(2, 2),
        "weight_hh": torch.zeros(2, 2),
        "bias_ih": torch.zeros(2),
        "bias_hh": torch.zeros(2),
    }
    args = {k: v.double() for k, v in args.items()} | {key: value}
    with pytest.raises((TypeError, ValueError), match=match):
        bptt_gradients(*(args[k] for k in ORDER))


@given(rnn_problems(max_length=7), st.integers(1, 8))
def test_truncated_recursion_matches_chunked_autograd(problem, truncation):
    from rnndoc.truncated import chunked_autograd_gradients  # noqa: PLC0415

    hidden_size, input_size = problem["weight_ih"].shape
    rnn = torch.nn.RNN(input_size, hidden_size, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(rnn, f"{name}_l0").copy_(problem[name])
    ours = bptt_gradients(*(problem[k] for k in ORDER), truncation=truncation).gradients
    theirs = chunked_autograd_gradients(
        rnn, problem["inputs"], problem["targets"], problem["h_0"], truncation
    )
    for name, grad in theirs.items():
        assert_close(ours[name], grad, atol=FLOAT64_ATOL, what=name)
    if truncation >= problem["inputs"].shape[0]:  # one chunk: full BPTT
        full = bptt_gradients(*(problem[k] for k in ORDER)).gradients
        for name in full:
            assert torch.equal(ours[name], full[name])


def test_truncation_argument_errors():
    args = [torch.zeros(2, 1, dtype=torch.float64), torch.zeros(2, 1, dtype=torch.float64)]
    args += [torch.zeros(1, dtype=torch.float64)] + [torch.zeros(1, 1, dtype=torch.float64)] * 2
    args += [torch.zeros(1, dtype=torch.float64)] * 2
    with pytest.raises(ValueError, match="truncation must be at least 1 step, got 0"):
        bptt_gradients(*args, truncation=0)
    with pytest.raises(TypeError, match="truncation must be an int or None, got float"):
        bptt_gradients(*args, truncation=2.0)
