"""The sympy derivation: the derived rule, the identity, and exact values against torch."""

import itertools

import pytest
import sympy
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnndoc.bptt import bptt_gradients
from rnndoc.handset import PARAMETER_NAMES
from rnndoc.symbolic import (
    bptt,
    check_identity,
    derivation,
    derive_delta_rule,
    derive_parameter_rules,
    direct_gradients,
    evaluate,
    gradients,
    symbolic_parameters,
    symbolic_sequence,
    textbook_delta,
    to_tensor,
    unroll,
)
from rnndoc.verdict import EXACT_ATOL, assert_close


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
    params = symbolic_parameters(3, 2)
    derived = derive_parameter_rules(params)
    rules = derived.contributions

    def column(stem, size):
        return sympy.Matrix(size, 1, lambda i, _: sympy.Symbol(f"{stem},{i}}}", real=True))

    delta_t, h_prev, x_t = column(r"\delta_{t", 2), column("h_{t-1", 2), column("x_{t", 3)
    assert rules["weight_hh_l0"] == delta_t * h_prev.T
    assert rules["weight_ih_l0"] == delta_t * x_t.T
    assert rules["bias_ih_l0"] == rules["bias_hh_l0"] == delta_t
    assert (rules["h_0"] - params["weight_hh_l0"].T * delta_t).applyfunc(sympy.expand) == sympy.zeros(2, 1)
    assert (derived.delta, derived.h_prev, derived.x) == (delta_t, h_prev, x_t)  # the symbols it returns


def test_symbols_are_distinct_for_large_sizes():
    params = symbolic_parameters(12, 12)
    symbols = [s for value in params.values() for s in value]
    assert len(set(symbols)) == len(symbols) == 12 * 12 + 12 * 12 + 3 * 12


@pytest.mark.parametrize(
    ("input_size", "hidden_size", "length"), [(1, 1, 1), (1, 1, 3), (2, 2, 2), (2, 2, 3)]
)
def test_identity_holds_for_symbolic_everything(input_size, hidden_size, length):
    params = symbolic_parameters(input_size, hidden_size)
    net = unroll(params, *symbolic_sequence(length, input_size, hidden_size))
    assert check_identity(net) == sum(len(v) for v in params.values())


def test_identity_check_detects_a_wrong_recursion(monkeypatch):
    """check_identity has teeth: with W_hh instead of its transpose in the rule, it fails."""
    real = derivation.derive_delta_rule

    def transposed_wrongly(weight_hh):
        rule = real(weight_hh)
        wrong = (rule.hidden - rule.target + rule.weight_hh * rule.delta_next).multiply_elementwise(
            rule.hidden.applyfunc(lambda v: 1 - v**2)
        )
        return derivation.DeltaRule(wrong, rule.hidden, rule.target, rule.delta_next, rule.weight_hh)

    net = unroll(symbolic_parameters(1, 2), *symbolic_sequence(2, 1, 2))
    assert check_identity(net) == 12
    monkeypatch.setattr(gradients, "derive_delta_rule", transposed_wrongly)  # where bptt reads it
    with pytest.raises(AssertionError, match=r"BPTT and direct differentiation differ at weight_ih_l0\[0\]"):
        check_identity(net)


def test_identity_check_detects_a_missing_loss_term():
    net = unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]])
    wrong = direct_gradients(net, loss=net.step_losses[-1])  # only the last loss term
    right = bptt(net).gradients
    assert sympy.expand(wrong["weight_hh_l0"][0] - right["weight_hh_l0"][0]) != 0


@settings(max_examples=25)
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 4),
    st.lists(st.fractions(min_value=-2, max_value=2, max_denominator=20), min_size=1, max_size=40),
)
def test_derived_rule_at_50_digits_matches_float64_recursion(input_size, hidden_size, length, numbers):
    """Random rational networks: the derived rules, run in 50-digit arithmetic, equal the float64 recursion.

    The parameters enter sympy as 50-digit Floats, so every tanh is evaluated as it is built
    (exact rationals would nest unevaluated tanh expressions, which is slow to evaluate).
    """
    pool = itertools.cycle(numbers)

    def matrix(rows, cols):
        return sympy.Matrix(rows, cols, lambda *_: sympy.Float(sympy.Rational(next(pool)), 50))

    params = {
        "weight_ih_l0": matrix(hidden_size, input_size),
        "weight_hh_l0": matrix(hidden_size, hidden_size),
        "bias_ih_l0": matrix(hidden_size, 1),
        "bias_hh_l0": matrix(hidden_size, 1),
        "h_0": matrix(hidden_size, 1),
    }
    x, y = matrix(length, input_size), matrix(length, hidden_size)
    high_precision = bptt(unroll(params, x, y)).gradients

    def t(m):
        return torch.tensor([[float(v) for v in m.row(i)] for i in range(m.rows)], dtype=torch.float64)

    values = {name: t(m) if name.startswith("weight") else t(m).flatten() for name, m in params.items()}
    values["h_0"] = values["h_0"].view(1, 1, -1)  # (1, N, H)
    numeric = bptt_gradients(values | {"inputs": t(x).unsqueeze(0), "targets": t(y).unsqueeze(0)})
    for name in PARAMETER_NAMES:
        expected = [float(v) for v in evaluate(high_precision[name], 50)]
        assert_close(numeric.gradients[name].flatten(), expected, atol=EXACT_ATOL, what=name)


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


