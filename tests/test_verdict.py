"""The comparison helpers: the tolerance policy and central differences."""

import math

import pytest
import torch

from rnndoc.verdict import (
    EXACT_ATOL,
    FINITE_DIFF_ATOL,
    FLOAT64_ATOL,
    assert_close,
    central_difference,
    max_abs_difference,
)


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


@pytest.mark.parametrize("eps", [0.0, -1e-6, float("inf"), "1e-6"])
def test_central_difference_rejects_bad_eps(eps):
    with pytest.raises(ValueError, match="eps must be a positive finite number"):
        central_difference(lambda v: v.sum(), torch.zeros(1, dtype=torch.float64), eps)


def test_central_difference_rejects_integer_point():
    with pytest.raises(TypeError, match=r"point must be a floating torch\.Tensor"):
        central_difference(lambda v: v.sum(), torch.zeros(1, dtype=torch.int64))
