"""The verdict (tolerance table, comparisons) and the central differences of the witnesses."""

import dataclasses
import math
import re
import subprocess
import sys

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from rnndoc import finite_differences, witnesses
from rnndoc.finite_differences import central_difference
from rnndoc.verdict import (
    EXACT_ATOL,
    FINITE_DIFF_ATOL,
    FINITE_DIFF_EPS_RANGE,
    FLOAT64_ATOL,
    GRADIENT_CHECKS,
    TOLERANCES,
    assert_close,
    check_finite_difference_eps,
    gradient_gaps,
    handset_gaps,
    judge,
    max_abs_difference,
)


def test_reading_the_table_loads_neither_sympy_nor_the_witnesses():
    code = (
        "import sys; from rnndoc.verdict import TOLERANCES, judge; "
        "print(sorted(m for m in ('sympy', 'rnndoc.witnesses') if m in sys.modules), len(TOLERANCES))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.split() == ["[]", "6"]  # the command line's help reads the table cheaply


def test_the_gradient_checks_are_the_witnesses_but_the_reference():
    others = tuple(name for name in witnesses.GRADIENT_WITNESSES if name != witnesses.REFERENCE)
    assert others == GRADIENT_CHECKS
    assert set(GRADIENT_CHECKS) <= set(TOLERANCES)


def test_the_default_step_lies_in_its_range_stated_beside_it():
    low, high = finite_differences.FINITE_DIFF_EPS_RANGE
    assert FINITE_DIFF_EPS_RANGE is finite_differences.FINITE_DIFF_EPS_RANGE  # one statement, re-exported
    assert low <= finite_differences.FINITE_DIFF_EPS <= high


def test_tolerances_are_the_policy():
    assert (FLOAT64_ATOL, EXACT_ATOL, FINITE_DIFF_ATOL) == (1e-12, 1e-13, 1e-7)


def test_central_difference_of_a_known_function():
    point = torch.tensor([[0.3, -1.2], [2.0, 0.5]], dtype=torch.float64)
    grad = central_difference(lambda v: torch.sin(v).sum(), point)
    assert grad.shape == point.shape
    assert_close(grad, torch.cos(point), atol=1e-9, what="d sin")
    assert point.tolist() == [[0.3, -1.2], [2.0, 0.5]], "the point must not be modified"


def test_central_difference_error_shrinks_like_eps_squared():
    point = torch.tensor([1.0], dtype=torch.float64)
    errors = [
        abs(central_difference(lambda v: torch.exp(v).sum(), point, eps).item() - math.e)
        for eps in (1e-2, 1e-3)
    ]
    assert 50 < errors[0] / errors[1] < 200  # truncation O(eps^2): a factor near 100


def test_assert_close_reports_nan():
    with pytest.raises(AssertionError, match="nan"):
        assert_close([float("nan")], [0.0], atol=1.0)


def test_max_abs_difference_shape_mismatch():
    with pytest.raises(ValueError, match=r"same shape, got \(2,\) and \(3,\)"):
        max_abs_difference([1.0, 2.0], [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    ("eps", "error", "match"),
    [
        (0.0, ValueError, "eps must be positive, got 0.0"),
        (-1e-6, ValueError, "eps must be positive, got -1e-06"),
        (float("inf"), ValueError, "eps must be finite, got inf"),
        ("1e-6", TypeError, "eps must be a number, got str"),
    ],
)
def test_central_difference_rejects_bad_eps(eps, error, match):
    with pytest.raises(error, match=match):
        central_difference(lambda v: v.sum(), torch.zeros(1, dtype=torch.float64), eps)


def test_central_difference_rejects_integer_point():
    with pytest.raises(TypeError, match=r"point must have a floating dtype, got torch\.int64"):
        central_difference(lambda v: v.sum(), torch.zeros(1, dtype=torch.int64))


def test_judge_reads_the_one_table():
    checks = judge({"bptt": 2e-13, "forward": 1e-15})
    assert checks["bptt"] == {
        "max_abs_difference_to_sympy": 2e-13,
        "atol": TOLERANCES["bptt"],
        "passed": False,
    }
    assert checks["forward"]["passed"]
    with pytest.raises(ValueError, match="gaps has checks without a tolerance: nope"):
        judge({"nope": 0.0})


def test_the_split_check_compares_each_split_term_not_only_the_total():
    witnessed = witnesses.witness_all()
    split = witnessed.split
    assert handset_gaps(witnessed)["weight_hh_split"] <= TOLERANCES["weight_hh_split"]
    # move 0.01 from use 1 to use 2 within loss term 3: the total and the per-term sums stay,
    # the per-use sums do not
    moved = split.clone()
    moved[0, 2, 0, 0] += 0.01
    moved[1, 2, 0, 0] -= 0.01
    assert (moved.sum((0, 1)) - split.sum((0, 1))).abs().max() < 1e-15
    gap = handset_gaps(dataclasses.replace(witnessed, split=moved))["weight_hh_split"]
    assert gap == pytest.approx(0.01, abs=1e-12)
    # the same move within use 1, from loss term 2 to loss term 3: now the per-term sums differ
    moved = split.clone()
    moved[0, 1, 0, 0] += 0.01
    moved[0, 2, 0, 0] -= 0.01
    gap = handset_gaps(dataclasses.replace(witnessed, split=moved))["weight_hh_split"]
    assert gap == pytest.approx(0.01, abs=1e-12)


def test_the_report_gaps_are_the_witnesses_gaps():
    """One build of the hand-set data gives the gaps the separately called witnesses give."""
    witnessed = witnesses.witness_all()
    apart = {name: witness() for name, witness in witnesses.GRADIENT_WITNESSES.items()}
    gaps = handset_gaps(witnessed)
    assert {name: gaps[name] for name in GRADIENT_CHECKS} == gradient_gaps(apart)
    assert gaps["forward"] == max_abs_difference(witnesses.forward().output[0], witnesses.forward().hidden)
    assert gaps["loss"] == max_abs_difference(witnesses.forward().loss, float(witnesses.exact_loss()))
    assert list(gaps) == list(TOLERANCES)


@given(st.floats(min_value=1e-320, max_value=1e300, allow_nan=False))
def test_the_finite_difference_step_is_accepted_exactly_in_its_range(eps):
    low, high = FINITE_DIFF_EPS_RANGE
    if low <= eps <= high:
        assert check_finite_difference_eps(eps) == eps
    else:
        with pytest.raises(
            ValueError, match=r"eps must lie in \[1e-08, 0.0001\].*got " + re.escape(repr(eps))
        ):
            check_finite_difference_eps(eps)
