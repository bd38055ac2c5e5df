"""The verdict: the book's one tolerance table and the one comparison loop.

Every comparison uses ``rtol=0``: the error is bounded in absolute terms
(:func:`assert_close`, :func:`max_abs_difference`, from :mod:`rnndoc.compare`).
:data:`~rnndoc.verdict.tolerances.TOLERANCES` says which bound each check of the hand-set
network meets, with its reason, and :data:`~rnndoc.verdict.tolerances.COMPARISONS` what each
check compares with what; :func:`handset_gaps` measures the checks from the witnesses' raw
results (:mod:`rnndoc.witnesses` computes them all) and :func:`judge` holds each against its
tolerance. The command line and the chapters read the same.

The modules: :mod:`~rnndoc.verdict.tolerances` (the named tolerances, the table, and the
finite-difference steps they hold for; it loads no sympy, so the command line's help reads it
cheaply), :mod:`~rnndoc.verdict.judging` (the gaps measured, and each judged).
"""

from ..compare import assert_close, max_abs_difference
from .judging import gradient_gaps, handset_gaps, judge
from .tolerances import (
    COMPARISONS,
    EXACT_ATOL,
    FINITE_DIFF_ATOL,
    FINITE_DIFF_EPS_RANGE,
    FLOAT64_ATOL,
    FORWARD_ATOL,
    GRADIENT_CHECKS,
    TOLERANCES,
    check_finite_difference_eps,
)

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