def test_rule_and_evaluate_errors():
    rule = derive_delta_rule([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"target must have shape \(2, 1\), got \(3, 1\)"):
        rule.apply([[0], [0]], [[0], [0], [0]], [[0], [0]])
    with pytest.raises(ValueError, match=r"weight_hh must have shape \(H, H\), got \(1, 2\)"):
        derive_delta_rule([[1, 2]])
    with pytest.raises(TypeError, match="rule must be a DeltaRule"):
        textbook_delta("delta")
    with pytest.raises(ValueError, match="parameters is missing"):
        derive_parameter_rules({})
    with pytest.raises(TypeError, match="network must be an Unrolled"):
        bptt({})
    with pytest.raises(ValueError, match="digits must be at least 1"):
        evaluate(sympy.pi, 0)
    with pytest.raises(TypeError, match="value must be a sympy expression"):
        evaluate([1, 2])


def test_derivation_costs_direct_grows_faster_than_recursion():
    from rnndoc.symbolic.derivation_cost import derivation_costs  # noqa: PLC0415

    direct = derivation_costs(2, "direct", budget_seconds=60, max_length=3)
    recursion = [p["size_cse"] for p in derivation_costs(2, "recursion", budget_seconds=60, max_length=3)]
    assert len(direct) == len(recursion) == 3
    assert recursion[2] - recursion[1] == recursion[1] - recursion[0] > 0  # linear
    assert direct[2]["size"] / direct[1]["size"] > 2  # geometric, as trees
    assert direct[2]["size_cse"] > recursion[2]  # larger even after cse


def test_derivation_costs_errors_and_minimum_length():
    from rnndoc.symbolic.derivation_cost import derivation_costs  # noqa: PLC0415

    with pytest.raises(ValueError, match="method must be one of 'direct', 'recursion', got 'numeric'"):
        derivation_costs(2, "numeric", budget_seconds=1)
    with pytest.raises(ValueError, match="budget_seconds must be positive"):
        derivation_costs(2, "direct", budget_seconds=0)
    points = derivation_costs(1, "recursion", budget_seconds=1e-9, max_length=5, min_length=2)
    assert [p["length"] for p in points] == [1, 2]  # over budget at once, but never below min_length


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_symbolic_step_matches_the_from_scratch_cell(kind):
    from rnndoc.layers import gru_cell, lstm_cell  # noqa: PLC0415
    from rnndoc.symbolic.gated import gru_step, handset_point, lstm_step, step_symbols  # noqa: PLC0415

    s = step_symbols(kind, 2, 3)
    point = handset_point(s)

    def tensor(name):
        m = s[name].xreplace(point)
        return torch.tensor([[float(v) for v in m.row(i)] for i in range(m.rows)], dtype=torch.float64)

    weights = [tensor(n) for n in ("weight_ih", "weight_hh")] + [
        tensor(n)[:, 0] for n in ("bias_ih", "bias_hh")
    ]
    if kind == "LSTM":
        h, c, _ = lstm_step(s)
        h_t, c_t = lstm_cell(tensor("x")[:, 0], (tensor("h")[:, 0], tensor("c")[:, 0]), *weights)
        expected = torch.cat([h_t, c_t])
        symbolic = h.col_join(c)
    else:
        symbolic = gru_step(s)
        expected = gru_cell(tensor("x")[:, 0], tensor("h")[:, 0], *weights)
    assert_close(expected, [float(v) for v in evaluate(symbolic.xreplace(point), 50)], atol=EXACT_ATOL)


def test_step_symbols_rejects_unknown_kind():
    from rnndoc.symbolic.gated import step_symbols  # noqa: PLC0415

    with pytest.raises(ValueError, match="kind must be one of 'LSTM', 'GRU'"):
        step_symbols("RNN")


def test_numeric_and_symbolic_bptt_take_the_handset_mapping_and_return_its_keys():
    from rnndoc import handset  # noqa: PLC0415
    from rnndoc.symbolic import to_tensor  # noqa: PLC0415

    exact = handset.exact()
    assert list(bptt(unroll(exact)).gradients) == list(PARAMETER_NAMES)  # exact rationals go straight in
    at_50_digits = {name: m.applyfunc(lambda r: sympy.Float(r, 50)) for name, m in exact.items()}  # fast
    symbolic = bptt(unroll(at_50_digits)).gradients
    numeric = bptt_gradients(handset.tensors()).gradients
    assert list(symbolic) == list(numeric) == list(PARAMETER_NAMES)
    for name, value in numeric.items():
        assert_close(value, to_tensor(evaluate(symbolic[name], 50), like=value), atol=EXACT_ATOL, what=name)


def test_unroll_without_a_sequence_names_it():
    with pytest.raises(ValueError, match=r"inputs must be given, or held by parameters\['inputs'\]"):
        unroll(symbolic_parameters(1, 1))


@pytest.mark.parametrize(
    ("truncation", "error"), [(0, ValueError), (-1, ValueError), (True, TypeError), (2.5, TypeError)]
)
def test_issue_10_case_5_symbolic_truncation_is_refused_like_the_numeric(truncation, error):
    from rnndoc.handset import exact, tensors  # noqa: PLC0415

    with pytest.raises(error) as symbolic_error:
        bptt(unroll(exact()), truncation=truncation)
    with pytest.raises(error) as numeric_error:
        bptt_gradients(tensors(), truncation=truncation)
    assert str(symbolic_error.value) == str(numeric_error.value)
    assert str(symbolic_error.value).startswith("truncation must be")


@pytest.mark.parametrize("truncation", [1, 2, 3])
def test_symbolic_truncation_gives_the_numeric_values(truncation):
    from rnndoc.handset import exact, tensors  # noqa: PLC0415

    symbolic = bptt(unroll(exact()), truncation=truncation).gradients
    numeric = bptt_gradients(tensors(), truncation=truncation).gradients
    for name, value in numeric.items():
        assert_close(value, to_tensor(evaluate(symbolic[name], 30), like=value), atol=EXACT_ATOL, what=name)
