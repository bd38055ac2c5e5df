"""The sympy derivation: the derived rule, the identity, and exact values against torch."""

import itertools

import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnndoc.bptt import bptt_gradients
from rnndoc.checks import EXACT_ATOL, assert_close
from rnndoc.symbolic import (
    GRADIENT_NAMES,
    bptt,
    check_identity,
    derive_delta_rule,
    derive_parameter_rules,
    direct_gradients,
    evaluate,
    symbolic_parameters,
    symbolic_sequence,
    textbook_delta,
    unroll,
)


@pytest.mark.parametrize("hidden_size", [1, 2, 3])
def test_derived_delta_is_the_textbook_recursion(hidden_size):
    rule = derive_delta_rule(symbolic_parameters(1, hidden_size)["weight_hh_l0"])
    assert rule.delta.shape == (hidden_size, 1)
    assert (rule.delta - textbook_delta(rule)).applyfunc(sympy.expand) == sympy.zeros(hidden_size, 1)


def test_derived_delta_has_the_tanh_derivative():
    """Dropping 1 - h^2 from the textbook form makes the identity fail: the check has teeth."""
    rule = derive_delta_rule(symbolic_parameters(1, 2)["weight_hh_l0"])
    broken = rule.hidden - rule.target + rule.weight_hh.T * rule.delta_next
    assert (rule.delta - broken).applyfunc(sympy.expand) != sympy.zeros(2, 1)


def test_parameter_rules_are_outer_products():
    rules = derive_parameter_rules(symbolic_parameters(3, 2))
    assert rules["weight_ih_l0"].shape == (2, 3)
    assert rules["weight_hh_l0"].shape == (2, 2)
    assert rules["bias_hh_l0"] == rules["bias_ih_l0"]
    delta = rules["bias_ih_l0"]
    assert str(delta[1]) == r"\delta_{t,1}"


@pytest.mark.parametrize(
    ("input_size", "hidden_size", "length"), [(1, 1, 1), (1, 1, 3), (2, 2, 2), (2, 2, 3)]
)
def test_identity_holds_for_symbolic_everything(input_size, hidden_size, length):
    params = symbolic_parameters(input_size, hidden_size)
    net = unroll(params, *symbolic_sequence(length, input_size, hidden_size))
    assert check_identity(net) == sum(len(v) for v in params.values())


def test_identity_check_detects_a_wrong_gradient():
    net = unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]])
    wrong = direct_gradients(net, loss=net.step_losses[-1])  # only the last loss term
    right = bptt(net).gradients
    assert sympy.expand(wrong["weight_hh_l0"][0] - right["weight_hh_l0"][0]) != 0


@settings(max_examples=15)
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 3),
    st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=20), min_size=1, max_size=40),
)
def test_exact_values_match_float64_recursion(input_size, hidden_size, length, numbers):
    """Random rational networks: sympy's 50-digit gradients equal the float64 recursion to 1e-13."""
    pool = itertools.cycle(numbers)

    def matrix(rows, cols):
        return sympy.Matrix(rows, cols, lambda *_: sympy.Rational(next(pool)))

    params = {
        "weight_ih_l0": matrix(hidden_size, input_size),
        "weight_hh_l0": matrix(hidden_size, hidden_size),
        "bias_ih_l0": matrix(hidden_size, 1),
        "bias_hh_l0": matrix(hidden_size, 1),
        "h_0": matrix(hidden_size, 1),
    }
    x, y = matrix(length, input_size), matrix(length, hidden_size)
    exact = bptt(unroll(params, x, y)).gradients

    def t(m):
        return torch.tensor([[float(v) for v in m.row(i)] for i in range(m.rows)], dtype=torch.float64)

    numeric = bptt_gradients(
        t(x),
        t(y),
        t(params["h_0"]).flatten(),
        t(params["weight_ih_l0"]),
        t(params["weight_hh_l0"]),
        t(params["bias_ih_l0"]).flatten(),
        t(params["bias_hh_l0"]).flatten(),
    )
    for name in GRADIENT_NAMES:
        expected = evaluate(exact[name], 50)
        assert_close(
            numeric.gradients[name].flatten(), [float(v) for v in expected], atol=EXACT_ATOL, what=name
        )


def test_unroll_shapes_and_loss():
    net = unroll(symbolic_parameters(2, 3), *symbolic_sequence(4, 2, 3))
    assert net.length == 4
    assert all(a.shape == (3, 1) for a in net.preactivations)
    assert net.loss == sum(net.step_losses)
    assert net.hidden[0][0] == sympy.tanh(net.preactivations[0][0])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"inputs": [[1, 2, 3]]}, ValueError, r"inputs must have shape \(T, 2\), got \(1, 3\)"),
        ({"targets": [[1]]}, ValueError, r"targets must have shape \(1, 2\), got \(1, 1\)"),
    ],
)
def test_unroll_errors(kwargs, error, match):
    args = {"parameters": symbolic_parameters(2, 2), "inputs": [[1, 0]], "targets": [[0, 0]]} | kwargs
    with pytest.raises(error, match=match):
        unroll(**args)


def test_unroll_missing_and_misshapen_parameters():
    params = symbolic_parameters(2, 2)
    with pytest.raises(ValueError, match="missing h_0"):
        unroll({k: v for k, v in params.items() if k != "h_0"}, [[1, 0]], [[0, 0]])
    with pytest.raises(
        ValueError, match=r"parameters\['weight_hh_l0'\] must have shape \(2, 2\), got \(2, 3\)"
    ):
        unroll(params | {"weight_hh_l0": sympy.zeros(2, 3)}, [[1, 0]], [[0, 0]])


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (1.5, TypeError), (True, TypeError)])
def test_symbolic_parameters_sizes(value, error):
    with pytest.raises(error, match="hidden_size"):
        symbolic_parameters(2, value)


def test_direct_gradients_need_symbols():
    values = {k: sympy.ones(*v.shape) for k, v in symbolic_parameters(1, 1).items()}
    with pytest.raises(ValueError, match="must hold symbols"):
        direct_gradients(unroll(values, [[1]], [[0]]))
