"""backward(module, input, hx, grad_output, grad_hx) against autograd through the module itself.

Three witnesses: torch.autograd.grad on the module (float64, rtol=0, atol=1e-12: round-off only),
central finite differences through the module's own forward (a second, independent witness),
and a guard that no autograd entry point and no recurrent kernel runs inside backward.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from layer_configs import build, cells, configurations, torch_or_skip
from torch import nn
from torch.nn.utils import prune
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from rnndoc.layers import backward, forward

ATOL = 1e-12  # two float64 computations of the same sums: round-off only


def _data(value):
    return value.data if isinstance(value, PackedSequence) else value


def _flat(value):
    """A tensor or a pair of tensors as a list (None stays out)."""
    if value is None:
        return []
    return list(value) if isinstance(value, tuple | list) else [value]


def _like(value, generator):
    """Random tensors shaped like ``value`` (a tensor, a pair, or a PackedSequence)."""
    if isinstance(value, PackedSequence):
        return value._replace(data=_like(value.data, generator))
    if isinstance(value, tuple):
        return tuple(_like(v, generator) for v in value)
    return torch.randn(value.shape, dtype=value.dtype, generator=generator)


def autograd_reference(module, input, hx, grad_output, grad_hx):
    """torch.autograd.grad through ``module(input, hx)``; hx None means an explicit zero state."""
    output, state = module(input, hx)
    data = _data(input).detach().requires_grad_()
    x = input._replace(data=data) if isinstance(input, PackedSequence) else data
    states = [torch.zeros_like(s) for s in _flat(state)] if hx is None else [s.detach() for s in _flat(hx)]
    states = [s.requires_grad_() for s in states]
    params = dict(module.named_parameters())
    output, state = module(x, tuple(states) if len(states) == 2 else states[0])
    outputs = [_data(output), *_flat(state)]
    grads = [_data(grad_output) if grad_output is not None else torch.zeros_like(outputs[0])]
    grads += _flat(grad_hx) or [torch.zeros_like(s) for s in _flat(state)]
    found = torch.autograd.grad(outputs, [data, *states, *params.values()], grads, allow_unused=True)
    found = [
        torch.zeros_like(t) if g is None else g
        for g, t in zip(found, [data, *states, *params.values()], strict=True)
    ]
    expected = {"input": found[0], "hx": found[1] if len(states) == 1 else (found[1], found[2])}
    return expected | dict(zip(params, found[1 + len(states) :], strict=True))


def assert_same_gradients(ours: dict, expected: dict, atol: float = ATOL) -> None:
    assert ours.keys() == expected.keys()
    for name, value in expected.items():
        for a, b in zip(_flat(ours[name]), _flat(value), strict=True):
            assert a.shape == b.shape, name
            torch.testing.assert_close(a, b, rtol=0, atol=atol, msg=lambda m, name=name: f"{name}: {m}")


def _refuse(*args, **kwargs):
    raise AssertionError("autograd or a recurrent kernel was called inside rnndoc.layers.backward")


@contextlib.contextmanager
def no_autograd_no_kernel():
    """Every autograd entry point and every recurrent kernel patched to raise, under no_grad."""
    with pytest.MonkeyPatch.context() as patch, torch.no_grad():
        patch.setattr(torch.autograd, "grad", _refuse)
        patch.setattr(torch.autograd, "backward", _refuse)
        patch.setattr(torch.Tensor, "backward", _refuse)
        for name in ("grad", "vjp", "jacrev", "jacfwd", "jvp", "grad_and_value", "vmap"):
            patch.setattr(torch.func, name, _refuse)
        for cls in (nn.RNN, nn.LSTM, nn.GRU, nn.RNNCell, nn.LSTMCell, nn.GRUCell):
            patch.setattr(cls, "forward", _refuse)
        for name in ("rnn_tanh", "rnn_relu", "lstm", "gru", "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell",
                     "gru_cell"):  # fmt: skip
            patch.setattr(torch._VF, name, _refuse, raising=False)
        yield


def guarded_backward(*args, **kwargs):
    with no_autograd_no_kernel():
        return backward(*args, **kwargs)


@settings(max_examples=150)
@given(configurations(), st.sampled_from(["both", "output", "hx"]))
def test_backward_matches_autograd(config, given_grads):
    module, x, hx = build(config)
    generator = torch.Generator().manual_seed(config["seed"])
    output, state = forward(module, x, hx)
    grad_output = _like(output, generator) if given_grads != "hx" else None
    grad_hx = _like(state, generator) if given_grads != "output" else None
    ours = guarded_backward(module, x, hx, grad_output, grad_hx)
    assert_same_gradients(ours, autograd_reference(module, x, hx, grad_output, grad_hx))


@settings(max_examples=60)
@given(cells(), st.integers(0, 2**31 - 1))
def test_cell_backward_matches_autograd(cell_x_hx, seed):
    cell, x, hx = cell_x_hx
    kind = type(cell).__name__
    grad = _like(forward(cell, x, hx), torch.Generator().manual_seed(seed))
    ours = guarded_backward(cell, x, hx, grad)

    leaves = [x.clone().requires_grad_()] + [s.clone().requires_grad_() for s in _flat(hx)]
    if hx is None:
        leaves += [
            x.new_zeros(*x.shape[:-1], cell.hidden_size).requires_grad_()
            for _ in range(2 if kind == "LSTMCell" else 1)
        ]
    params = dict(cell.named_parameters())
    returned = cell(leaves[0], tuple(leaves[1:]) if kind == "LSTMCell" else leaves[1])
    found = torch.autograd.grad(_flat(returned), [*leaves, *params.values()], _flat(grad))
    expected = {"input": found[0], "hx": (found[1], found[2]) if kind == "LSTMCell" else found[1]}
    assert_same_gradients(ours, expected | dict(zip(params, found[len(leaves) :], strict=True)))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: torch.autograd.grad(x.sum(), x),
        lambda m, x: x.sum().backward(),
        lambda m, x: torch.autograd.backward(x.sum()),
        lambda m, x: torch.func.grad(torch.sum)(x),
        lambda m, x: m(x),
        lambda m, x: torch._VF.gru(
            x, torch.zeros(1, 1, 3), tuple(m._flat_weights), True, 1, 0.0, False, False, False
        ),
    ],
    ids=["autograd.grad", "Tensor.backward", "autograd.backward", "func.grad", "module", "_VF.gru"],
)
def test_the_guard_has_teeth(call):
    """Inside the guard, each autograd entry point and the recurrent kernels raise."""
    module, x = nn.GRU(2, 3), torch.zeros(1, 1, 2, requires_grad=True)
    with no_autograd_no_kernel(), pytest.raises(AssertionError, match="autograd or a recurrent kernel"):
        call(module, x)


SMALL = [
    (
        "LSTM proj, 2 layers, bidirectional",
        lambda: nn.LSTM(2, 3, num_layers=2, bidirectional=True, proj_size=2),
    ),
    ("GRU, bias=False, batch_first", lambda: nn.GRU(2, 3, bias=False, batch_first=True)),
    ("RNN relu, packed", lambda: nn.RNN(2, 3, nonlinearity="relu")),
    ("LSTMCell", lambda: nn.LSTMCell(2, 3)),
]


@pytest.mark.parametrize(("name", "make"), SMALL, ids=[name for name, _ in SMALL])
def test_central_finite_differences_agree(name, make):
    """A second witness, independent of autograd: (L(theta + eps) - L(theta - eps)) / (2 eps) per entry.

    eps = 1e-6 in float64: truncation O(eps^2) ~ 1e-12 and round-off O(1e-16 / eps) ~ 1e-10,
    so 1e-7 is a safe bound (the GUIDE's table); the worst here is near 1e-9.
    """
    torch.manual_seed(12)
    module = make().double()
    cell = isinstance(module, nn.LSTMCell)
    x = torch.randn(*((2, 2) if cell else (3, 2, 2)), dtype=torch.float64)
    if "packed" in name:
        x = pack_padded_sequence(x, torch.tensor([3, 1]), enforce_sorted=False)
    returned = module(x)
    weights = torch.Generator().manual_seed(1)
    grad_output = _like(returned if cell else returned[0], weights)
    grad_hx = None if cell else _like(returned[1], weights)

    def loss() -> float:
        returned = module(x)
        pairs = [(returned, grad_output)] if cell else [(returned[0], grad_output), (returned[1], grad_hx)]
        total = 0.0
        for value, weight in pairs:
            for v, w in zip(_flat(_data(value)), _flat(_data(weight)), strict=True):
                total += (v * w).sum().item()
        return total

    ours = backward(module, x, None, grad_output, grad_hx)
    eps, worst = 1e-6, 0.0
    with torch.no_grad():
        for pname, p in [("input", _data(x)), *module.named_parameters()]:
            flat = p.view(-1)
            for k in range(flat.numel()):
                saved = flat[k].item()
                flat[k] = saved + eps
                up = loss()
                flat[k] = saved - eps
                down = loss()
                flat[k] = saved
                worst = max(worst, abs((up - down) / (2 * eps) - ours[pname].reshape(-1)[k].item()))
    assert worst < 1e-7


def test_a_pruned_module_gives_the_effective_weights_gradients():
    """Names stay the effective weights'; chaining through the mask is the caller's: d/d orig = d/dW * mask."""
    torch.manual_seed(13)
    module = nn.GRU(3, 4, dtype=torch.float64)
    prune.l1_unstructured(module, "weight_ih_l0", amount=0.5)
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    grad_output = torch.randn(5, 2, 4, dtype=torch.float64)
    ours = backward(module, x, grad_output=grad_output)
    assert "weight_ih_l0" in ours
    assert "weight_ih_l0_orig" not in ours
    output, _ = module(x)
    (expected,) = torch.autograd.grad(output, module.weight_ih_l0_orig, grad_output)
    torch.testing.assert_close(ours["weight_ih_l0"] * module.weight_ih_l0_mask, expected, rtol=0, atol=ATOL)


def test_float32_backward_matches_autograd_within_float32_round_off():
    torch.manual_seed(14)
    module = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = torch.randn(6, 2, 3)
    grad_output = torch.randn(6, 2, 8)
    ours = backward(module, x, grad_output=grad_output)
    expected = autograd_reference(module, x, None, grad_output, None)
    assert all(t.dtype == torch.float32 for v in ours.values() for t in _flat(v))
    assert_same_gradients(ours, expected, atol=2e-5)  # float32 eps 1.2e-7 times sums over 12 products


GRU = nn.GRU(3, 4)
X = torch.zeros(5, 2, 3)


@pytest.mark.parametrize(
    ("module", "input", "kwargs", "error", "match"),
    [
        (GRU, X, {}, ValueError, "grad_output and grad_hx are both None"),
        (GRU, X, {"grad_output": torch.zeros(5, 2, 3)}, ValueError,
         r"grad_output must have shape \(5, 2, 4\), got \(5, 2, 3\)"),
        (GRU, X, {"grad_hx": torch.zeros(2, 2, 4)}, ValueError, r"grad_hx must have shape \(1, 2, 4\), got \(2, 2, 4\)"),
        (GRU, X, {"grad_output": [[0.0]]}, TypeError, "grad_output must be a torch.Tensor"),
        (GRU, X, {"grad_output": torch.zeros(5, 2, 4, dtype=torch.float64)}, TypeError,
         "grad_output must have dtype torch.float32, got torch.float64"),
        (GRU, X, {"grad_hx": torch.zeros(1, 2, 4, device="meta")}, ValueError,
         "grad_hx is on device meta, but the output is on device cpu"),
        (nn.LSTM(3, 4), X, {"grad_hx": torch.zeros(1, 2, 4)}, TypeError, r"grad_hx must be a pair"),
        (nn.LSTM(3, 4), X, {"grad_hx": (torch.zeros(1, 2, 4), torch.zeros(1, 2, 5))}, ValueError,
         r"grad_hx\[1\] must have shape \(1, 2, 4\), got \(1, 2, 5\)"),
        (GRU, pack_padded_sequence(X, torch.tensor([5, 3])), {"grad_output": torch.zeros(8, 4)}, TypeError,
         "grad_output must be a PackedSequence packed like the input"),
        (nn.GRUCell(3, 4), X[0], {"grad_output": torch.zeros(2, 4), "grad_hx": torch.zeros(2, 4)}, ValueError,
         "grad_hx must be None for a cell"),
        (nn.LSTMCell(3, 4), X[0], {"grad_output": (torch.zeros(2, 4), torch.zeros(2, 3))}, ValueError,
         r"grad_output\[1\] must have shape \(2, 4\), got \(2, 3\)"),
        (GRU, torch.zeros(5, 2, 2), {"grad_output": torch.zeros(5, 2, 4)}, ValueError,
         r"input must have shape \(L, N, H_in\)"),
    ],
)  # fmt: skip
def test_bad_gradients_are_named(module, input, kwargs, error, match):
    with pytest.raises(error, match=match):
        backward(module, input, **kwargs)


def test_backward_of_a_packed_input_gives_no_gradient_to_padding_and_runs_unsorted():
    """Gradients come back shaped like input.data; the same numbers as running each sequence alone."""
    torch.manual_seed(15)
    module = nn.LSTM(2, 3, bidirectional=True, dtype=torch.float64)
    padded = torch.randn(4, 2, 2, dtype=torch.float64)
    packed = pack_padded_sequence(padded, torch.tensor([2, 4]), enforce_sorted=False)
    grad_output = _like(forward(module, packed)[0], torch.Generator().manual_seed(2))
    ours = backward(module, packed, grad_output=grad_output)
    assert ours["input"].shape == packed.data.shape
    alone = backward(module, padded[:2, 0], grad_output=_unpacked(grad_output)[:2, 0])  # the short sequence
    dx = _unpacked(packed._replace(data=ours["input"]))  # (L, N, H_in)
    torch.testing.assert_close(dx[:2, 0], alone["input"], rtol=0, atol=ATOL)


def _unpacked(packed):
    return pad_packed_sequence(packed)[0]  # (L, N, F)


@pytest.mark.parametrize(
    "make",
    [
        lambda: nn.RNN(3, 4),
        lambda: nn.GRU(3, 4, bidirectional=True),
        lambda: nn.LSTM(3, 4),  # torch runs its fused oneDNN kernel in bfloat16 here
        lambda: nn.LSTM(3, 4, proj_size=2),
        lambda: nn.GRUCell(3, 4),
        lambda: nn.LSTMCell(3, 4),
    ],
    ids=["RNN", "GRU-bidirectional", "LSTM", "LSTM-proj", "GRUCell", "LSTMCell"],
)
@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
@pytest.mark.parametrize("input_dtype", [torch.float32, torch.bfloat16])  # bfloat16: autocast's own
def test_under_autocast_the_gradients_take_autograds_dtypes(make, input_dtype):
    """Under CPU autocast (bfloat16) autograd returns each gradient in its leaf's own dtype
    (float32), whatever dtype the products ran in: so must backward.

    The values are the same computation in bfloat16 (8 bits of mantissa, 3.9e-3 per rounding),
    rounded at other places than torch's kernels round: they agree to 5 % of the largest
    gradient (about a dozen bfloat16 roundings on the path back), which a wrong formula misses.
    """
    torch.manual_seed(0)
    module = make().float()
    cell = isinstance(module, nn.RNNCellBase)
    x = (torch.randn(2, 3) if cell else torch.randn(5, 2, 3)).to(input_dtype)  # (N, H_in) or (L, N, H_in)
    leaf = x.clone().requires_grad_()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        returned = torch_or_skip(lambda: module(leaf))
        outputs = (
            list(returned) if cell and isinstance(returned, tuple) else [returned] if cell else [returned[0]]
        )
        if not cell:
            state = returned[1]
            outputs += list(state) if isinstance(state, tuple) else [state]
        grads = [torch.randn_like(o) for o in outputs]
        expected = torch.autograd.grad(outputs, [leaf, *module.parameters()], grads)
        if cell:
            ours = backward(module, x, grad_output=tuple(grads) if len(grads) == 2 else grads[0])
        else:
            state_grad = tuple(grads[1:]) if len(grads) == 3 else grads[1]
            ours = backward(module, x, grad_output=grads[0], grad_hx=state_grad)
    names = ["input"] + [name for name, _ in module.named_parameters()]
    dtypes = [input_dtype] + [torch.float32] * (len(names) - 1)
    assert [ours[name].dtype for name in names] == [e.dtype for e in expected] == dtypes
    for name, value in zip(names, expected, strict=True):
        scale = float(value.abs().max())
        torch.testing.assert_close(ours[name], value, rtol=0, atol=0.05 * scale, msg=name)
