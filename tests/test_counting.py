"""The a^n b^n data and its score, and the nesting depth of the book's text."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.nn import functional

from rnndoc.charlm import PAIRS, bracket_text, closing_brackets, nesting_depth
from rnndoc.counting import SYMBOLS, anbn, anbn_correct

NS = st.lists(st.integers(1, 12), min_size=1, max_size=6)


@given(NS)
def test_anbn_rows_are_the_strings_and_their_next_symbols(ns):
    inputs, targets = anbn(ns)
    assert inputs.shape == targets.shape == (len(ns), 2 * max(ns))
    for row, n in enumerate(ns):
        text = "".join(SYMBOLS[k] for k in inputs[row].tolist())
        assert text == "a" * n + "b" * n + "$" * (inputs.shape[1] - 2 * n)
        following = "".join(SYMBOLS[k] for k in targets[row, : 2 * n].tolist())
        assert following == text[1 : 2 * n] + "$"
        assert (targets[row, 2 * n :] == -100).all()


@given(NS, st.data())
def test_anbn_correct_fails_exactly_the_rows_with_an_illegal_prediction(ns, data):
    _, targets = anbn(ns)
    logits = functional.one_hot(targets.clamp(min=0), 3).double()  # (K, L, 3): every prediction right
    assert anbn_correct(logits, ns).all()
    row = data.draw(st.integers(0, len(ns) - 1))
    n = ns[row]
    step = data.draw(st.integers(0, 2 * n - 1))
    guess = data.draw(st.sampled_from([k for k in range(3) if k != targets[row, step].item()]))
    logits[row, step] = functional.one_hot(torch.tensor(guess), 3).double()
    correct = anbn_correct(logits, ns)
    # after an a, "a" and "b" are both legal and "$" never is; after a b only the target is
    assert correct[row].item() == (step < n and SYMBOLS[guess] != "$")
    assert correct[[k for k in range(len(ns)) if k != row]].all()


@given(NS)
def test_anbn_correct_accepts_any_a_or_b_while_the_as_are_read(ns):
    _, targets = anbn(ns)
    logits = functional.one_hot(targets.clamp(min=0), 3).double()
    for row, n in enumerate(ns):
        logits[row, :n] = functional.one_hot(torch.tensor(1), 3).double()  # always "b" among the a's
    assert anbn_correct(logits, ns).all()
    logits[:, 0] = functional.one_hot(torch.tensor(2), 3).double()  # "$" after the first a
    assert not anbn_correct(logits, ns).any()


@given(st.integers(1, 30), st.integers(0, 50))
def test_nesting_depth_counts_the_open_brackets(lines, seed):
    text = bracket_text(lines, seed=seed)
    depth = nesting_depth(text)
    assert depth.shape == (len(text),)
    assert depth.min() == 0
    assert depth[-1] == 0
    rows = closing_brackets(text)
    for position, level, _ in rows.tolist():  # after a closer, one fewer than the pair's depth
        assert depth[position] == level - 1
    for position, char in enumerate(text):
        if char in PAIRS:
            assert depth[position] == (depth[position - 1] if position else 0) + 1
