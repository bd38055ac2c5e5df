"""The products by the layers' weights: the oneDNN path agrees with the plain one, and is taken only where it may be.

rnndoc.layers.products multiplies by a weight packed once for oneDNN for float32 CPU tensors
that autograd does not record, and falls back to ATen's ``@`` everywhere else. Which kernel
ran is counted by op (a dispatch mode below autograd), so each test says which path it saw.
"""

from __future__ import annotations

import contextlib
import warnings

import pytest
import torch
from torch import nn
from torch.autograd import forward_ad
from torch.nn.utils.rnn import pack_padded_sequence

from rnndoc.layers import backward, forward, products
from rnndoc.layers.products import Packed, linear, matmul, onednn_applies

ONEDNN = torch.backends.mkldnn.is_available() and products._onednn_works()
needs_onednn = pytest.mark.skipif(not ONEDNN, reason="oneDNN is not built in or failed its probe here")


def _op_counts(call) -> dict[str, int]:
    """How many times each op ran in ``call()``, by the profiler's names (``mkldnn::_linear_pointwise``)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        call()
    return {event.key: event.count for event in profile.key_averages()}


def _packed_products(call) -> int:
    """How many products ``call()`` ran through oneDNN's packed GEMM."""
    return _op_counts(call).get("mkldnn::_linear_pointwise", 0)


@contextlib.contextmanager
def _onednn_off():
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="TF32 acceleration on top of oneDNN"
        )  # a note for Intel GPUs
        with torch.backends.mkldnn.flags(enabled=False):
            yield


def _flat(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if hasattr(value, "batch_sizes"):
        return [value.data]
    if isinstance(value, dict):
        return [t for key in sorted(value) for t in _flat(value[key])]
    return [t for item in value for t in _flat(item)]


def _problem(kind: str, dtype=torch.float32):
    torch.manual_seed(0)
    module = {
        "RNN": lambda: nn.RNN(6, 7, num_layers=2, bidirectional=True),
        "LSTM": lambda: nn.LSTM(6, 7, num_layers=2, bidirectional=True, proj_size=3),
        "GRU": lambda: nn.GRU(6, 7, num_layers=2, bidirectional=True),
    }[kind]().to(dtype)
    x = torch.randn(9, 4, 6, dtype=dtype)  # (L, N, H_in)
    packed = pack_padded_sequence(x, torch.tensor([9, 4, 7, 1]), enforce_sorted=False)
    return module, x, packed


def _both(module, x, packed) -> list[torch.Tensor]:
    """forward and backward, padded and packed input, with grad_output = the output itself (no autograd)."""
    with torch.no_grad():
        output, _ = forward(module, x)
        packed_output, _ = forward(module, packed)
        return [
            *_flat(forward(module, x)),
            *_flat(backward(module, x, grad_output=output)),
            *_flat(forward(module, packed)),
            *_flat(backward(module, packed, grad_output=packed_output)),
        ]


@needs_onednn
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_onednn_and_plain_paths_agree_in_float32(kind):
    """Both float32 paths differ from float64 by round-off only, and from each other by 1e-5 at most.

    Tolerance: the values here are of order 1 and each is a float32 sum of at most a few dozen
    products carried over 9 steps and 2 layers; float32 rounds at 6e-8 relative, so the two
    summation orders differ by a few 1e-7 (measured: under 2e-6). 1e-5 leaves room for other
    CPUs' kernels and still fails on a wrong product, which is off by order 1. Each path is
    also held to float64 (the module run in float64 by the plain, exact path): the oneDNN
    path's error may not exceed four times the plain path's (plus one float32 ulp of 1).
    """
    module, x, packed = _problem(kind)
    fast = _both(module, x, packed)
    with _onednn_off():
        plain = _both(module, x, packed)
        assert _packed_products(lambda: _both(module, x, packed)) == 0
    assert _packed_products(lambda: _both(module, x, packed)) > 0  # the oneDNN path really ran
    exact = _both(*_problem(kind, torch.float64))
    assert len(fast) == len(plain) == len(exact)
    for f, p, e in zip(fast, plain, exact, strict=True):
        torch.testing.assert_close(f, p, rtol=0, atol=1e-5)
        error_fast, error_plain = (f.double() - e).abs().max(), (p.double() - e).abs().max()
        assert error_fast <= 4 * error_plain + 1.2e-7, (error_fast, error_plain)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_float64_takes_the_plain_path(kind):
    module, x, packed = _problem(kind, torch.float64)
    assert _packed_products(lambda: _both(module, x, packed)) == 0


@needs_onednn
def test_a_recorded_forward_takes_the_plain_path_and_keeps_its_gradients():
    """Autograd through forward: the packed product has no derivative, so it must not run."""
    torch.manual_seed(0)
    module, x = nn.LSTM(6, 7, num_layers=2), torch.randn(9, 4, 6, requires_grad=True)
    results = []
    counts = _op_counts(lambda: results.append(forward(module, x)))
    output, _ = results[0]
    assert counts.get("mkldnn::_linear_pointwise", 0) == 0
    assert counts.get("aten::addmm", 0) > 0
    (grad,) = torch.autograd.grad(output.sum(), x)
    expected_output, _ = module(x)
    (expected,) = torch.autograd.grad(expected_output.sum(), x)
    torch.testing.assert_close(grad, expected, rtol=0, atol=1e-5)  # float32, as in the test above
    with torch.no_grad():  # the same call, unrecorded, runs packed
        assert _packed_products(lambda: forward(module, x)) > 0


def _float32(*shape: int) -> torch.Tensor:
    return torch.ones(*shape)


@needs_onednn
@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (lambda: onednn_applies(_float32(2, 3), None), True),
        (onednn_applies, False),
        (lambda: onednn_applies(_float32(2, 3), torch.ones(2, 3, dtype=torch.float64)), False),
        (lambda: onednn_applies(torch.ones(2, 3, dtype=torch.bfloat16)), False),
        (lambda: onednn_applies(torch.ones(2, 3, device="meta")), False),
        (lambda: onednn_applies(_float32(2, 3).requires_grad_()), False),
        (lambda: onednn_applies(nn.Parameter(_float32(2, 3))), False),  # a parameter records
        (lambda: _no_grad(lambda: onednn_applies(nn.Parameter(_float32(2, 3)))), True),
        (lambda: _autocast(lambda: onednn_applies(_float32(2, 3))), False),
        (lambda: _dual(onednn_applies), False),
        (lambda: _precision("medium", lambda: onednn_applies(_float32(2, 3))), False),
    ],
    ids=[
        "float32",
        "nothing",
        "float64",
        "bfloat16",
        "meta",
        "requires_grad",
        "parameter",
        "parameter-no_grad",
        "autocast",
        "forward-AD",
        "matmul-precision",
    ],
)
def test_onednn_applies_only_where_the_product_is_the_same(case, expected):
    assert case() is expected


