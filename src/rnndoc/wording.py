"""The sentences the training chapters choose from their measured values, one function each.

Every public function checks its arguments first (``rnndoc._validate``): a value of the
wrong type raises ``TypeError``, one out of range, or measurements that contradict each other
(a sentence that would be false), ``ValueError``; each message names the argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ._validate import (
    check_bool,
    check_float,
    check_int,
    check_mapping,
    check_numbers,
    check_sequence,
    check_str,
)

__all__ = [
    "carry",
    "compared",
    "dip_check",
    "dip_text",
    "first_b_moves",
    "first_b_takes_text",
    "fit_text",
    "forget_note",
    "gru_loss_text",
    "gru_vs_rnn_text",
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


# --- the checks at the front doors ---------------------------------------------------------


def _items(name: str, value: object) -> list[object]:
    """``value``, an iterable that is not a str, as a list."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be an iterable of items (not a str), got {type(value).__name__}")
    return list(value)


def _ints(name: str, value: object, *, minimum: int | None = 0, non_empty: bool = False) -> list[int]:
    """``value``, a sequence of ints (each at least ``minimum``), as a list."""
    values = check_sequence(name, value, "a sequence of ints", non_empty=non_empty)
    return [check_int(f"{name}[{k}]", v, minimum=minimum) for k, v in enumerate(values)]


def _fraction(name: str, value: object) -> float:
    """``value``, a finite number in [0, 1] (a gate's mean, a product of gates), as a float."""
    number = check_float(name, value, minimum=0.0)
    if number > 1:
        raise ValueError(f"{name} must be at most 1, got {value!r}")
    return number


def _by_seed(name: str, value: object) -> dict[int, float]:
    """``value``, a mapping of seeds (ints, at least 0) to numbers in [0, 1], as a dict."""
    mapping = check_mapping(name, value)
    return {
        check_int(f"{name} key (a seed)", seed, minimum=0): _fraction(f"{name}[{seed!r}]", number)
        for seed, number in mapping.items()
    }


# --- words --------------------------------------------------------------------------------


def _listed(words: list[str]) -> str:
    """The words joined as in a sentence (:func:`listed`, unchecked)."""
    if len(words) > 1:
        words = [", ".join(words[:-1]), words[-1]]
    return " and ".join(words) or "none"


def _seeds(items: Sequence[int]) -> str:
    """The seeds named with the noun in the right number (:func:`seeds`, unchecked)."""
    return ("seed " if len(items) == 1 else "seeds ") + _listed([str(item) for item in items])


def _minus(value: float, spec: str) -> str:
    """The value formatted with a typographic minus (:func:`minus`, unchecked)."""
    return format(value, spec).replace("-", "\u2212")


def minus(value: float, spec: str) -> str:
    """A number formatted by ``spec``, with a typographic minus sign.

    Parameters
    ----------
    value : float
        The number (an int or a float, finite).
    spec : str
        A format specification, as for the built-in ``format``.

    Returns
    -------
    str
        The formatted number, its ``-`` replaced by U+2212.

    Raises
    ------
    TypeError
        If ``value`` is not a number (a bool is not) or ``spec`` not a str.
    ValueError
        If ``value`` is not finite or ``spec`` is not a format specification for it.

    Examples
    --------
    >>> from rnndoc.wording import minus
    >>> print(minus(-1.02, ".2f"))
    −1.02
    >>> print(minus(0.5, "+.2f"))
    +0.50
    """
    check_float("value", value)  # the value itself is formatted: an int keeps its int formats
    spec = check_str("spec", spec)
    try:
        return _minus(value, spec)
    except ValueError as error:
        raise ValueError(f"spec must be a format specification for value, got {spec!r}: {error}") from None


