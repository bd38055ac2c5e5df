"""Comparisons in absolute terms (``rtol=0``): the largest gap, and an assert against a tolerance.

The tolerances themselves, with the reason for each, are in :mod:`rnndoc.verdict`, which
re-exports both functions: chapters import them from there beside the tolerance they use.
"""

from __future__ import annotations

from ._validate import check_array, check_float, check_str

__all__ = ["assert_close", "max_abs_difference"]


def max_abs_difference(actual: object, expected: object) -> float:
    """The largest absolute entry-wise difference, as a Python float.

    Parameters
    ----------
    actual, expected : Tensor or nested sequence of float, same shape (any)
        Compared in float64.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If an argument cannot be read as numbers.
    ValueError
        If the shapes differ, naming both.

    Examples
    --------
    >>> from rnndoc.compare import max_abs_difference
    >>> max_abs_difference([1.0, 2.0], [1.0, 2.5])
    0.5
    """
    a, b = check_array("actual", actual), check_array("expected", expected)
    if a.shape != b.shape:
        raise ValueError(
            f"actual and expected must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}"
        )
    return float((a - b).abs().max()) if a.numel() else 0.0


def assert_close(actual: object, expected: object, atol: float, what: str = "values") -> float:
    """Assert ``|actual - expected| <= atol`` entry-wise (``rtol=0``) and return the largest gap.

    Parameters
    ----------
    actual, expected : Tensor or nested sequence of float, same shape (any)
    atol : float
        One of :data:`rnndoc.verdict.FLOAT64_ATOL`, :data:`rnndoc.verdict.EXACT_ATOL`,
        :data:`rnndoc.verdict.FINITE_DIFF_ATOL`, or tighter.
    what : str
        Named in the failure message.

    Returns
    -------
    float
        :func:`max_abs_difference` of the two, for the book to glue.

    Raises
    ------
    AssertionError
        If a difference exceeds ``atol``; the message names ``what``, the gap and ``atol``.
    TypeError
        If an argument cannot be read as numbers, ``atol`` is not a number or ``what`` not a str.
    ValueError
        If the shapes differ, or ``atol`` is negative or not finite.

    Examples
    --------
    >>> from rnndoc.compare import assert_close
    >>> assert_close([0.1 + 0.2], [0.3], atol=1e-15)
    5.551115123125783e-17
    >>> assert_close([1.0], [1.1], atol=1e-12, what="h_n")
    Traceback (most recent call last):
    ...
    AssertionError: h_n: max |difference| 0.10000000000000009 exceeds atol 1e-12
    """
    atol = check_float("atol", atol, minimum=0)
    what = check_str("what", what)
    gap = max_abs_difference(actual, expected)
    if not gap <= atol:  # also catches NaN
        raise AssertionError(f"{what}: max |difference| {gap!r} exceeds atol {atol!r}")
    return gap
