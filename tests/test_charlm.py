"""The character-level language model: its text, its model, its scores (tiny configurations;
the training runs are the chapter's)."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional

from rnndoc.charlm import (
    ALPHABET,
    MAX_DEPTH,
    MAX_LINE,
    PAIRS,
    CharLM,
    bootstrap_interval,
    bracket_text,
    closer_probabilities,
    closing_brackets,
    decode,
    encode,
    evaluate,
    sample,
)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**16))
def test_the_text_is_seeded_and_has_its_structure(lines, seed):
    text = bracket_text(lines, seed=seed)
    assert text == bracket_text(lines, seed=seed)
    assert text.count("\n") == lines
    assert text.endswith("\n")
    assert set(text) <= set(ALPHABET)
    assert all(2 <= len(line) <= MAX_LINE for line in text.splitlines())
    assert text.count('"') % 2 == 0
    rows = closing_brackets(text)  # raises if a bracket does not match
    assert len(rows) == sum(text.count(c) for c in PAIRS)
    if len(rows):
        assert rows[:, 1].min() >= 1
        assert rows[:, 1].max() <= MAX_DEPTH
        assert rows[:, 2].min() >= 4
        assert rows[:, 2].max() < MAX_LINE
        for position, _, distance in rows.tolist():  # the opening bracket is where it says
            assert PAIRS[text[position - distance]] == text[position]


def test_two_seeds_give_two_texts():
    assert bracket_text(20, seed=0) != bracket_text(20, seed=1)


def test_closing_brackets_by_hand():
    assert closing_brackets("{a (b [c])}\n").tolist() == [[8, 3, 2], [9, 2, 6], [10, 1, 10]]
    assert closing_brackets("no brackets").shape == (0, 3)


@given(st.text(alphabet=ALPHABET, max_size=50))
def test_encode_and_decode_are_inverse(text):
    indices = encode(text)
    assert indices.dtype == torch.int64
    assert indices.shape == (len(text),)
    assert decode(indices) == text


def _zero_model(mode="GRU"):
    model = CharLM(mode, 3)
    for parameter in model.parameters():
        torch.nn.init.zeros_(parameter)
    return model


def test_a_zero_model_is_uniform():
    loss, perplexity = evaluate(_zero_model(), "(cat) dog\n")
    assert abs(loss - math.log(len(ALPHABET))) < 1e-6
    assert abs(perplexity - len(ALPHABET)) < 1e-4
    shares = closer_probabilities(_zero_model("LSTM"), "(a [b {c}])")
    assert torch.allclose(shares, torch.full((3,), 1 / 3, dtype=torch.float64), rtol=0, atol=1e-12)


def test_evaluate_is_the_mean_cross_entropy():
    torch.manual_seed(0)
    model = CharLM("LSTM", 4)
    text = bracket_text(3, seed=2)
    indices = encode(text)
    logits, _ = model(indices[None, :-1])
    expected = functional.cross_entropy(logits[0], indices[1:]).item()
    loss, perplexity = evaluate(model, text)
    assert loss == expected
    assert perplexity == math.exp(expected)


def test_a_model_that_knows_the_closer_scores_one():
    model = _zero_model()
    with torch.no_grad():  # read-out bias: a huge logit for ")" whatever the input
        model.readout.bias[ALPHABET.index(")")] = 50.0
    shares = closer_probabilities(model, "(a) [b]")
    assert shares[0] > 1 - 1e-12
    assert shares[1] < 1e-12


@given(st.integers(0, 2**16), st.floats(0.1, 3.0))
@settings(max_examples=10, deadline=None)
def test_sampling_is_seeded_and_greedy_is_the_argmax(seed, temperature):
    torch.manual_seed(0)
    model = CharLM("RNN_TANH", 5)
    a = sample(model, "(", 12, temperature=temperature, generator=torch.Generator().manual_seed(seed))
    b = sample(model, "(", 12, temperature=temperature, generator=torch.Generator().manual_seed(seed))
    assert a == b
    assert len(a) == 13
    assert a[0] == "("
    greedy = sample(model, "(", 4, temperature=0)
    with torch.no_grad():
        logits, _ = model(encode(greedy[:-1])[None])
    assert decode(logits[0].argmax(dim=-1))[-4:] == greedy[1:]


def test_the_bootstrap_interval_is_seeded_and_holds_the_mean():
    values = torch.rand(400, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    low, high = bootstrap_interval(values)
    assert (low, high) == bootstrap_interval(values)  # the same generator seed, the same interval
    assert low < values.mean().item() < high
    # the normal approximation, 1.96 standard errors either side, to a tenth
    half = 1.96 * values.std().item() / len(values) ** 0.5
    assert abs((high - low) / 2 - half) < 0.1 * half
    wider = bootstrap_interval(values, level=0.99)
    assert wider[0] < low
    assert high < wider[1]


def test_the_bootstrap_interval_of_one_value_is_that_value():
    assert bootstrap_interval(torch.tensor([0.25]), draws=7) == (0.25, 0.25)
    low, high = bootstrap_interval(torch.full((9,), 1 / 3, dtype=torch.float64))
    assert abs(low - 1 / 3) < 1e-15  # the mean of nine equal values, to round-off
    assert abs(high - 1 / 3) < 1e-15


@pytest.mark.parametrize("values", [torch.tensor([]), torch.tensor([0.5, float("nan")]), torch.zeros(2, 3)])
def test_the_bootstrap_interval_refuses_values_it_cannot_resample(values):
    with pytest.raises(ValueError, match="values"):
        bootstrap_interval(values)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5])
def test_the_bootstrap_interval_refuses_a_level_outside_0_1(level):
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval(torch.zeros(3), level=level)


def test_a_grouped_bootstrap_resamples_whole_groups():
    # each group holds one repeated value: every resample's mean is a mean of group values
    values = torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=torch.float64)
    groups = torch.tensor([7, 7, 7, 3])
    low, high = bootstrap_interval(values, groups=groups, draws=2000, level=0.99)
    # two groups of sizes 3 and 1: a resample's mean is 0 (3+3), 1/4 (3+1) or 1 (1+1)
    assert (low, high) == (0.0, 1.0)
    means = {0.0, 0.25, 1.0}
    assert bootstrap_interval(values, groups=groups, draws=50, level=0.02)[0] in means
    # one group: the mean never moves
    assert bootstrap_interval(values, groups=torch.zeros(4, dtype=torch.int64)) == (0.25, 0.25)
    # by value, the same data gives 1/4 spread differently: 5 means between 0 and 1 step 1/4
    ungrouped = bootstrap_interval(values, draws=2000, level=0.5)
    assert ungrouped[0] in {0.0, 0.25}
    assert ungrouped[1] in {0.25, 0.5}
