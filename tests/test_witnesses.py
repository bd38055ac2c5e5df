"""The hand-set network's witnesses and experiments: they agree, and the values are pinned.

The pinned values are regression anchors: they were computed by sympy from the seed's
numbers. Changing a hand-set number, or breaking a witness, fails these tests.
"""

import pytest
import torch

from rnndoc import experiments, handset, witnesses
from rnndoc.finite_differences import finite_difference_gradients
from rnndoc.verdict import EXACT_ATOL, FINITE_DIFF_ATOL, assert_close

PINNED_LOSS = 0.0948162673501513
PINNED_HIDDEN = [
    [0.4218990052500079, -0.07485969068749912],
    [0.029711801283024964, 0.09430034777044712],
    [0.25336085288950694, 0.3454713760228567],
]
PINNED_GRADIENTS = {
    "weight_ih_l0": [[0.4636348729699224, 0.4127211485594859], [0.1408599079644207, -0.003637106827706769]],
    "weight_hh_l0": [
        [0.14985321548960498, -0.07064264872971003],
        [-0.05050225847700915, 0.019393124727794826],
    ],
    "bias_ih_l0": [0.7328396658400523, 0.009113502453923459],
    "bias_hh_l0": [0.7328396658400523, 0.009113502453923459],
    "h_0": [[[0.15687160631987568, 0.053118021304737056]]],
}


def test_forward_is_pinned_and_witnesses_agree():
    fwd = witnesses.forward()
    assert_close(fwd.hidden, PINNED_HIDDEN, atol=1e-15, what="hidden")
    assert_close(fwd.output[0], fwd.hidden, atol=1e-14, what="nn.RNN vs Python")
    assert torch.equal(fwd.h_n[0], fwd.output[:, -1])


def test_loss_is_pinned():
    assert float(witnesses.exact_loss()) == pytest.approx(PINNED_LOSS, abs=1e-16)
    assert witnesses.forward().loss == pytest.approx(PINNED_LOSS, abs=EXACT_ATOL)  # through nn.RNN


def test_sympy_splits_sum_to_the_gradient_and_differ_from_each_other():
    split = witnesses.sympy_weight_hh_split()
    total = torch.tensor(PINNED_GRADIENTS["weight_hh_l0"], dtype=torch.float64)
    for name in ("per_use", "per_loss_term"):
        assert split[name].shape == (3, 2, 2)
        assert_close(split[name].sum(0), total, atol=1e-16, what=name)
    # the last use feeds only the last loss term; the first loss term receives only the first use
    assert (split["per_use"][2] - split["per_loss_term"][2]).abs().max() > 1e-3
    assert (split["per_use"][0] - split["per_loss_term"][0]).abs().max() > 1e-3


@pytest.mark.parametrize(
    ("witness", "atol"),
    [
        (witnesses.sympy_gradients, 1e-16),
        (witnesses.bptt_handset_gradients, EXACT_ATOL),
        (witnesses.autograd_gradients, EXACT_ATOL),
        (finite_difference_gradients, FINITE_DIFF_ATOL),
    ],
)
def test_every_witness_gives_the_pinned_gradients(witness, atol):
    grads = witness()
    assert list(grads) == list(handset.PARAMETER_NAMES)
    for name, expected in PINNED_GRADIENTS.items():
        assert list(grads[name].shape) == list(torch.tensor(expected).shape), name
        assert_close(grads[name], expected, atol=atol, what=f"{witness.__name__} {name}")


def test_order_changes_the_final_state():
    order = experiments.order_sensitivity("CAB")
    assert order.max_abs_difference > 0.1
    assert_close(order.h_n.flatten(), PINNED_HIDDEN[-1], atol=1e-15)
    same = experiments.order_sensitivity("ABC")
    assert same.max_abs_difference == 0.0


def test_chunks_carry_and_reset():
    for split in (1, 2):
        chunks = experiments.chunked_forward(split)
        assert chunks.carry_max_abs_error <= 1e-15
        assert chunks.reset_max_abs_difference > 1e-3


@pytest.mark.parametrize(("split", "error"), [(0, ValueError), (3, ValueError), (1.0, TypeError)])
def test_chunk_split_errors(split, error):
    with pytest.raises(error, match="split must be"):
        experiments.chunked_forward(split)


def test_order_errors():
    with pytest.raises(ValueError, match="reordered must be a permutation of 'ABC', got 'AAB'"):
        experiments.order_sensitivity("AAB")


def test_finite_difference_error_is_v_shaped():
    big, best, tiny = experiments.finite_difference_error([1e-2, 1e-6, 1e-12])
    assert best < FINITE_DIFF_ATOL
    assert big > 1e3 * best
    assert tiny > 1e3 * best
