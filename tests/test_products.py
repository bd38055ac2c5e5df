"""The products by the layers' weights: the oneDNN path agrees with the plain one, and is taken only where it may be.

rnndoc.layers.products may multiply by a weight packed once for oneDNN for float32 CPU tensors
that autograd does not record, where it measured faster, and uses ATen's ``@`` everywhere else.
Which kernel ran is counted by op (the profiler's names), so each test says which path it saw;
no test times anything: the measurement's result is replaced (``choose``) where a test needs
one path, and only how often it measured is checked.
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
from rnndoc.layers.products import Packed, linear, matmul, onednn_applies, pack

#: oneDNN is built into this torch and enabled: its probe must then pass (a test fails, not skips, if not).
ONEDNN = torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled
needs_onednn = pytest.mark.skipif(not ONEDNN, reason="oneDNN is not built into this torch, or disabled")


@needs_onednn
def test_the_onednn_probe_passes_where_onednn_is_built_in():
    assert products._onednn_works(), (
        "oneDNN is built into torch and enabled for float32 CPU, yet rnndoc.layers.products' probe of its "
        "private operators (_reorder_linear_weight, _linear_pointwise) failed: the oneDNN path is never "
        "considered here. Run products._onednn_works.__wrapped__() to see the operator that fails."
    )


@pytest.fixture
def choose(monkeypatch):
    """``choose("onednn")`` or ``choose("plain")``: what every measurement finds; returns the list of timings asked."""
    asked: list[int] = []

    def set_choice(kernel: str) -> list[int]:
        times = (1.0, 0.0) if kernel == "onednn" else (0.0, 1.0)  # (plain, packed) seconds
        monkeypatch.setattr(products, "_MEASURED", {})
        monkeypatch.setattr(products, "_least_times", lambda *calls: asked.append(len(calls)) or times)
        return asked

    return set_choice


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
def test_onednn_and_plain_paths_agree_in_float32(kind, choose):
    """Both float32 paths differ from float64 by round-off only, and from each other by 1e-5 at most.

    Tolerance: the values here are of order 1 and each is a float32 sum of at most a few dozen
    products carried over 9 steps and 2 layers; float32 rounds at 6e-8 relative, so the two
    summation orders differ by a few 1e-7 (measured: under 2e-6). 1e-5 leaves room for other
    CPUs' kernels and still fails on a wrong product, which is off by order 1. Each path is
    also held to float64 (the module run in float64 by the plain, exact path): the oneDNN
    path's error may not exceed four times the plain path's (plus one float32 ulp of 1).
    """
    module, x, packed = _problem(kind)
    choose("onednn")
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
def test_float64_takes_the_plain_path(kind, choose):
    module, x, packed = _problem(kind, torch.float64)
    asked = choose("onednn")
    assert _packed_products(lambda: _both(module, x, packed)) == 0
    assert asked == []  # nothing timed where oneDNN is not allowed


@needs_onednn
@pytest.mark.parametrize("where", ["mkldnn-disabled", "autocast", "recorded"])
def test_where_onednn_is_not_allowed_nothing_is_timed_and_the_plain_path_runs(where, choose):
    module, x, _ = _problem("LSTM")
    asked = choose("onednn")
    context = {"mkldnn-disabled": _onednn_off, "autocast": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
               "recorded": torch.enable_grad}[where]  # fmt: skip
    with context():
        counts = _op_counts(lambda: forward(module, x))
    assert counts.get("mkldnn::_linear_pointwise", 0) == 0
    assert asked == []


@needs_onednn
def test_the_choice_is_measured_once_per_shape_and_cached():
    """The first call measures each product's shapes (real timing); a second call with the same shapes measures nothing."""
    module, x, packed = _problem("GRU")
    products._MEASURED.clear()
    _both(module, x, packed)
    measured = dict(products._MEASURED)
    threads = torch.get_num_threads()
    # GRU, 7 features, batch 4, 9 steps: the recurrent weight (21, 7) per step, the input weights per sweep
    assert ("linear", 4, 21, 7, torch.float32, threads) in measured
    assert ("matmul", 4, 21, 7, torch.float32, threads) in measured
    assert ("linear", 36, 21, 6, torch.float32, threads) in measured
    # (plain, packed[, packing]): the weights' products also time the packing, the weight gradients' do not
    assert all(
        len(times) == (2 if key[0] == "transposed" else 3) and min(times) > 0
        for key, times in measured.items()
    )
    calls = []
    original = products._least_times
    try:
        products._least_times = lambda *c: calls.append(c) or original(*c)
        _both(module, x, packed)
    finally:
        products._least_times = original
    assert calls == []
    assert measured == products._MEASURED


