"""Every branch of the training chapters' generated sentences (rnndoc.wording), word for word.

A chapter runs only the branch its measurements choose on the machine that builds it; these
tests run the others, so a broken sentence shows here and not first on another CPU.
"""

from __future__ import annotations

import pytest

from rnndoc import wording


def test_minus_and_lists():
    assert wording.minus(-1.02, ".2f") == "\u22121.02"
    assert wording.minus(0.81, "+.2f") == "+0.81"
    assert wording.listed([]) == "none"
    assert wording.listed([3]) == "3"
    assert wording.listed([1, 2]) == "1 and 2"
    assert wording.listed([0, 1, 2]) == "0, 1 and 2"
    assert wording.seeds([2]) == "seed 2"
    assert wording.seeds([1, 2]) == "seeds 1 and 2"
    assert wording.seeds([0, 1, 2]) == "seeds 0, 1 and 2"


@pytest.mark.parametrize(
    ("held", "runs", "phrase"),
    [
        (1, 1, "in the one run"),
        (0, 1, "in no run"),
        (2, 2, "in both runs"),
        (1, 2, "in 1 of the 2 runs"),
        (0, 2, "in neither run"),
        (3, 3, "in all 3 runs"),
        (2, 3, "in 2 of the 3 runs"),
        (1, 3, "in 1 of the 3 runs"),
        (0, 3, "in none of the 3 runs"),
    ],
)
def test_in_runs(held, runs, phrase):
    assert wording.in_runs(held, runs) == phrase


@pytest.mark.parametrize(
    ("held", "runs", "phrase"),
    [
        (1, 1, "in the one seed"),
        (0, 1, "in no seed"),
        (2, 2, "in both seeds"),
        (1, 2, "in 1 of the 2 seeds"),
        (0, 2, "in neither seed"),
        (4, 4, "in all 4 seeds"),
        (3, 4, "in 3 of the 4 seeds"),
        (0, 4, "in none of the 4 seeds"),
    ],
)
def test_in_runs_names_the_runs(held, runs, phrase):
    assert wording.in_runs(held, runs, "seed") == phrase


@pytest.mark.parametrize(("held", "runs"), [(-1, 3), (4, 3), (0, 0)])
def test_in_runs_refuses_impossible_counts(held, runs):
    with pytest.raises(ValueError, match="held must be"):
        wording.in_runs(held, runs)


def test_compared():
    assert wording.compared(0.89, 0.83) == "0.06 higher than"
    assert wording.compared(0.80, 0.83) == "0.03 lower than"
    assert wording.compared(0.886, 0.834) == "0.06 higher than"  # as the text shows them
    assert wording.compared(0.831, 0.829) == "the same, to two decimals, as"


def test_adding_problem_sentences():
    assert wording.dip_text(0.494, 700, True) == (
        "dips below it, to 0.49 at step 700, but only before half of its answers were right"
    )
    assert wording.dip_text(0.514, 700, False) == (
        "dips toward it but stays above it (its lowest, 0.51 at step 700)"
    )
    assert wording.dip_check(True, 700, 1200) == (
        "below it only before half of its answers were right (the last such evaluation at "
        "step 700, against 1200)"
    )
    assert wording.dip_check(False, None, 1200) == "at or above it at every evaluation"
    assert wording.late_text(1100, 1000) == "as late as the tanh RNN's whole budget or later"
    assert wording.late_text(1000, 1000) == "as late as the tanh RNN's whole budget or later"
    assert wording.late_text(800, 1000) == "80 % of the way into the tanh RNN's budget"


def test_language_model_sentences():
    assert wording.norm_reach_text(0.934, 1.0, 0) == (
        "In this run the largest unclipped norm, 0.93, stays below the chapter's threshold 1, "
        "so clipping at 1 would have changed none of these steps."
    )
    assert wording.norm_reach_text(1.2, 1.0, 1) == (
        "In this run the largest unclipped norm, 1.20, passes the chapter's threshold 1, "
        "on one of these steps."
    )
    assert wording.norm_reach_text(1.5, 1.0, 3) == (
        "In this run the largest unclipped norm, 1.50, passes the chapter's threshold 1, on 3 of these steps."
    )


