"""The hand-set numbers: one source, two forms, pinned to the seed's values."""

import pytest
import sympy
import torch

from rnndoc import handset

# The seed's numbers (shared/seeds/000): if one changes, this test must fail.
SEED = {
    "weight_ih_l0": [[0.4, -0.2], [0.1, 0.3]],
    "weight_hh_l0": [[0.5, 0.15], [-0.25, 0.4]],
    "bias_ih_l0": [0.05, -0.10],
    "bias_hh_l0": [-0.02, 0.03],
    "h_0": [[[0.10, -0.20]]],  # (num_layers * D, N, H)
    "inputs": [[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]],  # (N, L, H_in)
    "targets": [[[0.2, -0.1], [-0.2, 0.3], [0.1, 0.2]]],  # (N, L, H)
}


def test_tensors_are_the_seed_numbers():
    values = handset.tensors()
    assert set(values) == set(SEED)
    for name, expected in SEED.items():
        assert values[name].dtype == torch.float64
        assert values[name].tolist() == expected, name
    assert handset.floats() == SEED  # the torch-free form: the same numbers, the same nesting


def test_exact_rationals_round_to_the_tensors():
    exact, floats = handset.exact(), handset.tensors()
    for name, matrix in exact.items():
        assert all(isinstance(v, sympy.Rational) for v in matrix), name
        as_float = [float(v) for v in matrix]
        assert as_float == floats[name].flatten().tolist(), name
    assert exact["weight_hh_l0"][0, 1] == sympy.Rational(3, 20)


def test_make_rnn_holds_the_parameters():
    rnn, h_0 = handset.make_rnn()
    assert h_0.shape == (1, 1, 2)
    assert h_0.flatten().tolist() == [0.1, -0.2]
    assert rnn.batch_first
    assert rnn.nonlinearity == "tanh"
    params = dict(rnn.named_parameters())
    assert sorted(params) == sorted(name for name in handset.PARAMETER_NAMES if name != "h_0")
    for name, value in params.items():
        assert value.tolist() == SEED[name]


@pytest.mark.parametrize("order", ["CAB", "A", "CCC"])
def test_inputs_follow_the_order(order):
    tokens = {"A": [1.0, 0.0], "B": [0.0, 1.0], "C": [1.0, 1.0]}
    x = handset.inputs(order)
    assert x.shape == (1, len(order), 2)
    assert x[0].tolist() == [tokens[t] for t in order]


@pytest.mark.parametrize(("order", "error"), [("ABD", ValueError), ("", ValueError), (["A"], TypeError)])
def test_bad_order_is_named(order, error):
    with pytest.raises(error, match="order"):
        handset.tensors(order)


def test_bad_dtype_is_named():
    with pytest.raises(ValueError, match=r"dtype must be a floating dtype, got torch\.int64"):
        handset.tensors(dtype=torch.int64)
    with pytest.raises(TypeError, match=r"dtype must be a torch\.dtype, got str"):
        handset.make_rnn(dtype="float64")
