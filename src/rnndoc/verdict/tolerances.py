r"""The book's one tolerance table: each check of the hand-set network, the bound it must meet, and why.

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
(:func:`~rnndoc.verdict.assert_close`, :func:`~rnndoc.verdict.max_abs_difference`, from
:mod:`rnndoc.compare`). :data:`TOLERANCES` says which bound each check of the hand-set network
meets, and :data:`COMPARISONS` what each check compares with what. This module imports neither
sympy nor the witnesses: the command line's help reads the table without loading them.
"""

from __future__ import annotations

from .._validate import check_float

__all__ = [
    "COMPARISONS",
    "EXACT_ATOL",
    "FINITE_DIFF_ATOL",
    "FINITE_DIFF_EPS_RANGE",
    "FLOAT64_ATOL",
    "FORWARD_ATOL",
    "GRADIENT_CHECKS",
    "TOLERANCES",
    "check_finite_difference_eps",
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
        If ``eps`` lies outside :data:`~rnndoc.verdict.tolerances.FINITE_DIFF_EPS_RANGE`; the
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