def listed(items: Iterable[object]) -> str:
    """Items joined as a list in a sentence.

    Parameters
    ----------
    items : iterable
        The items, written with :class:`str` (an iterable, but not a str itself).

    Returns
    -------
    str
        ``'a'``, ``'a and b'``, ``'a, b and c'``; ``'none'`` for no items.

    Raises
    ------
    TypeError
        If ``items`` is not an iterable, or is a str or bytes.

    Examples
    --------
    >>> from rnndoc.wording import listed
    >>> print(listed([0, 1, 2]))
    0, 1 and 2
    >>> print(listed([]))
    none
    """
    return _listed([str(item) for item in _items("items", items)])


def seeds(items: Iterable[int]) -> str:
    """Seeds named in a sentence, with the noun in the right number.

    Parameters
    ----------
    items : iterable of int
        The seeds, at least one, each an int of at least 0.

    Returns
    -------
    str
        ``'seed 2'`` for one seed, ``'seeds 1 and 2'`` for more.

    Raises
    ------
    TypeError
        If ``items`` is not an iterable (or is a str) or a seed is not an int.
    ValueError
        If ``items`` is empty or a seed is below 0.

    Examples
    --------
    >>> from rnndoc.wording import seeds
    >>> print(seeds([2]))
    seed 2
    >>> print(seeds([1, 2]))
    seeds 1 and 2
    """
    values = _items("items", items)
    if not values:
        raise ValueError("items must hold at least one seed")
    return _seeds([check_int(f"items[{k}]", v, minimum=0) for k, v in enumerate(values)])