def test_inside_language_model_sentences():
    assert wording.other_depth_cells([(21, 1, 0.891), (20, 2, -0.833)][:1]) == (
        "The depth cells of the other seeds run here: cell 21 of seed 1, correlation 0.89."
    )
    assert wording.other_depth_cells([(21, 1, 0.891), (20, 2, 0.833)]) == (
        "The depth cells of the other seeds run here: cell 21 of seed 1, correlation 0.89; "
        "cell 20 of seed 2, correlation 0.83."
    )
    assert wording.other_depth_cells([]) == "No other seed was run here."
    assert wording.step_down_text([], [], 0, 0, 0, 0) == (
        "Every run's closing brackets write such a step down."
    )
    assert wording.step_down_text([2], [2], -0.02, 0.6, 0.42, 0.9) == (
        "In seed 2 a closing bracket writes only \u22120.02 (against +0.60 at an opener), and the "
        "cell comes down through its forget gate instead, which falls to 0.42 at closing "
        "brackets from 0.90 between them: it forgets part of the count rather than "
        "subtracting a step."
    )
    assert wording.step_down_text([1, 2], [], -0.3, 0.6, 0.8, 0.9) == (
        "Not in seeds 1 and 2: in seed 1 a closing bracket writes only \u22120.30 (against +0.60 "
        "at an opener); its forget gate is 0.80 at closing brackets from 0.90 between them."
    )
    assert wording.forget_note([2], 0.904) == "except in seed 2; lowest of the runs 0.90"
    assert wording.forget_note([1, 2], 0.9) == "except in seeds 1 and 2; lowest of the runs 0.90"
    assert wording.forget_note([], 0.97) == "in every run; lowest of the runs 0.97"
    assert wording.output_open_text(0.6, 0.5) == (
        "Its mean is above 0.5 on every kind of character (lowest 0.60), so on "
        "average more than half of the squashed count (the tanh of the cell state) reaches "
        "the hidden state."
    )
    assert wording.output_open_text(0.4, 0.5) == (
        "Its mean falls to 0.40 on at least one kind of character, so there at most half "
        "of the squashed count (the tanh of the cell state) reaches the hidden state."
    )
    assert wording.median_missed_text([], {}, False, {}, 0.5) == "Every run's median is above 0.5."
    assert wording.median_missed_text([2], {2: 0.423}, True, {2: 0.904}, 0.5) == (
        "Below 0.5: seed 2 (median 0.42), whose depth cell's forget gate is lower between "
        "brackets (0.90 on average) than in the other runs."
    )
    assert wording.median_missed_text([1, 2], {1: 0.3, 2: 0.4}, False, {}, 0.5) == (
        "Below 0.5: seed 1 (median 0.30) and seed 2 (median 0.40)."
    )
    assert wording.median_missed_text([1, 2], {1: 0.3, 2: 0.4}, True, {1: 0.8, 2: 0.9}, 0.5) == (
        "Below 0.5: seed 1 (median 0.30) and seed 2 (median 0.40), whose depth cell's forget "
        "gate is lower between brackets (0.80; 0.90 on average) than in the other runs."
    )


