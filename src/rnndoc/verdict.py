r"""The verdict: the book's one tolerance table and the one comparison loop.

Tolerances are a statement, so they have names:

========================  ========  ==================================================
comparison                atol      why
========================  ========  ==================================================
``FLOAT64_ATOL``          1e-12     two float64 computations of one formula: round-off
``FORWARD_ATOL``          1e-14     the same, for the short hand-set forward pass
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
table without loading them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import torch

from ._validate import check_array, check_float, check_instance, check_mapping, check_str, check_tensor
from .compare import assert_close, max_abs_difference

if TYPE_CHECKING:  # the class is imported where it is checked: reading the table loads no sympy
    from .witnesses import Forward

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
#: The plain-Python forward pass against ``nn.RNN`` on the hand-set example (3 steps, 2 units).
FORWARD_ATOL = 1e-14
#: An exact (or 50-digit) sympy value against a float64 computation: one rounding chain.
EXACT_ATOL = 1e-13
#: Central differences at a step in ``FINITE_DIFF_EPS_RANGE``: truncation O(eps^2) plus round-off O(1e-16/eps).
FINITE_DIFF_ATOL = 1e-7
#: The finite-difference steps for which ``FINITE_DIFF_ATOL`` holds on the hand-set network, with
#: room to spare: measured, the largest gap is 2.3e-8 at 1e-4 (truncation), 1.8e-11 at 1e-6 and 1.1e-9
#: at 1e-8 (round-off); at 1e-2 it is 2.3e-4, at 1e-11 1.6e-6
#: (:func:`rnndoc.experiments.finite_difference_error` measures any step).
FINITE_DIFF_EPS_RANGE = (1e-8, 1e-4)


#: The checks that compare a gradient witness with sympy's exact gradients (the reference).
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
        If ``eps`` lies outside :data:`~rnndoc.verdict.FINITE_DIFF_EPS_RANGE`; the
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
    gaps = {}
    for witness, values in gradients.items():
        if witness == reference:
            continue
        check_mapping(f"gradients[{witness!r}]", values, exact)
        gaps[witness] = max(
            max_abs_difference(
                check_array(f"gradients[{witness!r}][{name!r}]", values[name]),
                check_array(f"gradients[{reference!r}][{name!r}]", exact[name]),
            )
            for name in exact
        )
    return gaps


def handset_gaps(
    gradients: Mapping[str, Mapping[str, object]],
    forward: Forward,
    loss: object,
    split: torch.Tensor,
    exact_split: Mapping[str, object],
) -> dict[str, float]:
    """The hand-set network's checks, measured: one largest gap per row of the tolerance table.

    One gap per entry of :data:`~rnndoc.verdict.TOLERANCES`. Every argument is a
    witness's raw result (:mod:`rnndoc.witnesses`); this only measures the gaps, :func:`judge`
    holds them against the table.

    Parameters
    ----------
    gradients : mapping of str to mapping of str to Tensor
        Every gradient witness's results, ``"sympy"`` among them (:func:`gradient_gaps`).
    forward : rnndoc.witnesses.Forward
        Both forward witnesses, and the loss of the ``nn.RNN`` output.
    loss : sympy.Float
        The exact loss (:func:`rnndoc.witnesses.exact_loss`).
    split : Tensor, shape (L, L, H, H)
        :func:`rnndoc.bptt.gradient_split` of the hand-set values (use s, loss term t).
    exact_split : mapping of str to Tensor
        sympy's ``per_use`` and ``per_loss_term``, each (L, H, H)
        (:func:`rnndoc.witnesses.sympy_weight_hh_split`).

    Returns
    -------
    dict of str to float
        Keys as :data:`~rnndoc.verdict.TOLERANCES`, in its order; ``weight_hh_split``
        is the largest gap of the split summed over t (per use), over s (per loss term), and
        over both (against ``gradients["sympy"]["weight_hh_l0"]``).

    Raises
    ------
    TypeError, ValueError
        If an argument is not of the kind above (the message names it), or the gradients
        lack ``"sympy"`` or a parameter.

    Examples
    --------
    >>> from rnndoc import handset, witnesses
    >>> from rnndoc.bptt import gradient_split
    >>> from rnndoc.verdict import handset_gaps
    >>> grads = {"sympy": witnesses.sympy_gradients(), "bptt": witnesses.bptt_handset_gradients()}
    >>> gaps = handset_gaps(grads, witnesses.forward(), witnesses.exact_loss(),
    ...                     gradient_split(handset.tensors()), witnesses.sympy_weight_hh_split())
    >>> sorted(gaps), gaps["forward"] < 1e-14, gaps["weight_hh_split"] < 1e-15
    (['bptt', 'forward', 'loss', 'weight_hh_split'], True, True)
    """
    from .witnesses import Forward  # noqa: PLC0415 (sympy loads only when a report is measured)

    check_instance("forward", forward, Forward, "an rnndoc.witnesses.Forward")
    loss = check_float("loss", loss)
    split = check_tensor("split", split, (None, None, None, None), "(L, L, H, H)")
    exact_split = check_mapping("exact_split", exact_split, ("per_use", "per_loss_term"))
    per_use, per_loss_term = (
        check_tensor(
            f"exact_split[{key!r}]", exact_split[key], (split.shape[0], *split.shape[2:]), "(L, H, H)"
        )
        for key in ("per_use", "per_loss_term")
    )
    gaps = gradient_gaps(gradients)
    gaps["forward"] = max_abs_difference(forward.output[0], forward.hidden)
    gaps["loss"] = max_abs_difference(forward.loss, loss)
    gaps["weight_hh_split"] = max(
        max_abs_difference(split.sum(1), per_use),  # summed over loss terms t: (L, H, H) by use s
        max_abs_difference(split.sum(0), per_loss_term),  # summed over uses s: (L, H, H) by term t
        max_abs_difference(split.sum((0, 1)), gradients["sympy"]["weight_hh_l0"]),  # (H, H)
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