def in_runs(held: int, runs: int, noun: str = "run") -> str:
    """In how many of the runs a claim held, as a phrase that ends a clause.

    Parameters
    ----------
    held : int
        The runs in which it held, from 0 to ``runs``.
    runs : int
        The runs, at least one.
    noun : str, optional
        What a run is called (``'seed'``: ``'in both seeds'``), not empty; its plural adds
        an s.

    Returns
    -------
    str
        ``'in 2 of the 3 runs'``; ``'in all 3 runs'``, ``'in both runs'`` or
        ``'in the one run'`` when it held in every run; ``'in none of the 3 runs'``,
        ``'in neither run'`` or ``'in no run'`` when it held in none.

    Raises
    ------
    TypeError
        If ``held`` or ``runs`` is not an int, or ``noun`` not a str.
    ValueError
        If ``runs`` is below 1, ``held`` is not from 0 to ``runs`` or ``noun`` is empty.

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
    held, runs = check_int("held", held), check_int("runs", runs)
    if runs < 1 or not 0 <= held <= runs:
        raise ValueError(f"held must be in 0..runs and runs at least 1, got held={held}, runs={runs}")
    noun = check_str("noun", noun)
    if not noun:
        raise ValueError("noun must not be empty")
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
        The two values (finite); each is rounded to two decimals first, so that the
        difference is the one between the numbers the text shows.

    Returns
    -------
    str
        ``'0.06 higher than'`` or ``'0.06 lower than'``; ``'the same, to two decimals, as'``
        when the difference rounds to zero.

    Raises
    ------
    TypeError
        If ``value`` or ``other`` is not a number (a bool is not).
    ValueError
        If ``value`` or ``other`` is not finite.

    Examples
    --------
    >>> from rnndoc.wording import compared
    >>> print(compared(0.886, 0.834))
    0.06 higher than
    >>> print(compared(0.5, 0.5))
    the same, to two decimals, as
    """
    value, other = check_float("value", value), check_float("other", other)
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
        Its lowest value over the evaluations (a norm: finite, at least 0).
    step : int
        The step of that lowest value, at least 0.
    dipped : bool
        Whether some evaluation was below the threshold.

    Returns
    -------
    str
        A phrase that follows "starts far above it and".

    Raises
    ------
    TypeError
        If ``lowest`` is not a number, ``step`` not an int or ``dipped`` not a bool.
    ValueError
        If ``lowest`` is negative or not finite, or ``step`` is negative.

    Examples
    --------
    >>> from rnndoc.wording import dip_text
    >>> print(dip_text(0.49, 700, True))
    dips below it, to 0.49 at step 700, but only before half of its answers were right
    >>> print(dip_text(0.51, 700, False))
    dips toward it but stays above it (its lowest, 0.51 at step 700)
    """
    lowest = check_float("lowest", lowest, minimum=0.0)
    step = check_int("step", step, minimum=0)
    dipped = check_bool("dipped", dipped)
    low = f"{lowest:.2f} at step {step}"
    if dipped:
        return f"dips below it, to {low}, but only before half of its answers were right"
    return f"dips toward it but stays above it (its lowest, {low})"


def dip_check(dipped: bool, last_below: int | None, learned: int) -> str:
    """The Checks box's words on the same dip.

    Parameters
    ----------
    dipped : bool
        Whether some evaluation was below the threshold.
    last_below : int or None
        The last such evaluation's step: an int of at least 0, below ``learned``, when
        ``dipped`` is true; unused (``None`` or such an int) when it is false.
    learned : int
        The step at which half of its answers were first right, at least 0.

    Returns
    -------
    str
        A phrase that follows "and".

    Raises
    ------
    TypeError
        If ``dipped`` is not a bool, ``last_below`` neither None nor an int, or ``learned``
        not an int.
    ValueError
        If a step is negative, or ``dipped`` is true and ``last_below`` is None or not
        below ``learned`` (the phrase says the dip came before).

    Examples
    --------
    >>> from rnndoc.wording import dip_check
    >>> print(dip_check(True, 700, 1200))
    below it only before half of its answers were right (the last such evaluation at step 700, against 1200)
    >>> print(dip_check(False, None, 1200))
    at or above it at every evaluation
    """
    dipped = check_bool("dipped", dipped)
    if last_below is not None:
        last_below = check_int("last_below", last_below, minimum=0)
    learned = check_int("learned", learned, minimum=0)
    if dipped:
        if last_below is None:
            raise ValueError("last_below must be the last dip's step (an int) when dipped is true, got None")
        if last_below >= learned:
            raise ValueError(
                f"last_below must be below learned when dipped is true (the phrase says the dip came "
                f"before), got last_below={last_below}, learned={learned}"
            )
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
        The last step at which it counted as failed, at least 0.
    budget : int
        The tanh RNN's budget of steps, at least 1.

    Returns
    -------
    str
        A parenthetical phrase.

    Raises
    ------
    TypeError
        If ``last_failed`` or ``budget`` is not an int.
    ValueError
        If ``last_failed`` is negative or ``budget`` below 1.

    Examples
    --------
    >>> from rnndoc.wording import late_text
    >>> print(late_text(1100, 1000))
    as late as the tanh RNN's whole budget or later
    >>> print(late_text(800, 1000))
    80 % of the way into the tanh RNN's budget
    """
    last_failed = check_int("last_failed", last_failed, minimum=0)
    budget = check_int("budget", budget, minimum=1)
    if last_failed >= budget:
        return "as late as the tanh RNN's whole budget or later"
    return f"{100 * last_failed / budget:.0f} % of the way into the tanh RNN's budget"


# --- the language model -------------------------------------------------------------------


