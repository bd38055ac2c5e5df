"""The many-to-one classifier: sympy, autograd, the three paths, and one SGD step."""

import pytest
import torch

from rnndoc import classification as clf
from rnndoc.verdict import EXACT_ATOL, FLOAT64_ATOL, assert_close


@pytest.mark.parametrize("h_0_zero", [False, True])
def test_sympy_and_autograd_agree(h_0_zero):
    exact = clf.symbolic_gradients(h_0_zero)
    loss, grads = clf.loss_and_gradients(clf.tensors(h_0_zero))
    for name in ("weight_ih_l0", "weight_hh_l0", "linear.weight"):
        assert_close(grads[name].flatten(), [float(v) for v in exact[name]], atol=EXACT_ATOL, what=name)
    assert_close(loss, float(exact["loss"][0]), atol=EXACT_ATOL)


def test_paths_sum_to_the_gradient_and_h_0_zero_kills_the_first():
    _, grads = clf.loss_and_gradients(clf.tensors())
    paths = clf.path_contributions(clf.tensors())
    assert_close(paths.sum(0), grads["weight_hh_l0"], atol=FLOAT64_ATOL)
    assert all(paths[t].abs().max() > 1e-3 for t in range(3))
    assert torch.all(clf.path_contributions(clf.tensors(h_0_zero=True))[0] == 0)


def test_the_loss_is_pinned():
    loss, _ = clf.loss_and_gradients(clf.tensors())
    assert loss.item() == pytest.approx(0.5341871689041121, abs=1e-15)


def test_sgd_step_by_hand_equals_torch():
    step = clf.sgd_step(0.5)
    for name, value in step["by_hand"].items():
        assert_close(value, step["by_torch"][name], atol=FLOAT64_ATOL, what=name)
    assert step["loss_after"] < step["loss_before"]


def test_bad_inputs_are_named():
    values = clf.tensors() | {"inputs": torch.zeros(3, 4, dtype=torch.float64)}
    with pytest.raises(ValueError, match=r"inputs must have shape \(T, V\) = \(\*, 3\), got \(3, 4\)"):
        clf.loss_and_gradients(values)


@pytest.mark.parametrize(
    "function",
    [
        lambda target: clf.loss_and_gradients(clf.tensors(), target),
        lambda target: clf.path_contributions(clf.tensors(), target),
        lambda target: clf.symbolic_gradients(target=target),
    ],
    ids=["loss_and_gradients", "path_contributions", "symbolic_gradients"],
)
def test_issue_10_case_6_a_target_outside_the_classes_is_named(function):
    with pytest.raises(ValueError, match=r"^target must be at most 1, got 2$"):
        function(2)
    with pytest.raises(ValueError, match=r"^target must be at least 0, got -1$"):
        function(-1)
    with pytest.raises(TypeError, match=r"^target must be an int, got float$"):
        function(1.0)


def test_the_other_class_is_a_valid_target():
    exact = clf.symbolic_gradients(target=0)
    loss, grads = clf.loss_and_gradients(clf.tensors(), target=0)
    assert_close(loss, float(exact["loss"][0]), atol=EXACT_ATOL)
    assert_close(
        clf.path_contributions(clf.tensors(), target=0).sum(0), grads["weight_hh_l0"], atol=FLOAT64_ATOL
    )
    assert loss.item() > 0.534187  # the hand-set sequence is class 1: class 0 costs more
