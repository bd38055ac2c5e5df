"""The sentences the training chapters choose from their measured values, one function each."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "carry",
    "compared",
    "dip_check",
    "dip_text",
    "first_b_moves",
    "fit_text",
    "forget_note",
    "gru_loss_text",
    "in_runs",
    "late_text",
    "listed",
    "median_missed_text",
    "minus",
    "norm_reach_text",
    "other_depth_cells",
    "output_open_text",
    "passes",
    "seeds",
    "short_lead",
    "short_meaning",
    "step_down_text",
]


def minus(value: float, spec: str) -> str:
    """A number formatted by ``spec``, with a typographic minus sign.

    Parameters
    ----------
    value : float
        The number.
    spec : str
        A format specification, as for the built-in ``format``.

    Returns
    -------
    str
        The formatted number, its ``-`` replaced by U+2212.

    Examples
    --------
    >>> from rnndoc.wording import minus
    >>> print(minus(-1.02, ".2f"))
    −1.02
    >>> print(minus(0.5, "+.2f"))
    +0.50
    """
    return format(value, spec).replace("-", "\u2212")


def listed(items: Iterable[object]) -> str:
    """Items joined as a list in a sentence.

    Parameters
    ----------
    items : iterable
        The items, written with :class:`str`.

    Returns
    -------
    str
        ``'a'``, ``'a and b'``, ``'a, b and c'``; ``'none'`` for no items.

    Examples
    --------
    >>> from rnndoc.wording import listed
    >>> print(listed([0, 1, 2]))
    0, 1 and 2
    >>> print(listed([]))
    none
    """
    words = [str(item) for item in items]
    if len(words) > 1:
        words = [", ".join(words[:-1]), words[-1]]
    return " and ".join(words) or "none"


def seeds(items: Iterable[object]) -> str:
    """Seeds named in a sentence, with the noun in the right number.

    Parameters
    ----------
    items : iterable
        The seeds.

    Returns
    -------
    str
        ``'seed 2'`` for one seed, ``'seeds 1 and 2'`` for more.

    Examples
    --------
    >>> from rnndoc.wording import seeds
    >>> print(seeds([2]))
    seed 2
    >>> print(seeds([1, 2]))
    seeds 1 and 2
    """
    items = list(items)
    return ("seed " if len(items) == 1 else "seeds ") + listed(items)


def in_runs(held: int, runs: int, noun: str = "run") -> str:
    """In how many of the runs a claim held, as a phrase that ends a clause.

    Parameters
    ----------
    held : int
        The runs in which it held, from 0 to ``runs``.
    runs : int
        The runs, at least one.
    noun : str, optional
        What a run is called (``'seed'``: ``'in both seeds'``); its plural adds an s.

    Returns
    -------
    str
        ``'in 2 of the 3 runs'``; ``'in all 3 runs'``, ``'in both runs'`` or
        ``'in the one run'`` when it held in every run; ``'in none of the 3 runs'``,
        ``'in neither run'`` or ``'in no run'`` when it held in none.

    Examples
    --------
    >>> from rnndoc.wording import in_runs
    >>> print(in_runs(2, 3))
    in 2 of the 3 runs
    >>> print(in_runs(3, 3))
    in all 3 runs
    >>> print(in_runs(0, 2, "seed"))
    in neither seed
    """
    if runs < 1 or not 0 <= held <= runs:
        raise ValueError(f"held must be in 0..runs and runs at least 1, got {held}, {runs}")
    many = noun + "s"
    if held == runs:
        return {1: f"in the one {noun}", 2: f"in both {many}"}.get(runs, f"in all {runs} {many}")
    if held == 0:
        return {1: f"in no {noun}", 2: f"in neither {noun}"}.get(runs, f"in none of the {runs} {many}")
    return f"in {held} of the {runs} {many}"


def compared(value: float, other: float) -> str:
    """How much higher or lower a value is than another, both as shown to two decimals.

    Parameters
    ----------
    value, other : float
        The two values; each is rounded to two decimals first, so that the difference is
        the one between the numbers the text shows.

    Returns
    -------
    str
        ``'0.06 higher than'`` or ``'0.06 lower than'``; ``'the same, to two decimals, as'``
        when the difference rounds to zero.

    Examples
    --------
    >>> from rnndoc.wording import compared
    >>> print(compared(0.886, 0.834))
    0.06 higher than
    >>> print(compared(0.5, 0.5))
    the same, to two decimals, as
    """
    shown, other_shown = float(format(value, ".2f")), float(format(other, ".2f"))
    gap = format(abs(shown - other_shown), ".2f")
    if float(gap) == 0:
        return "the same, to two decimals, as"
    return f"{gap} {'higher' if shown > other_shown else 'lower'} than"


# --- the adding problem -------------------------------------------------------------------


def dip_text(lowest: float, step: int, dipped: bool) -> str:
    """What the raised-bias LSTM's Jacobian across the lag does near the threshold.

    Parameters
    ----------
    lowest : float
        Its lowest value over the evaluations.
    step : int
        The step of that lowest value.
    dipped : bool
        Whether some evaluation was below the threshold.

    Returns
    -------
    str
        A phrase that follows "starts far above it and".

    Examples
    --------
    >>> from rnndoc.wording import dip_text
    >>> print(dip_text(0.49, 700, True))
    dips just below it, to 0.49 at step 700, but only before half of its answers were right
    >>> print(dip_text(0.51, 700, False))
    dips toward it but stays above it (its lowest, 0.51 at step 700)
    """
    low = f"{lowest:.2f} at step {step}"
    if dipped:
        return f"dips just below it, to {low}, but only before half of its answers were right"
    return f"dips toward it but stays above it (its lowest, {low})"


def dip_check(dipped: bool, last_below: int | None, learned: int) -> str:
    """The Checks box's words on the same dip.

    Parameters
    ----------
    dipped : bool
        Whether some evaluation was below the threshold.
    last_below : int or None
        The last such evaluation's step (unused when ``dipped`` is false).
    learned : int
        The step at which half of its answers were first right.

    Returns
    -------
    str
        A phrase that follows "and".

    Examples
    --------
    >>> from rnndoc.wording import dip_check
    >>> print(dip_check(True, 700, 1200))
    below it only before half of its answers were right (the last such evaluation at step 700, against 1200)
    >>> print(dip_check(False, None, 1200))
    at or above it at every evaluation
    """
    if dipped:
        return (
            "below it only before half of its answers were right (the last such "
            f"evaluation at step {last_below}, against {learned})"
        )
    return "at or above it at every evaluation"


def late_text(last_failed: int, budget: int) -> str:
    """How late the solving LSTM still counted as failed, against the tanh RNN's budget.

    Parameters
    ----------
    last_failed : int
        The last step at which it counted as failed.
    budget : int
        The tanh RNN's budget of steps.

    Returns
    -------
    str
        A parenthetical phrase.

    Examples
    --------
    >>> from rnndoc.wording import late_text
    >>> print(late_text(1100, 1000))
    as late as the tanh RNN's whole budget or later
    >>> print(late_text(800, 1000))
    80 % of the way into the tanh RNN's budget
    """
    if last_failed >= budget:
        return "as late as the tanh RNN's whole budget or later"
    return f"{100 * last_failed / budget:.0f} % of the way into the tanh RNN's budget"


# --- the language model -------------------------------------------------------------------


def norm_reach_text(largest: float, threshold: float, above: int) -> str:
    """Whether an unclipped run's gradient norm reached the chapter's clipping threshold.

    Parameters
    ----------
    largest : float
        The largest unclipped norm of the run.
    threshold : float
        The chapter's clipping threshold.
    above : int
        The steps whose norm was above the threshold.

    Returns
    -------
    str
        A sentence.

    Examples
    --------
    >>> from rnndoc.wording import norm_reach_text
    >>> print(norm_reach_text(0.93, 1.0, 0))
    In this run the largest unclipped norm, 0.93, stays below the chapter's threshold 1, so clipping at 1 would have changed none of these steps.
    >>> print(norm_reach_text(1.5, 1.0, 2))
    In this run the largest unclipped norm, 1.50, passes the chapter's threshold 1, on 2 of these steps.
    """
    head = f"In this run the largest unclipped norm, {largest:.2f},"
    if above == 0:
        return (
            f"{head} stays below the chapter's threshold {threshold:g}, so clipping at "
            f"{threshold:g} would have changed none of these steps."
        )
    steps = "one of these steps" if above == 1 else f"{above} of these steps"
    return f"{head} passes the chapter's threshold {threshold:g}, on {steps}."


# --- inside the language model ------------------------------------------------------------


def other_depth_cells(cells: Sequence[tuple[int, int, float]]) -> str:
    """The depth cells of the seeds other than the one shown, as a sentence.

    Parameters
    ----------
    cells : sequence of (int, int, float)
        For each other seed: its depth cell, the seed and the correlation (absolute value).

    Returns
    -------
    str
        A sentence; one that says no other seed was run when ``cells`` is empty.

    Examples
    --------
    >>> from rnndoc.wording import other_depth_cells
    >>> print(other_depth_cells([(21, 1, 0.891), (20, 2, 0.833)]))
    The depth cells of the other seeds run here: cell 21 of seed 1, correlation 0.89; cell 20 of seed 2, correlation 0.83.
    >>> print(other_depth_cells([]))
    No other seed was run here.
    """
    if not cells:
        return "No other seed was run here."
    found = "; ".join(f"cell {cell} of seed {seed}, correlation {r:.2f}" for cell, seed, r in cells)
    return f"The depth cells of the other seeds run here: {found}."


def step_down_text(
    missed: Sequence[int],
    forgetting: Sequence[int],
    close_write: float,
    open_write: float,
    close_f: float,
    inside_f: float,
) -> str:
    """The sentence on the runs whose closing brackets write no step down.

    Parameters
    ----------
    missed : sequence of int
        Those runs' seeds.
    forgetting : sequence of int
        Those of them whose cell comes down through its forget gate instead.
    close_write, open_write : float
        The first such seed's mean write at a closing and at an opening bracket.
    close_f, inside_f : float
        Its mean forget gate at closing brackets and between brackets.

    Returns
    -------
    str
        A sentence (two when the run forgets instead).

    Examples
    --------
    >>> from rnndoc.wording import step_down_text
    >>> print(step_down_text([], [], 0, 0, 0, 0))
    Every run's closing brackets write such a step down.
    >>> print(step_down_text([2], [], -0.3, 0.6, 0.8, 0.9))
    In seed 2 a closing bracket writes only −0.30 (against +0.60 at an opener); its forget gate is 0.80 at closing brackets from 0.90 between them.
    """
    if not missed:
        return "Every run's closing brackets write such a step down."
    first = missed[0]
    write = f"{seeds([first])} a closing bracket writes only {minus(close_write, '+.2f')}"
    write += f" (against {minus(open_write, '+.2f')} at an opener)"
    text = (f"Not in {seeds(missed)}: in " if len(missed) > 1 else "In ") + write
    f_at = f"{close_f:.2f} at closing brackets from {inside_f:.2f} between them"
    if first in forgetting:
        return text + (
            ", and the cell comes down through its forget gate instead,"
            f" which falls to {f_at}: it forgets part of the count rather"
            " than subtracting a step."
        )
    return text + f"; its forget gate is {f_at}."


def forget_note(missed: Sequence[int], lowest: float) -> str:
    """Where the forget gate between brackets was not above the chapter's level, and its lowest.

    Parameters
    ----------
    missed : sequence of int
        The seeds where it was not.
    lowest : float
        The lowest mean forget gate between brackets over the runs.

    Returns
    -------
    str
        A phrase that follows "is above" and the level.

    Examples
    --------
    >>> from rnndoc.wording import forget_note
    >>> print(forget_note([2], 0.904))
    except in seed 2; lowest of the runs 0.90
    >>> print(forget_note([], 0.97))
    in every run; lowest of the runs 0.97
    """
    where = f"except in {seeds(missed)}" if missed else "in every run"
    return f"{where}; lowest of the runs {lowest:.2f}"


def output_open_text(lowest: float, threshold: float) -> str:
    """Whether the output gate of the seed shown passes more than half of the count everywhere.

    Parameters
    ----------
    lowest : float
        Its depth cell's lowest mean output gate over the kinds of character.
    threshold : float
        The level the chapter compares it with.

    Returns
    -------
    str
        A sentence.

    Examples
    --------
    >>> from rnndoc.wording import output_open_text
    >>> print(output_open_text(0.6, 0.5))
    Its mean is above 0.5 on every kind of character (lowest 0.60), so on average more than half of the squashed count (the tanh of the cell state) reaches the hidden state.
    >>> print(output_open_text(0.4, 0.5))
    Its mean falls to 0.40 on one kind of character, so there less than half of the squashed count (the tanh of the cell state) reaches the hidden state.
    """
    if lowest > threshold:
        return (
            f"Its mean is above {threshold:g} on every kind of character (lowest {lowest:.2f}), "
            "so on average more than half of the squashed count (the tanh of the cell state) "
            "reaches the hidden state."
        )
    return (
        f"Its mean falls to {lowest:.2f} on one kind of character, so there less than half of "
        "the squashed count (the tanh of the cell state) reaches the hidden state."
    )


def median_missed_text(
    missed: Sequence[int],
    medians: dict[int, float],
    lower_f: bool,
    f_between: dict[int, float],
    level: float,
) -> str:
    """The sentence on the runs whose median product of forget gates is not above a level.

    Parameters
    ----------
    missed : sequence of int
        Those runs' seeds.
    medians : dict of int to float
        Each run's median product.
    lower_f : bool
        Whether each of them has a lower mean forget gate between brackets than every
        other run.
    f_between : dict of int to float
        Each run's mean forget gate between brackets.
    level : float
        The level (one half in the chapter).

    Returns
    -------
    str
        A sentence.

    Examples
    --------
    >>> from rnndoc.wording import median_missed_text
    >>> print(median_missed_text([], {}, False, {}, 0.5))
    Every run's median is above 0.5.
    >>> print(median_missed_text([2], {2: 0.42}, True, {2: 0.9}, 0.5))
    Below 0.5: seed 2 (median 0.42), whose depth cell's forget gate is lower between brackets (0.90 on average) than in the other runs.
    """
    if not missed:
        return f"Every run's median is above {level:g}."
    below = listed(f"seed {s} (median {medians[s]:.2f})" for s in missed)
    text = f"Below {level:g}: {below}"
    if lower_f:
        f_low = "; ".join(f"{f_between[s]:.2f}" for s in missed)
        text += (
            ", whose depth cell's forget gate is lower between brackets"
            f" ({f_low} on average) than in the other runs"
        )
    return text + "."


# --- counting ------------------------------------------------------------------------------


def _span(values: Sequence[int]) -> str:
    """'20' when all values are equal, else '20 to 74'."""
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low} to {high}"


def fit_text(gru_fit: Sequence[int], lstm_fit: Sequence[int]) -> str:
    """The reaches of the GRU and LSTM seeds that got every training string right.

    Parameters
    ----------
    gru_fit, lstm_fit : sequence of int
        The reaches of those seeds (at least one LSTM seed).

    Returns
    -------
    str
        A sentence.

    Examples
    --------
    >>> from rnndoc.wording import fit_text
    >>> print(fit_text([8, 9], [12, 20]))
    Among the seeds that got every training string right (2 GRU, 2 LSTM seeds) the GRU's reach is 8 to 9 and the LSTM's 12 to 20: every LSTM reach above every GRU reach (asserted).
    >>> print(fit_text([], [12, 20]))
    No GRU seed got every training string right; the 2 LSTM seeds that did reach 12 to 20.
    """
    lstm_seeds = "1 LSTM seed" if len(lstm_fit) == 1 else f"{len(lstm_fit)} LSTM seeds"
    if gru_fit:
        return (
            f"Among the seeds that got every training string right ({len(gru_fit)} GRU, "
            f"{lstm_seeds}) the GRU's reach is {_span(gru_fit)} and the LSTM's "
            f"{_span(lstm_fit)}: every LSTM reach above every GRU reach (asserted)."
        )
    if len(lstm_fit) == 1:
        return (
            f"No GRU seed got every training string right; the one LSTM seed that did reaches {lstm_fit[0]}."
        )
    return f"No GRU seed got every training string right; the {lstm_seeds} that did reach {_span(lstm_fit)}."


def gru_loss_text(rnn_lowest: float, gru_highest: float) -> str:
    """Whether the tanh RNN's lowest last loss is above every GRU seed's.

    Parameters
    ----------
    rnn_lowest : float
        The lowest last training loss over the tanh RNN's seeds.
    gru_highest : float
        The highest over the GRU's.

    Returns
    -------
    str
        A phrase that follows a comma.

    Examples
    --------
    >>> from rnndoc.wording import gru_loss_text
    >>> print(gru_loss_text(0.3, 0.2))
    and above every GRU seed's too (measured, not asserted)
    >>> print(gru_loss_text(0.3, 0.4))
    though not above every GRU seed's
    """
    if rnn_lowest > gru_highest:
        return "and above every GRU seed's too (measured, not asserted)"
    return "though not above every GRU seed's"


def first_b_moves(first_b: float) -> str:
    """What the counting cell does at the first b.

    Parameters
    ----------
    first_b : float
        Its change at the first b.

    Returns
    -------
    str
        A phrase.

    Examples
    --------
    >>> from rnndoc.wording import first_b_moves
    >>> print(first_b_moves(0.25))
    still goes up, by 0.25: the switch from adding to taking away comes one symbol late
    >>> print(first_b_moves(-0.25))
    already goes down, by 0.25: the switch from adding to taking away comes right there
    """
    if first_b > 0:
        return f"still goes up, by {first_b:.2f}: the switch from adding to taking away comes one symbol late"
    return f"already goes down, by {-first_b:.2f}: the switch from adding to taking away comes right there"


def short_lead(past: int) -> str:
    """Whether the LSTM trained on short strings predicts past its training range.

    Parameters
    ----------
    past : int
        How far its reach lies past the training range.

    Returns
    -------
    str
        A clause.

    Examples
    --------
    >>> from rnndoc.wording import short_lead
    >>> print(short_lead(1))
    it predicts past the training range, but only just
    >>> print(short_lead(0))
    it does not predict past the training range
    """
    if past > 0:
        how = "but only just" if past <= 2 else "by several n"
        return f"it predicts past the training range, {how}"
    return "it does not predict past the training range"


def carry(past: int) -> str:
    """How far the counter of the LSTM trained on short strings carries.

    Parameters
    ----------
    past : int
        How far its reach lies past the training range.

    Returns
    -------
    str
        A phrase that follows "its counter".

    Examples
    --------
    >>> from rnndoc.wording import carry
    >>> print(carry(1))
    carries one n past the training range
    >>> print(carry(0))
    does not carry past the training range
    """
    if past > 0:
        far = {1: "one n", 2: "two n", 3: "three n"}.get(past, f"{past} n")
        return f"carries {far} past the training range"
    return "does not carry past the training range"


def passes(ok: bool) -> str:
    """A check's verdict as a verb.

    Parameters
    ----------
    ok : bool
        Whether the check held.

    Returns
    -------
    str
        ``'passes'`` or ``'fails'``.

    Examples
    --------
    >>> from rnndoc.wording import passes
    >>> print(passes(True))
    passes
    """
    return "passes" if ok else "fails"


def short_meaning(reach_ok: bool, show_ok: bool, past: int) -> str:
    """What the counting-cell check on the two strings says of the short-trained LSTM.

    Parameters
    ----------
    reach_ok : bool
        Whether a cell passes on the string at its reach.
    show_ok : bool
        Whether a cell passes on the chapter's longer string.
    past : int
        How far its reach lies past the training range.

    Returns
    -------
    str
        A clause.

    Examples
    --------
    >>> from rnndoc.wording import short_meaning
    >>> print(short_meaning(True, False, 1))
    its counter carries one n past the training range, not to the length the counters above were found on
    >>> print(short_meaning(False, False, 1))
    it predicts the strings it reaches without a cell that passes the check
    """
    above = "the length the counters above were found on"
    if reach_ok and not show_ok:
        if past <= 0:
            return f"its counter {carry(past)}, let alone to {above}"
        return f"its counter {carry(past)}, not to {above}"
    if reach_ok:
        return f"its counter carries to {above} too"
    if show_ok:
        return "a cell passes on the longer string, not on the string at the reach"
    return "it predicts the strings it reaches without a cell that passes the check"