def gru_vs_rnn_text(rnn: Sequence[float], gru: Sequence[float]) -> str:
    """How the GRU's final perplexity compares with the tanh RNN's over the seeds.

    The chapter asserts that the GRU is not ahead (its highest run above the tanh RNN's
    lowest); this says which of the two other cases the run measured.

    Parameters
    ----------
    rnn, gru : sequence of float
        The final validation perplexity of each seed (positive), seed by seed: the same length.

    Returns
    -------
    str
        A phrase that follows "the GRU is".

    Raises
    ------
    TypeError
        If ``rnn`` or ``gru`` is not a sequence of numbers.
    ValueError
        If either is empty or holds a number that is not positive, or their lengths differ.

    Examples
    --------
    >>> from rnndoc.wording import gru_vs_rnn_text
    >>> print(gru_vs_rnn_text([2.61, 2.62], [2.65, 2.68]))
    behind the tanh RNN: its perplexity is higher in every seed, the two ranges apart
    >>> print(gru_vs_rnn_text([2.61, 2.66], [2.65, 2.63]))
    not clearly ahead of the tanh RNN: the two ranges overlap, and the tanh RNN is the lower of the two in 1 of the 2 seeds
    """
    rnn = check_numbers("rnn", rnn, positive=True)
    gru = check_numbers("gru", gru, len(rnn), positive=True)
    if max(rnn) < min(gru):
        return "behind the tanh RNN: its perplexity is higher in every seed, the two ranges apart"
    below = sum(r < g for r, g in zip(rnn, gru, strict=True))
    return (
        "not clearly ahead of the tanh RNN: the two ranges overlap, and the tanh RNN is the lower "
        f"of the two {in_runs(below, len(rnn), 'seed')}"
    )