def test_counting_sentences():
    assert wording.fit_text([8, 9], [12, 20]) == (
        "Among the seeds that got every training string right (2 GRU, 2 LSTM seeds) the GRU's "
        "reach is 8 to 9 and the LSTM's 12 to 20: every LSTM reach above every GRU reach "
        "(asserted)."
    )
    assert wording.fit_text([20], [22, 74]) == (
        "Among the seeds that got every training string right (1 GRU, 2 LSTM seeds) the GRU's "
        "reach is 20 and the LSTM's 22 to 74: every LSTM reach above every GRU reach "
        "(asserted)."
    )
    assert wording.fit_text([8, 9], [30]) == (
        "Among the seeds that got every training string right (2 GRU, 1 LSTM seed) the GRU's "
        "reach is 8 to 9 and the LSTM's 30: every LSTM reach above every GRU reach "
        "(asserted)."
    )
    assert wording.fit_text([], [30]) == (
        "No GRU seed got every training string right; the one LSTM seed that did reaches 30."
    )
    assert wording.fit_text([], [30, 30]) == (
        "No GRU seed got every training string right; the 2 LSTM seeds that did reach 30."
    )
    assert wording.fit_text([], [12, 20]) == (
        "No GRU seed got every training string right; the 2 LSTM seeds that did reach 12 to 20."
    )
    assert wording.gru_loss_text(0.3, 0.2) == ("and above every GRU seed's too (measured, not asserted)")
    assert wording.gru_loss_text(0.3, 0.4) == "though not above every GRU seed's"
    assert wording.first_b_moves(0.25) == (
        "still goes up, by 0.25: the switch from adding to taking away comes one symbol late"
    )
    assert wording.first_b_moves(-0.25) == (
        "already goes down, by 0.25: the switch from adding to taking away comes right there"
    )
    assert wording.short_lead(1) == "it predicts past the training range, but only just"
    assert wording.short_lead(2) == "it predicts past the training range, but only just"
    assert wording.short_lead(5) == "it predicts past the training range, by several n"
    assert wording.short_lead(0) == "it does not predict past the training range"
    assert wording.short_lead(-2) == "it does not predict past the training range"
    assert wording.carry(1) == "carries one n past the training range"
    assert wording.carry(3) == "carries three n past the training range"
    assert wording.carry(7) == "carries 7 n past the training range"
    assert wording.carry(0) == "does not carry past the training range"
    assert wording.passes(True) == "passes"
    assert wording.passes(False) == "fails"
    above = "the length the counters above were found on"
    assert wording.short_meaning(True, False, 1) == (
        f"its counter carries one n past the training range, not to {above}"
    )
    assert wording.short_meaning(True, False, 0) == (
        f"its counter does not carry past the training range, let alone to {above}"
    )
    assert wording.short_meaning(True, True, 1) == f"its counter carries to {above} too"
    assert wording.short_meaning(False, True, 1) == (
        "a cell passes on the longer string, not on the string at the reach"
    )
    assert wording.short_meaning(False, False, 1) == (
        "it predicts the strings it reaches without a cell that passes the check"
    )


def test_first_b_takes_text_says_whether_the_seeds_differ():
    assert wording.first_b_takes_text(1, 3) == (
        "Seeds differ here: of the 3 seeds with a counting cell, the first b already takes away in 1."
    )
    assert (
        wording.first_b_takes_text(3, 3)
        == "In all 3 seeds with a counting cell the first b already takes away."
    )
    assert (
        wording.first_b_takes_text(1, 1)
        == "In the one seed with a counting cell the first b already takes away."
    )
    assert wording.first_b_takes_text(0, 2) == "In both seeds with a counting cell the first b still adds."
    assert wording.first_b_takes_text(0, 4) == "In all 4 seeds with a counting cell the first b still adds."


def test_gru_vs_rnn_text_says_behind_or_not_clearly_ahead():
    assert wording.gru_vs_rnn_text([2.61, 2.62], [2.65, 2.68]) == (
        "behind the tanh RNN: its perplexity is higher in every seed, the two ranges apart"
    )
    assert wording.gru_vs_rnn_text([2.61, 2.66], [2.65, 2.63]) == (
        "not clearly ahead of the tanh RNN: the two ranges overlap, and the tanh RNN is the lower "
        "of the two in 1 of the 2 seeds"
    )
    assert wording.gru_vs_rnn_text([2.6], [2.6]).endswith("in no seed")