@pytest.mark.parametrize(
    ("times", "uses", "wins"),
    [
        ((1.0, 0.5, 100.0), 128, False),  # twice as fast per product; the packing costs more
        ((1.0, 0.5, 100.0), 1000, True),  # the same packing spread over enough products
        ((1.0, 0.95), 1, False),  # 5 % faster: within noise, a tie, so the plain path
        ((1.0, 0.5), 1, True),  # the weight gradients' products: no packing to count
    ],
    ids=["packing-dominates", "packing-amortised", "near-tie", "no-packing"],
)
def test_onednn_wins_only_clearly_with_its_packing_counted(times, uses, wins):
    """The one rule that chooses the kernel: uses x packed + packing < margin x uses x plain."""
    assert products._onednn_wins(times, uses) is wins


@needs_onednn
@pytest.mark.parametrize("kernel", ["onednn", "plain"])
def test_pack_follows_the_measurement(kernel, choose):
    weight = torch.randn(8, 5)
    asked = choose(kernel)
    packed = pack(weight, 3, True)
    assert asked == [3, 3]  # linear and matmul, each timed once: plain, packed, and the packing
    if kernel == "plain":
        assert packed is weight
    else:
        assert isinstance(packed, Packed)
        assert packed.packed_linear
        assert packed.packed_matmul
    again = pack(weight, 3, True)
    assert asked == [3, 3]  # cached: not timed again
    assert (again is weight) if kernel == "plain" else isinstance(again, Packed)
    assert pack(weight, 3, False) is weight
    assert asked == [3, 3]


@needs_onednn
@pytest.mark.parametrize("kernel", ["onednn", "plain"])
def test_transposed_products_follow_the_measurement(kernel, choose):
    torch.manual_seed(0)
    a, b = torch.randn(6, 4), torch.randn(6, 3)  # (M, P), (M, Q)
    asked = choose(kernel)
    counts = _op_counts(lambda: products.transposed_products(a, [b, b], True))
    assert (counts.get("mkldnn::_linear_pointwise", 0), counts.get("aten::mm", 0)) == (
        (2, 0) if kernel == "onednn" else (0, 2)
    )
    assert asked == [2]  # the same shapes: timed once
    torch.testing.assert_close(products.transposed_products(a, [b], True)[0], a.T @ b, rtol=0, atol=1e-5)


@needs_onednn
def test_a_recorded_forward_takes_the_plain_path_and_keeps_its_gradients(choose):
    """Autograd through forward: the packed product has no derivative, so it must not run."""
    torch.manual_seed(0)
    module, x = nn.LSTM(6, 7, num_layers=2), torch.randn(9, 4, 6, requires_grad=True)
    choose("onednn")
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


@needs_onednn
def test_at_on_a_packed_weight_is_the_packed_product_and_nothing_else():
    """``x @ p.T`` is linear(x, p) and ``x @ p`` is matmul(x, p): one oneDNN GEMM each, no copy, no ATen product.

    torch.Tensor.__matmul__ is never asked first: Packed subclasses torch.Tensor, so Python calls
    its reflected __rmatmul__ first (the fallback through NotImplemented would cost ~11 us a product).
    """
    torch.manual_seed(0)
    x, weight, d = (
        torch.randn(5, 4),
        torch.randn(3, 4),
        torch.randn(5, 3),
    )  # x (M, in), W (out, in), d (M, out)
    packed = Packed(weight, rows=5)
    with torch.no_grad():
        packed.for_linear, packed.for_matmul  # noqa: B018 (the packs, made before counting)
        transposed = packed.T
        assert packed.T is transposed
        assert transposed.T is packed
        results = []
        counts = _op_counts(lambda: results.extend([x @ packed.T, d @ packed]))
        assert counts == {"mkldnn::_linear_pointwise": 2, "aten::empty": 2}, counts  # the two outputs
        assert [type(r) for r in results] == [torch.Tensor, torch.Tensor]
        torch.testing.assert_close(results[0], linear(x, packed), rtol=0, atol=0)
        torch.testing.assert_close(results[1], matmul(d, packed), rtol=0, atol=0)
        torch.testing.assert_close(results[0], x @ weight.T, rtol=0, atol=1e-5)  # float32 sums of 4 products
        torch.testing.assert_close(results[1], d @ weight, rtol=0, atol=1e-5)
        # as a tensor a Packed is W (sharing its storage) and its .T is W^T
        assert packed.data_ptr() == weight.data_ptr()
        assert torch.equal(packed, weight)
        assert torch.equal(transposed, weight.T)
        assert transposed.shape == (4, 3)
        plain = Packed(weight, rows=5, packed_linear=False, packed_matmul=False)  # measured slower: ATen's mm
        counts = _op_counts(lambda: (x @ plain.T, d @ plain))
        assert (counts.get("mkldnn::_linear_pointwise", 0), counts.get("aten::mm", 0)) == (0, 2), counts
