"""Tensors written as LaTeX matrices for the chapters' tables."""

import pytest
import torch

from rnndoc.display import latex_matrix


def test_matrix_rows_and_columns():
    assert latex_matrix(torch.tensor([[1.0, 2.0], [3.0, -4.5]])) == (
        r"\begin{bmatrix} 1 & 2 \\ 3 & -4.5 \end{bmatrix}"
    )


def test_vector_is_a_column_and_digits_are_fixed():
    assert latex_matrix([0.125, -2.0], digits=2) == r"\begin{bmatrix} 0.12 \\ -2.00 \end{bmatrix}"


def test_negative_zero_loses_its_sign():
    assert latex_matrix([[-0.0, -1e-12]], digits=4) == r"\begin{bmatrix} 0.0000 & 0.0000 \end{bmatrix}"
    assert latex_matrix([-0.0]) == r"\begin{bmatrix} 0 \end{bmatrix}"


def test_leading_axes_of_size_one_are_dropped():
    assert latex_matrix(torch.tensor([[[0.5, -1.0]]])) == r"\begin{bmatrix} 0.5 & -1 \end{bmatrix}"


def test_other_shapes_are_refused():
    with pytest.raises(ValueError, match=r"shape \(K,\) or \(R, C\), got shape \(2, 1, 1\)"):
        latex_matrix(torch.zeros(2, 1, 1))
