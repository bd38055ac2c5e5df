r"""The verdict: the book's one tolerance table and the one comparison loop.

Tolerances are a statement, so they have names:

========================  ========  ==================================================
comparison                atol      why
========================  ========  ==================================================
``FLOAT64_ATOL``          1e-12     two float64 computations of one formula: round-off
``FORWARD_ATOL``          1e-14     the hand-set forward pass (3 steps, 2 units): each
                                    state a few roundings, ~100x their size
``EXACT_ATOL``            1e-13     exact / 50-digit sympy value against float64
``FINITE_DIFF_ATOL``      1e-7      central difference: O(eps^2) truncation plus
                                    O(1e-16 / eps) round-off, for eps in
                                    ``FINITE_DIFF_EPS_RANGE`` (1e-8 to 1e-4)
========================  ========  ==================================================

Every comparison uses ``rtol=0``: the error is bounded in absolute terms
(:func:`assert_close`, :func:`max_abs_difference`, from :mod:`rnndoc.compare`).
:data:`TOLERANCES` says which bound each check of the hand-set network meets, and
:data:`COMPARISONS` what each check compares with what; :func:`handset_gaps` measures the
checks from the witnesses' raw results (:mod:`rnndoc.witnesses` computes them all) and
:func:`judge` holds each against its tolerance. The command line and the chapters read the
same. This module imports neither sympy nor the witnesses: the command line's help reads the
table without loading them (a test holds ``GRADIENT_CHECKS`` to the witnesses' own list).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ._validate import check_array, check_float, check_instance, check_mapping, check_str
from .compare import assert_close, max_abs_difference
from .finite_differences import FINITE_DIFF_EPS_RANGE  # stated there, beside the default step

if TYPE_CHECKING:  # the class is imported where it is checked: reading the table loads no sympy
    from .witnesses import Witnessed

__all__ = [
    "COMPARISONS",
    "EXACT_ATOL",
    "FINITE_DIFF_ATOL",
    "FINITE_DIFF_EPS_RANGE",
    "FLOAT64_ATOL",
    "FORWARD_ATOL",
    "GRADIENT_CHECKS",
    "TOLERANCES",
    "assert_close",
    "check_finite_difference_eps",
    "gradient_gaps",
    "handset_gaps",
    "judge",
    "max_abs_difference",
]

#: Two float64 computations of the same formula: round-off only.
FLOAT64_ATOL = 1e-12
#: The hand-set forward pass (3 steps, 2 units, entries below 1) computed twice in float64: each
#: state is a few roundings of a few terms, so round-off is a few units of 1e-16; 1e-14 leaves
#: about a hundred times that, tighter than FLOAT64_ATOL, which must also cover longer sums.
FORWARD_ATOL = 1e-14
#: An exact (or 50-digit) sympy value against a float64 computation: one rounding chain.
EXACT_ATOL = 1e-13
#: Central differences at a step in ``FINITE_DIFF_EPS_RANGE``: truncation O(eps^2) plus round-off O(1e-16/eps).
FINITE_DIFF_ATOL = 1e-7

#: The checks that compare a gradient witness with sympy's exact gradients (the reference): the
#: names of :data:`rnndoc.witnesses.GRADIENT_WITNESSES` but the reference (a test holds them equal).
GRADIENT_CHECKS = ("bptt", "autograd", "finite_difference")
#: Every check of the hand-set network and the tolerance it must meet: the one table.
TOLERANCES = {
    "bptt": EXACT_ATOL,
    "autograd": EXACT_ATOL,
    "finite_difference": FINITE_DIFF_ATOL,
    "forward": FORWARD_ATOL,
    "loss": EXACT_ATOL,
    "weight_hh_split": EXACT_ATOL,
}
#: What each check of :data:`TOLERANCES` compares with what (the command line's help prints it).
COMPARISONS = {
    "bptt": "the numeric delta recursion (rnndoc.bptt) against sympy's exact gradients",
    "autograd": "autograd through nn.RNN against sympy's exact gradients",
    "finite_difference": "central differences through nn.RNN (step eps) against sympy's exact gradients",
    "forward": "the plain-Python forward pass (no torch) against nn.RNN's hidden states",
    "loss": "the loss of nn.RNN's output against sympy's exact loss",
    "weight_hh_split": "the W_hh gradient per use and per loss term (rnndoc.bptt.gradient_split) "
    "against sympy's (its derived rules per use; sympy.diff of each loss term), and their total",
}


def check_finite_difference_eps(eps: object) -> float:
    """``eps`` as a float, if ``FINITE_DIFF_ATOL`` holds for central differences with that step.

    Parameters
    ----------
    eps : float
        A finite-difference step.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``eps`` is not a number.
    ValueError
        If ``eps`` lies outside :data:`~rnndoc.finite_differences.FINITE_DIFF_EPS_RANGE`; the
        message says why.

    Examples
    --------
    >>> from rnndoc.verdict import check_finite_difference_eps
    >>> check_finite_difference_eps(1e-5)
    1e-05
    >>> check_finite_difference_eps(1e-2)
    Traceback (most recent call last):
    ...
    ValueError: eps must lie in [1e-08, 0.0001], the steps for which the finite-difference tolerance 1e-07 holds (above, truncation O(eps^2) exceeds it; below, round-off O(1e-16/eps)), got 0.01; rnndoc.experiments.finite_difference_error measures the error at any step
    """
    eps = check_float("eps", eps, positive=True)
    low, high = FINITE_DIFF_EPS_RANGE
    if not low <= eps <= high:
        raise ValueError(
            f"eps must lie in [{low:g}, {high:g}], the steps for which the finite-difference tolerance "
            f"{FINITE_DIFF_ATOL:g} holds (above, truncation O(eps^2) exceeds it; below, round-off "
            f"O(1e-16/eps)), got {eps!r}; rnndoc.experiments.finite_difference_error measures the "
            "error at any step"
        )
    return eps


def gradient_gaps(
    gradients: Mapping[str, Mapping[str, object]], reference: str = "sympy"
) -> dict[str, float]:
    """Per witness, the largest gap to the reference over every entry of every gradient.

    Parameters
    ----------
    gradients : mapping of str to mapping of str to Tensor
        Witness name to its gradients by parameter name (as :data:`rnndoc.witnesses.GRADIENT_WITNESSES`
        compute them); it must hold ``reference``.
    reference : str, default ``"sympy"``

    Returns
    -------
    dict of str to float
        One entry per witness other than the reference, in the order given.

    Raises
    ------
    TypeError
        If ``gradients`` or an entry is not a mapping, or a value cannot be read as numbers.
    ValueError
        If ``reference`` is missing, or a witness lacks a parameter the reference has.

    Examples
    --------
    >>> from rnndoc.verdict import gradient_gaps
    >>> gradient_gaps({"sympy": {"w": [1.0, 2.0]}, "guess": {"w": [1.0, 2.5]}})
    {'guess': 0.5}
    """
    reference = check_str("reference", reference)
    gradients = check_mapping("gradients", gradients)
    if reference not in gradients:
        raise ValueError(
            f"reference {reference!r} is not a witness of gradients ({', '.join(map(str, gradients))})"
        )
    exact = check_mapping(f"gradients[{reference!r}]", gradients[reference])
    checked = {
        reference: {name: check_array(f"gradients[{reference!r}][{name!r}]", exact[name]) for name in exact}
    }
    for witness, values in gradients.items():
        if witness != reference:
            check_mapping(f"gradients[{witness!r}]", values, exact)
            checked[witness] = {
                name: check_array(f"gradients[{witness!r}][{name!r}]", values[name]) for name in exact
            }
    return _gradient_gaps(checked, reference)


def _gradient_gaps(gradients: Mapping[str, Mapping[str, object]], reference: str) -> dict[str, float]:
    """Per witness but the reference, its largest gap to the reference over every entry."""
    exact = gradients[reference]
    return {
        witness: max(max_abs_difference(values[name], exact[name]) for name in exact)
        for witness, values in gradients.items()
        if witness != reference
    }


def handset_gaps(witnessed: Witnessed) -> dict[str, float]:
    """The hand-set network's checks, measured: one largest gap per row of the tolerance table.

    One gap per entry of :data:`TOLERANCES`, from the witnesses' raw results as
    :func:`rnndoc.witnesses.witness_all` made them (only read as float64 numbers by
    :func:`max_abs_difference`, not re-derived); this only measures the gaps, :func:`judge`
    holds them against the table.

    Parameters
    ----------
    witnessed : rnndoc.witnesses.Witnessed
        Every witness's result on one build of the hand-set data.

    Returns
    -------
    dict of str to float
        Keys as :data:`TOLERANCES`, in its order: per gradient witness its largest gap to
        sympy; ``forward`` the plain-Python states against ``nn.RNN``'s; ``loss`` the loss of
        ``nn.RNN``'s output against the exact loss; ``weight_hh_split`` the largest gap of the
        split summed over t (per use), over s (per loss term), and over both (against sympy's
        ``weight_hh_l0`` gradient).

    Raises
    ------
    TypeError
        If ``witnessed`` is not an :class:`rnndoc.witnesses.Witnessed`.

    Examples
    --------
    >>> from rnndoc.verdict import handset_gaps
    >>> from rnndoc.witnesses import witness_all
    >>> gaps = handset_gaps(witness_all())
    >>> list(gaps), gaps["forward"] < 1e-14, gaps["weight_hh_split"] < 1e-15
    (['bptt', 'autograd', 'finite_difference', 'forward', 'loss', 'weight_hh_split'], True, True)
    """
    from .witnesses import REFERENCE, Witnessed  # noqa: PLC0415 (sympy loads only when a report is measured)

    w = check_instance("witnessed", witnessed, Witnessed, "an rnndoc.witnesses.Witnessed")
    gaps = _gradient_gaps(w.gradients, REFERENCE)
    gaps["forward"] = max_abs_difference(w.forward.output[0], w.forward.hidden)
    gaps["loss"] = max_abs_difference(w.forward.loss, float(w.exact_loss))
    gaps["weight_hh_split"] = max(
        max_abs_difference(w.split.sum(1), w.exact_split["per_use"]),  # over loss terms t: (L, H, H) by use s
        max_abs_difference(
            w.split.sum(0), w.exact_split["per_loss_term"]
        ),  # over uses s: (L, H, H) by term t
        max_abs_difference(w.split.sum((0, 1)), w.gradients[REFERENCE]["weight_hh_l0"]),  # (H, H)
    )
    return gaps


def judge(gaps: Mapping[str, float]) -> dict[str, dict]:
    """Hold each measured gap against its tolerance in the table: the one comparison loop.

    Parameters
    ----------
    gaps : mapping of str to float
        Check name (a key of :data:`~rnndoc.verdict.TOLERANCES`) to its largest
        absolute gap.

    Returns
    -------
    dict of str to dict
        Per check: the gap (``max_abs_difference_to_sympy`` for a gradient witness,
        ``max_abs_difference`` otherwise), its ``atol`` and whether it ``passed``.

    Raises
    ------
    TypeError
        If ``gaps`` is not a mapping, or a gap not a number.
    ValueError
        If a check has no tolerance in the table, or a gap is negative.

    Examples
    --------
    >>> from rnndoc.verdict import judge
    >>> judge({"loss": 2e-17, "finite_difference": 1e-3})["finite_difference"]["passed"]
    False
    """
    gaps = check_mapping("gaps", gaps)
    unknown = [name for name in gaps if name not in TOLERANCES]
    if unknown:
        raise ValueError(
            f"gaps has checks without a tolerance: {', '.join(unknown)}; known: {', '.join(TOLERANCES)}"
        )
    checks = {}
    for name, value in gaps.items():
        gap = check_float(f"gaps[{name!r}]", value, minimum=0, finite=False)  # NaN and inf fail below
        atol = TOLERANCES[name]
        key = "max_abs_difference_to_sympy" if name in GRADIENT_CHECKS else "max_abs_difference"
        checks[name] = {key: gap, "atol": atol, "passed": gap <= atol}
    return checks
