"""The masked loss over a padded batch: it counts each sequence's own steps, nothing else."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from rnndoc.masking import length_mask, masked_mean


@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 3), st.integers(0, 2**31 - 1))
def test_masked_mean_is_the_mean_over_each_sequences_own_steps(lengths, extra, seed):
    gen = torch.Generator().manual_seed(seed)
    per_sequence = [torch.rand(n, generator=gen, dtype=torch.float64) for n in lengths]  # each (T_b,)
    # (max T_b + extra, N): whatever sits on padding, here NaN, must not count
    padded = pad_sequence(per_sequence, padding_value=float("nan"))
    padded = torch.cat([padded, torch.full((extra, len(lengths)), float("nan"), dtype=torch.float64)])
    lens = torch.tensor(lengths)
    expected = torch.cat(per_sequence).mean()
    # values in [0, 1): summed in another order, the means differ by round-off only
    torch.testing.assert_close(masked_mean(padded, lens), expected, rtol=0, atol=1e-15)
    # the same mean as the loss on a PackedSequence's data, which holds the real steps only
    packed = pack_padded_sequence(padded, lens, enforce_sorted=False).data
    torch.testing.assert_close(masked_mean(padded, lens), packed.mean(), rtol=0, atol=1e-15)


def test_gradient_reaches_real_steps_only():
    losses = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)  # (L, N)
    masked_mean(losses, torch.tensor([3, 1])).backward()
    assert losses.grad.tolist() == [[0.25, 0.25], [0.25, 0.0], [0.25, 0.0]]


def test_length_mask_rows_are_steps():
    assert length_mask(torch.tensor([1, 3]), 4).tolist() == [
        [True, True],
        [False, True],
        [False, True],
        [False, False],
    ]


@pytest.mark.parametrize(
    ("losses", "lengths", "error", "match"),
    [
        (torch.zeros(3, 2), torch.tensor([4, 1]), ValueError, r"lengths must lie in \[1, total_length=3\]"),
        (torch.zeros(3, 2), torch.tensor([0, 1]), ValueError, r"lengths must lie in"),
        (torch.zeros(3, 2), torch.tensor([1, 2, 3]), ValueError, r"lengths must have shape \(N,\) = \(2,\)"),
        (torch.zeros(3, 2), torch.tensor([1.0, 2.0]), TypeError, "lengths must be an integer"),
        (torch.zeros(3), torch.tensor([1]), ValueError, r"losses must have shape \(L, N\)"),
        (
            torch.zeros(3, 2, dtype=torch.int64),
            torch.tensor([1, 2]),
            TypeError,
            "losses must have a floating",
        ),
    ],
)
def test_bad_arguments_are_named(losses, lengths, error, match):
    with pytest.raises(error, match=match):
        masked_mean(losses, lengths)