def norm_reach_text(largest: float, threshold: float, above: int) -> str:
    """Whether an unclipped run's gradient norm reached the chapter's clipping threshold.

    Parameters
    ----------
    largest : float
        The largest unclipped norm of the run (finite, at least 0).
    threshold : float
        The chapter's clipping threshold (finite, positive).
    above : int
        The steps whose norm was above the threshold: at least 0, and 0 exactly when
        ``largest`` is not above ``threshold``.

    Returns
    -------
    str
        A sentence.

    Raises
    ------
    TypeError
        If ``largest`` or ``threshold`` is not a number, or ``above`` not an int.
    ValueError
        If ``largest`` is negative, ``threshold`` not positive, a number not finite,
        ``above`` negative, or ``above`` disagrees with ``largest`` and ``threshold``.

    Examples
    --------
    >>> from rnndoc.wording import norm_reach_text
    >>> print(norm_reach_text(0.93, 1.0, 0))
    In this run the largest unclipped norm, 0.93, stays below the chapter's threshold 1, so clipping at 1 would have changed none of these steps.
    >>> print(norm_reach_text(1.5, 1.0, 2))
    In this run the largest unclipped norm, 1.50, passes the chapter's threshold 1, on 2 of these steps.
    """
    largest = check_float("largest", largest, minimum=0.0)
    threshold = check_float("threshold", threshold, positive=True)
    above = check_int("above", above, minimum=0)
    if (above > 0) != (largest > threshold):
        raise ValueError(
            "above must be 0 exactly when largest is not above threshold, got "
            f"above={above}, largest={largest!r}, threshold={threshold!r}"
        )
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
        For each other seed: its depth cell (an int, at least 0), the seed (an int, at
        least 0) and the correlation (absolute value, in [0, 1]). May be empty.

    Returns
    -------
    str
        A sentence; one that says no other seed was run when ``cells`` is empty.

    Raises
    ------
    TypeError
        If ``cells`` or an entry is not a sequence, a cell or seed not an int, or a
        correlation not a number.
    ValueError
        If an entry does not have three items, a cell or seed is negative, or a
        correlation is not in [0, 1].

    Examples
    --------
    >>> from rnndoc.wording import other_depth_cells
    >>> print(other_depth_cells([(21, 1, 0.891), (20, 2, 0.833)]))
    The depth cells of the other seeds run here: cell 21 of seed 1, correlation 0.89; cell 20 of seed 2, correlation 0.83.
    >>> print(other_depth_cells([]))
    No other seed was run here.
    """
    entries = []
    for k, entry in enumerate(check_sequence("cells", cells, "a sequence of triples", non_empty=False)):
        name = f"cells[{k}]"
        triple = check_sequence(name, entry, "a (cell, seed, correlation) triple", non_empty=False)
        if len(triple) != 3:
            raise ValueError(f"{name} must be a (cell, seed, correlation) triple, got {len(triple)} items")
        cell = check_int(f"{name}[0] (the cell)", triple[0], minimum=0)
        seed = check_int(f"{name}[1] (the seed)", triple[1], minimum=0)
        entries.append((cell, seed, _fraction(f"{name}[2] (the correlation's absolute value)", triple[2])))
    if not entries:
        return "No other seed was run here."
    found = "; ".join(f"cell {cell} of seed {seed}, correlation {r:.2f}" for cell, seed, r in entries)
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
        Those runs' seeds (each at least 0; may be empty).
    forgetting : sequence of int
        Those of them whose cell comes down through its forget gate instead (each one of
        ``missed``).
    close_write, open_write : float
        The first such seed's mean write at a closing and at an opening bracket (finite).
    close_f, inside_f : float
        Its mean forget gate at closing brackets and between brackets, each in [0, 1].

    Returns
    -------
    str
        A sentence (two when the run forgets instead).

    Raises
    ------
    TypeError
        If ``missed`` or ``forgetting`` is not a sequence of ints, or a mean not a number.
    ValueError
        If a seed is negative, a seed of ``forgetting`` is not in ``missed``, a mean is
        not finite or a forget gate's mean not in [0, 1].

    Examples
    --------
    >>> from rnndoc.wording import step_down_text
    >>> print(step_down_text([], [], 0, 0, 0, 0))
    Every run's closing brackets write such a step down.
    >>> print(step_down_text([2], [], -0.3, 0.6, 0.8, 0.9))
    In seed 2 a closing bracket writes only −0.30 (against +0.60 at an opener); its forget gate is 0.80 at closing brackets from 0.90 between them.
    """
    missed, forgetting = _ints("missed", missed), _ints("forgetting", forgetting)
    close_write, open_write = check_float("close_write", close_write), check_float("open_write", open_write)
    close_f, inside_f = _fraction("close_f", close_f), _fraction("inside_f", inside_f)
    strays = [seed for seed in forgetting if seed not in missed]
    if strays:
        raise ValueError(f"forgetting must hold only seeds of missed, got {strays} not in missed {missed}")
    if not missed:
        return "Every run's closing brackets write such a step down."
    first = missed[0]
    write = f"{_seeds([first])} a closing bracket writes only {_minus(close_write, '+.2f')}"
    write += f" (against {_minus(open_write, '+.2f')} at an opener)"
    text = (f"Not in {_seeds(missed)}: in " if len(missed) > 1 else "In ") + write
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
        The seeds where it was not (each at least 0; may be empty).
    lowest : float
        The lowest mean forget gate between brackets over the runs, in [0, 1].

    Returns
    -------
    str
        A phrase that follows "is above" and the level.

    Raises
    ------
    TypeError
        If ``missed`` is not a sequence of ints or ``lowest`` not a number.
    ValueError
        If a seed is negative or ``lowest`` is not in [0, 1].

    Examples
    --------
    >>> from rnndoc.wording import forget_note
    >>> print(forget_note([2], 0.904))
    except in seed 2; lowest of the runs 0.90
    >>> print(forget_note([], 0.97))
    in every run; lowest of the runs 0.97
    """
    missed = _ints("missed", missed)
    lowest = _fraction("lowest", lowest)
    where = f"except in {_seeds(missed)}" if missed else "in every run"
    return f"{where}; lowest of the runs {lowest:.2f}"


def output_open_text(lowest: float, threshold: float) -> str:
    """Whether the output gate of the seed shown passes more than half of the count everywhere.

    Parameters
    ----------
    lowest : float
        Its depth cell's lowest mean output gate over the kinds of character, in [0, 1].
    threshold : float
        The level the chapter compares it with, in [0, 1].

    Returns
    -------
    str
        A sentence.

    Raises
    ------
    TypeError
        If ``lowest`` or ``threshold`` is not a number.
    ValueError
        If ``lowest`` or ``threshold`` is not in [0, 1].

    Examples
    --------
    >>> from rnndoc.wording import output_open_text
    >>> print(output_open_text(0.6, 0.5))
    Its mean is above 0.5 on every kind of character (lowest 0.60), so on average more than half of the squashed count (the tanh of the cell state) reaches the hidden state.
    >>> print(output_open_text(0.4, 0.5))
    Its mean falls to 0.40 on at least one kind of character, so there at most half of the squashed count (the tanh of the cell state) reaches the hidden state.
    """
    lowest, threshold = _fraction("lowest", lowest), _fraction("threshold", threshold)
    if lowest > threshold:
        return (
            f"Its mean is above {threshold:g} on every kind of character (lowest {lowest:.2f}), "
            "so on average more than half of the squashed count (the tanh of the cell state) "
            "reaches the hidden state."
        )
    return (
        f"Its mean falls to {lowest:.2f} on at least one kind of character, so there at most half of "
        "the squashed count (the tanh of the cell state) reaches the hidden state."
    )


def median_missed_text(
    missed: Sequence[int],
    medians: Mapping[int, float],
    lower_f: bool,
    f_between: Mapping[int, float],
    level: float,
) -> str:
    """The sentence on the runs whose median product of forget gates is not above a level.

    Parameters
    ----------
    missed : sequence of int
        Those runs' seeds (each at least 0; may be empty).
    medians : dict of int to float
        Each run's median product, in [0, 1]; it holds every seed of ``missed``, whose
        median is not above ``level``.
    lower_f : bool
        Whether each of them has a lower mean forget gate between brackets than every
        other run.
    f_between : dict of int to float
        Each run's mean forget gate between brackets, in [0, 1]; when ``lower_f`` is true
        it holds every seed of ``missed``.
    level : float
        The level (one half in the chapter), in [0, 1].

    Returns
    -------
    str
        A sentence.

    Raises
    ------
    TypeError
        If ``missed`` is not a sequence of ints, ``medians`` or ``f_between`` not a
        mapping of ints to numbers, ``lower_f`` not a bool or ``level`` not a number.
    ValueError
        If a seed is negative, a number is not in [0, 1], a seed of ``missed`` has no
        entry where one is needed, or its median is above ``level``.

    Examples
    --------
    >>> from rnndoc.wording import median_missed_text
    >>> print(median_missed_text([], {}, False, {}, 0.5))
    Every run's median is above 0.5.
    >>> print(median_missed_text([2], {2: 0.42}, True, {2: 0.9}, 0.5))
    Below 0.5: seed 2 (median 0.42), whose depth cell's forget gate is lower between brackets (0.90 on average) than in the other runs.
    """
    missed = _ints("missed", missed)
    medians = _by_seed("medians", medians)
    lower_f = check_bool("lower_f", lower_f)
    f_between = _by_seed("f_between", f_between)
    level = _fraction("level", level)
    for seed in missed:
        if seed not in medians:
            raise ValueError(f"medians must hold every seed of missed, got none for seed {seed}")
        if medians[seed] > level:
            raise ValueError(
                f"medians[{seed}] must not be above level for a seed of missed, "
                f"got {medians[seed]!r} against level {level!r}"
            )
        if lower_f and seed not in f_between:
            raise ValueError(
                f"f_between must hold every seed of missed when lower_f is true, got none for seed {seed}"
            )
    if not missed:
        return f"Every run's median is above {level:g}."
    below = _listed([f"seed {s} (median {medians[s]:.2f})" for s in missed])
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
        The reaches of those seeds, each at least 0 (at least one LSTM seed, and every LSTM
        reach above every GRU reach: the sentence says so).

    Returns
    -------
    str
        A sentence.

    Raises
    ------
    TypeError
        If ``gru_fit`` or ``lstm_fit`` is not a sequence of ints.
    ValueError
        If a reach is negative, ``lstm_fit`` is empty, or an LSTM reach is not above every
        GRU reach.

    Examples
    --------
    >>> from rnndoc.wording import fit_text
    >>> print(fit_text([8, 9], [12, 20]))
    Among the seeds that got every training string right (2 GRU, 2 LSTM seeds) the GRU's reach is 8 to 9 and the LSTM's 12 to 20: every LSTM reach above every GRU reach (asserted).
    >>> print(fit_text([], [12, 20]))
    No GRU seed got every training string right; the 2 LSTM seeds that did reach 12 to 20.
    """
    gru_fit = _ints("gru_fit", gru_fit)
    lstm_fit = _ints("lstm_fit", lstm_fit, non_empty=True)
    if gru_fit and min(lstm_fit) <= max(gru_fit):
        raise ValueError(
            "every reach of lstm_fit must be above every reach of gru_fit (the sentence says so), "
            f"got lstm_fit={lstm_fit}, gru_fit={gru_fit}"
        )
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
        The lowest last training loss over the tanh RNN's seeds (finite, at least 0).
    gru_highest : float
        The highest over the GRU's (finite, at least 0).

    Returns
    -------
    str
        A phrase that follows a comma.

    Raises
    ------
    TypeError
        If ``rnn_lowest`` or ``gru_highest`` is not a number.
    ValueError
        If ``rnn_lowest`` or ``gru_highest`` is negative or not finite.

    Examples
    --------
    >>> from rnndoc.wording import gru_loss_text
    >>> print(gru_loss_text(0.3, 0.2))
    and above every GRU seed's too (measured, not asserted)
    >>> print(gru_loss_text(0.3, 0.4))
    though not above every GRU seed's
    """
    rnn_lowest = check_float("rnn_lowest", rnn_lowest, minimum=0.0)
    gru_highest = check_float("gru_highest", gru_highest, minimum=0.0)
    if rnn_lowest > gru_highest:
        return "and above every GRU seed's too (measured, not asserted)"
    return "though not above every GRU seed's"


def first_b_moves(first_b: float) -> str:
    """What the counting cell does at the first b.

    Parameters
    ----------
    first_b : float
        Its change at the first b (finite).

    Returns
    -------
    str
        A phrase.

    Raises
    ------
    TypeError
        If ``first_b`` is not a number.
    ValueError
        If ``first_b`` is not finite.

    Examples
    --------
    >>> from rnndoc.wording import first_b_moves
    >>> print(first_b_moves(0.25))
    still goes up, by 0.25: the switch from adding to taking away comes one symbol late
    >>> print(first_b_moves(-0.25))
    already goes down, by 0.25: the switch from adding to taking away comes right there
    """
    first_b = check_float("first_b", first_b)
    if first_b > 0:
        return f"still goes up, by {first_b:.2f}: the switch from adding to taking away comes one symbol late"
    return f"already goes down, by {-first_b:.2f}: the switch from adding to taking away comes right there"


def first_b_takes_text(takes: int, counting: int) -> str:
    """In how many of the seeds with a counting cell the first b already takes away.

    Parameters
    ----------
    takes : int
        The seeds, among those with a counting cell, whose cell goes down at the first b.
    counting : int
        The seeds with a counting cell, at least 1.

    Returns
    -------
    str
        A sentence.

    Raises
    ------
    TypeError
        If ``takes`` or ``counting`` is not an int.
    ValueError
        If ``counting`` is below 1 or ``takes`` is not in 0..counting.

    Examples
    --------
    >>> from rnndoc.wording import first_b_takes_text
    >>> print(first_b_takes_text(1, 3))
    Seeds differ here: of the 3 seeds with a counting cell, the first b already takes away in 1.
    >>> print(first_b_takes_text(3, 3))
    In all 3 seeds with a counting cell the first b already takes away.
    >>> print(first_b_takes_text(0, 2))
    In both seeds with a counting cell the first b still adds.
    """
    takes, counting = check_int("takes", takes, minimum=0), check_int("counting", counting, minimum=1)
    if takes > counting:
        raise ValueError(f"takes must be at most counting ({counting}), got {takes}")
    if 0 < takes < counting:
        return (
            f"Seeds differ here: of the {counting} seeds with a counting cell, the first b "
            f"already takes away in {takes}."
        )
    # all alike: every one takes away (takes == counting) or every one still adds (takes == 0)
    where = {1: "In the one seed", 2: "In both seeds"}.get(counting, f"In all {counting} seeds")
    verb = "already takes away" if takes == counting else "still adds"
    return f"{where} with a counting cell the first b {verb}."


def short_lead(past: int) -> str:
    """Whether the LSTM trained on short strings predicts past its training range.

    Parameters
    ----------
    past : int
        How far its reach lies past the training range (negative when it falls short of it).

    Returns
    -------
    str
        A clause.

    Raises
    ------
    TypeError
        If ``past`` is not an int.

    Examples
    --------
    >>> from rnndoc.wording import short_lead
    >>> print(short_lead(1))
    it predicts past the training range, but only just
    >>> print(short_lead(0))
    it does not predict past the training range
    """
    past = check_int("past", past)
    if past > 0:
        how = "but only just" if past <= 2 else "by several n"
        return f"it predicts past the training range, {how}"
    return "it does not predict past the training range"


def _carry(past: int) -> str:
    """How far the counter carries (:func:`carry`, unchecked)."""
    if past > 0:
        far = {1: "one n", 2: "two n", 3: "three n"}.get(past, f"{past} n")
        return f"carries {far} past the training range"
    return "does not carry past the training range"


def carry(past: int) -> str:
    """How far the counter of the LSTM trained on short strings carries.

    Parameters
    ----------
    past : int
        How far its reach lies past the training range (negative when it falls short of it).

    Returns
    -------
    str
        A phrase that follows "its counter".

    Raises
    ------
    TypeError
        If ``past`` is not an int.

    Examples
    --------
    >>> from rnndoc.wording import carry
    >>> print(carry(1))
    carries one n past the training range
    >>> print(carry(0))
    does not carry past the training range
    """
    return _carry(check_int("past", past))


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

    Raises
    ------
    TypeError
        If ``ok`` is not a bool.

    Examples
    --------
    >>> from rnndoc.wording import passes
    >>> print(passes(True))
    passes
    """
    return "passes" if check_bool("ok", ok) else "fails"