def _no_grad(call):
    with torch.no_grad():
        return call()


def _autocast(call):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return call()


def _dual(call):
    with warnings.catch_warnings(), forward_ad.dual_level():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")  # torch's make_dual, first use
        return call(forward_ad.make_dual(_float32(2, 3), _float32(2, 3)))


_SEEN: list[bool] = []


def _record(seen: bool, t: torch.Tensor) -> torch.Tensor:
    """Keep what onednn_applies said inside torch.func.grad, which must return a tensor."""
    _SEEN[:] = [seen]
    return t * 1.0


def _precision(value: str, call):
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(value)
    try:
        return call()
    finally:
        torch.set_float32_matmul_precision(before)


@needs_onednn
def test_onednn_applies_is_false_inside_torch_func_grad():
    _SEEN.clear()
    torch.func.grad(lambda t: _record(onednn_applies(t), t).sum())(_float32(2))
    assert _SEEN == [False]


@needs_onednn
def test_packed_products_equal_the_plain_ones():
    """linear and matmul, with and without the added term, packed against plain, in float32."""
    torch.manual_seed(0)
    x, weight, add = torch.randn(5, 4), torch.randn(3, 4), torch.randn(5, 3)
    packed = Packed(weight, rows=5)
    with torch.no_grad():
        pairs = [
            (linear(x, packed), x @ weight.T),
            (linear(x, packed, add=add), add + x @ weight.T),
            (linear(x, packed, add=add[0]), add[0] + x @ weight.T),  # a bias
            (matmul(add, packed), add @ weight),
            (matmul(add, packed, add=x), x + add @ weight),
        ]
    for found, expected in pairs:
        torch.testing.assert_close(found, expected, rtol=0, atol=1e-5)  # float32 sums of 3-4 products


def test_a_failing_private_operator_means_the_plain_path(monkeypatch):
    """The probe catches any error of the private operators and says no (the plain path then runs)."""

    def broken(self):
        raise RuntimeError("no such operator")

    monkeypatch.setattr(Packed, "for_linear", property(broken))
    assert products._onednn_works.__wrapped__() is False