def short_meaning(reach_ok: bool, show_ok: bool, past: int) -> str:
    """What the counting-cell check on the two strings says of the short-trained LSTM.

    Parameters
    ----------
    reach_ok : bool
        Whether a cell passes on the string at its reach.
    show_ok : bool
        Whether a cell passes on the chapter's longer string.
    past : int
        How far its reach lies past the training range (negative when it falls short of it).

    Returns
    -------
    str
        A clause.

    Raises
    ------
    TypeError
        If ``reach_ok`` or ``show_ok`` is not a bool, or ``past`` not an int.

    Examples
    --------
    >>> from rnndoc.wording import short_meaning
    >>> print(short_meaning(True, False, 1))
    its counter carries one n past the training range, not to the length the counters above were found on
    >>> print(short_meaning(False, False, 1))
    it predicts the strings it reaches without a cell that passes the check
    """
    reach_ok, show_ok = check_bool("reach_ok", reach_ok), check_bool("show_ok", show_ok)
    past = check_int("past", past)
    above = "the length the counters above were found on"
    if reach_ok and not show_ok:
        if past <= 0:
            return f"its counter {_carry(past)}, let alone to {above}"
        return f"its counter {_carry(past)}, not to {above}"
    if reach_ok:
        return f"its counter carries to {above} too"
    if show_ok:
        return "a cell passes on the longer string, not on the string at the reach"
    return "it predicts the strings it reaches without a cell that passes the check"
