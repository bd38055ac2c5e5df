"""Inputs from PyTorch bug reports and forum questions that once broke rnndoc.layers (a review).

Each test holds the right value (torch's, or autograd's) or the named refusal torch's own
misbehaviour calls for.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn
from torch.nn.utils import prune
from torch.nn.utils.rnn import PackedSequence

from rnndoc.layers import backward, forward, gates, gru_step, input_projection, lstm_step, rnn_step

F64 = torch.float64


def test_tied_weights_get_the_total_gradient_autograd_gives():
    """Weights shared between layers (weight tying, pytorch forum): autograd sums both uses."""
    torch.manual_seed(0)
    rnn = nn.RNN(4, 4, num_layers=2, dtype=F64)
    rnn.weight_ih_l1 = rnn.weight_hh_l0  # one tensor, two places
    x, grad_output = torch.randn(5, 2, 4, dtype=F64), torch.randn(5, 2, 4, dtype=F64)
    grads = backward(rnn, x, grad_output=grad_output)
    output, _ = rnn(x)
    names = ["weight_ih_l0", "weight_hh_l0", "weight_ih_l1", "weight_hh_l1"]
    expected = torch.autograd.grad(output, [getattr(rnn, name) for name in names], grad_output)
    for name, value in zip(names, expected, strict=True):
        torch.testing.assert_close(grads[name], value, rtol=0, atol=1e-12, msg=name)


def test_pruned_weight_is_read_as_the_pruning_hook_computes_it():
    """After an optimizer step on ``weight_orig`` the attribute ``weight`` is stale until torch's
    pre-hook recomputes it inside ``module(input)``: read orig * mask, as the hook does."""
    torch.manual_seed(0)
    gru = nn.GRU(3, 4, dtype=F64)
    prune.l1_unstructured(gru, "weight_hh_l0", amount=0.5)
    with torch.no_grad():
        gru.weight_hh_l0_orig.add_(1.0)  # what optimizer.step() does
    x = torch.randn(5, 2, 3, dtype=F64)
    ours, _ = forward(gru, x)  # before the module runs its hook
    theirs, _ = gru(x)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)
    grads = backward(gru, x, grad_output=torch.ones_like(theirs))
    effective = gru.weight_hh_l0_orig * gru.weight_hh_l0_mask
    assert torch.equal(gru.weight_hh_l0, effective)
    assert grads["weight_hh_l0"].shape == effective.shape


@pytest.mark.parametrize("kind", ["forward_hook", "forward_pre_hook"])
def test_a_module_with_forward_hooks_is_refused(kind):
    """``module(input)`` runs the hooks; rnndoc cannot: refuse instead of returning other numbers."""
    gru = nn.GRU(3, 4, dtype=F64)
    if kind == "forward_hook":
        gru.register_forward_hook(lambda module, args, output: (output[0] * 2, output[1]))
    else:
        gru.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    x = torch.randn(5, 2, 3, dtype=F64)
    with pytest.raises(TypeError, match=r"module.*hook"):
        forward(gru, x)
    with pytest.raises(TypeError, match=r"module.*hook"):
        backward(gru, x, grad_output=torch.ones(5, 2, 4, dtype=F64))


def test_a_subclass_that_overrides_forward_is_refused():
    class ReluLSTM(nn.LSTM):
        def forward(self, input, hx=None):
            output, state = super().forward(input, hx)
            return torch.relu(output), state

    with pytest.raises(TypeError, match=r"module.*ReluLSTM.*forward"):
        forward(ReluLSTM(3, 4), torch.randn(5, 2, 3))


def test_a_parametrized_module_still_runs():
    """Parametrization swaps the class for a subclass that does not override forward."""
    lstm = nn.LSTM(3, 4, dtype=F64)
    nn.utils.parametrizations.weight_norm(lstm, "weight_hh_l0")
    x = torch.randn(5, 2, 3, dtype=F64)
    torch.testing.assert_close(forward(lstm, x)[0], lstm(x)[0], rtol=0, atol=1e-12)


def _packed(batch_sizes, rows=None, sorted_indices=None):
    total = int(sum(batch_sizes)) if rows is None else rows
    return PackedSequence(torch.randn(total, 3, dtype=F64), torch.tensor(batch_sizes), sorted_indices)


@pytest.mark.parametrize(
    ("packed", "message"),
    [
        (lambda: _packed([1, 2, 3]), "input.batch_sizes.*non-increasing"),
        (lambda: _packed([3, 2, 1], rows=7), r"input.data.*6 rows"),
        (lambda: _packed([3, 2, 1], rows=5), r"input.data.*6 rows"),
        (lambda: _packed([3, 0]), "input.batch_sizes.*positive"),
        (lambda: _packed([[3, 2, 1]], rows=6), "input.batch_sizes.*1-D"),
        (
            lambda: PackedSequence(torch.randn(6, 3, dtype=F64), torch.tensor([3, 2, 1], dtype=torch.int32)),
            "input.batch_sizes.*int64",
        ),
        (
            lambda: PackedSequence(torch.randn(6, 3, dtype=F64), torch.tensor([3.0, 2.0, 1.0])),
            "input.batch_sizes.*int64",
        ),
        (lambda: _packed([3, 2, 1], sorted_indices=torch.tensor([0, 1])), "input.sorted_indices"),
        (
            lambda: PackedSequence(
                torch.randn(6, 3, dtype=F64),
                torch.tensor([3, 2, 1]),
                torch.tensor([0, 0, 2]),
                torch.tensor([0, 1, 2]),
            ),
            "input.sorted_indices",
        ),
    ],
    ids=[
        "increasing",
        "rows-over",
        "rows-under",
        "zero-size",
        "2-D",
        "int32",
        "float",
        "indices-short",
        "indices-not-permutation",
    ],
)
def test_a_malformed_packed_sequence_is_refused_by_name(packed, message):
    """torch gives a raw error or other numbers for these (hand-built PackedSequences, forum posts)."""
    lstm = nn.LSTM(3, 4, dtype=F64)
    with pytest.raises(ValueError, match=message):
        forward(lstm, packed())


@pytest.mark.parametrize(
    "call",
    [
        lambda: rnn_step(torch.zeros(1, 2), torch.ones(1, 2, dtype=F64), torch.eye(2), "tanh"),
        lambda: lstm_step(
            torch.zeros(1, 8), torch.ones(1, 2, dtype=F64), torch.ones(1, 2), torch.zeros(8, 2), None
        ),
        lambda: gru_step(torch.zeros(1, 6), torch.ones(1, 2, dtype=F64), torch.zeros(6, 2), None),
        lambda: input_projection(torch.ones(5, 2, 3, dtype=F64), torch.ones(6, 3), None, None, "GRU"),
    ],
    ids=["rnn_step", "lstm_step", "gru_step", "input_projection"],
)
def test_steps_refuse_mixed_dtypes_outside_autocast(call):
    with pytest.raises(
        TypeError, match=r"h must have the dtype|x must have the dtype|weight_ih must have the dtype"
    ):
        call()


def test_steps_accept_mixed_dtypes_under_autocast():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = rnn_step(torch.zeros(1, 2, dtype=torch.bfloat16), torch.ones(1, 2), torch.eye(2), "tanh")
    assert out.dtype == torch.bfloat16


def test_steps_refuse_another_device():
    with pytest.raises(ValueError, match=r"h is on device meta"):
        rnn_step(torch.zeros(1, 2), torch.ones(1, 2, device="meta"), torch.eye(2), "tanh")


def test_input_projection_refuses_a_gru_weight_that_is_not_three_blocks():
    with pytest.raises(ValueError, match="weight_ih"):
        input_projection(torch.ones(5, 2, 3), torch.ones(4, 3), None, torch.ones(4), "GRU")


def _rnn_with(**tensors) -> nn.RNN:
    rnn = nn.RNN(3, 4)
    for name, value in tensors.items():
        setattr(rnn, name, nn.Parameter(value))
    return rnn


@pytest.mark.parametrize(
    ("module", "arguments", "error", "message"),
    [
        (_rnn_with(weight_hh_l0=torch.zeros(4, 5)), {}, ValueError, r"params\['weight_hh_l0'\]"),
        (_rnn_with(bias_hh_l0=torch.zeros(5)), {}, ValueError, r"params\['bias_hh_l0'\]"),
        (_rnn_with(weight_ih_l0=torch.zeros(4, 3, dtype=F64)), {}, TypeError, "dtype"),
        (nn.RNN(3, 4), {"hx": torch.zeros(1, 2, 5)}, ValueError, "h_0"),
        (nn.RNN(3, 4), {"input": torch.randn(0, 2, 3)}, ValueError, "input"),
        (nn.RNN(3, 4), {"input": torch.randn(5, 2, 3, dtype=F64)}, TypeError, "dtype"),
    ],
    ids=["weight_hh", "bias_hh", "weight_ih-dtype", "h_0", "L=0", "input-dtype"],
)
def test_the_front_door_checks_the_modules_weights_and_the_call(module, arguments, error, message):
    """The sweeps trust their callers: forward and backward check a module's weights (a
    hand-assigned parameter of the wrong shape or dtype) and the call, once, at the front door."""
    arguments = {"input": torch.randn(5, 2, 3)} | arguments
    with pytest.raises(error, match=message):
        forward(module, **arguments)
    with pytest.raises(error, match=message):
        backward(module, **arguments, grad_output=None, grad_hx=torch.zeros(1, 2, 4))


def test_backward_refuses_a_module_with_backward_hooks():
    """A full backward hook changes what autograd returns through the module: refuse, by name."""
    gru = nn.GRU(3, 4, dtype=F64)
    gru.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    x = torch.randn(5, 2, 3, dtype=F64)
    forward(gru, x)  # the forward pass is unchanged
    with pytest.raises(TypeError, match=r"module has backward hooks"):
        backward(gru, x, grad_output=torch.ones(5, 2, 4, dtype=F64))


@pytest.mark.parametrize("kind", ["weight_norm", "spectral_norm"])
def test_a_weight_recomputed_by_the_old_weight_norm_hooks_is_followed(kind):
    """``torch.nn.utils.weight_norm`` / ``spectral_norm`` (eval) recompute the weight in a pre-hook."""
    torch.manual_seed(0)
    lstm = nn.LSTM(3, 4, dtype=F64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # weight_norm is deprecated for parametrizations
        getattr(nn.utils, kind)(lstm, "weight_hh_l0")
    lstm.eval()
    with torch.no_grad():
        getattr(lstm, "weight_hh_l0_v" if kind == "weight_norm" else "weight_hh_l0_orig").add_(0.5)
    x = torch.randn(5, 2, 3, dtype=F64)
    ours, _ = forward(lstm, x)  # before the module's own hook refreshes the attribute
    theirs, _ = lstm(x)
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)


def test_spectral_norm_in_training_mode_is_refused():
    """In training mode its hook runs a power iteration (a side effect) rnndoc does not repeat."""
    gru = nn.GRU(3, 4)
    nn.utils.spectral_norm(gru, "weight_hh_l0")
    with pytest.raises(TypeError, match=r"module has a spectral_norm hook on weight_hh_l0 .* training mode"):
        forward(gru, torch.randn(5, 2, 3))


def test_a_packed_grad_output_packed_otherwise_names_both_batch_sizes():
    lstm = nn.LSTM(3, 4, dtype=F64)
    packed = PackedSequence(torch.randn(6, 3, dtype=F64), torch.tensor([3, 2, 1]))
    other = PackedSequence(torch.randn(6, 4, dtype=F64), torch.tensor([2, 2, 2]))
    with pytest.raises(ValueError, match=r"grad_output.batch_sizes must be \[3, 2, 1\].*got \[2, 2, 2\]"):
        backward(lstm, packed, grad_output=other)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
@pytest.mark.parametrize("kind", [nn.RNN, nn.LSTM, nn.GRU])
def test_a_batch_of_zero_sequences_gets_zero_gradients_as_autograd_gives(kind, dtype):
    """N = 0 (an empty batch, e.g. the last shard of a split): autograd gives zeros of each
    parameter's shape; oneDNN refuses a product with no rows, so the plain path runs."""
    torch.manual_seed(0)
    module = kind(4, 5, num_layers=2, bidirectional=True, dtype=dtype)
    x = torch.randn(3, 0, 4, dtype=dtype, requires_grad=True)
    output, _ = module(x)
    grads = backward(module, x.detach(), grad_output=torch.zeros_like(output))
    names = [name for name, _ in module.named_parameters()]
    expected = torch.autograd.grad(output, [x, *module.parameters()], torch.zeros_like(output))
    assert grads["input"].shape == (3, 0, 4)
    for name, value in zip(names, expected[1:], strict=True):
        torch.testing.assert_close(grads[name], value, rtol=0, atol=0, msg=name)


@pytest.mark.parametrize("setting", [("cuda.matmul", "tf32"), ("mkldnn.matmul", "bf16"), ("mkldnn", "bf16")])
def test_the_newer_precision_settings_do_not_break_a_call(setting):
    """torch >= 2.9's per-backend fp32_precision makes the old get_float32_matmul_precision
    raise (pytorch PR #189955); module(input) still runs, and so must rnndoc: a float64 module
    is exact, and a float32 one with oneDNN allowed lower precision takes the plain path."""
    path, value = setting
    backend = torch.backends
    for part in path.split("."):
        backend = getattr(backend, part)
    before = backend.fp32_precision
    try:
        backend.fp32_precision = value
        torch.manual_seed(0)
        gru, x = nn.GRU(3, 4, dtype=F64), torch.randn(5, 2, 3, dtype=F64)
        torch.testing.assert_close(forward(gru, x)[0], gru(x)[0], rtol=0, atol=1e-12)
        with torch.no_grad():
            gru32 = nn.GRU(3, 4)
            x32 = x.float()
            torch.testing.assert_close(forward(gru32, x32)[0], gru32(x32)[0], rtol=0, atol=1e-6)
    finally:
        backend.fp32_precision = before


def test_packed_input_under_a_default_device_context():
    """torch.device(...) as a context sets the default device of new tensors (torch.arange
    included); a packed batch of CPU tensors must still be read on the CPU."""
    torch.manual_seed(0)
    gru = nn.GRU(4, 5, dtype=F64)
    packed = nn.utils.rnn.pack_sequence(
        [torch.randn(n, 4, dtype=F64) for n in (2, 4, 1)], enforce_sorted=False
    )
    expected, _ = gru(packed)
    with torch.device("meta"):
        output, _ = forward(gru, packed)
    torch.testing.assert_close(output.data, expected.data, rtol=0, atol=1e-12)


def test_backward_refuses_global_module_backward_hooks():
    """A global full backward hook changes what autograd returns through every module."""
    handle = torch.nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: gi)
    try:
        with pytest.raises(TypeError, match="global module backward hooks"):
            backward(nn.GRU(3, 4), torch.randn(5, 2, 3), grad_output=torch.ones(5, 2, 4))
    finally:
        handle.remove()


# ---- a second review (issue 15): inputs modelled on bug reports --------------------------------


def _module_outputs(module, x, cell):
    returned = module(x)
    if cell:
        return list(returned) if isinstance(returned, tuple) else [returned]
    state = returned[1]
    return [returned[0], *(state if isinstance(state, tuple) else (state,))]


@pytest.mark.parametrize("kind", [nn.RNN, nn.GRU, nn.LSTM, nn.GRUCell, nn.LSTMCell])
def test_a_float16_module_under_bfloat16_autocast_runs_as_torch_runs_it(kind):
    """Mixed half precisions (a float16 module, bfloat16 autocast): torch runs them; the GRU's
    folded bias was a torch.cat that autocast refused, the backward's tape a stack of mixed dtypes.
    Values: half precision both ways (float16 and bfloat16 roundings), so the dtypes must match
    and the values agree to 5 % of the largest entry."""
    torch.manual_seed(0)
    module = kind(3, 4, dtype=torch.float16)
    cell = isinstance(module, nn.RNNCellBase)
    x = torch.randn(2, 3, dtype=torch.float16) if cell else torch.randn(5, 2, 3, dtype=torch.float16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for grad_mode in (
            torch.no_grad,
            torch.enable_grad,
        ):  # torch's LSTM takes oneDNN's kernel only without
            with grad_mode():  # autograd: its dtypes differ
                theirs, ours = _module_outputs(module, x, cell), forward(module, x)
            ours = (list(ours) if isinstance(ours, tuple) else [ours]) if cell else [ours[0], *(
                ours[1] if isinstance(ours[1], tuple) else (ours[1],))]  # fmt: skip
            assert [t.dtype for t in ours] == [t.dtype for t in theirs], grad_mode
            for a, b in zip(ours, theirs, strict=True):
                scale = float(b.detach().abs().max())
                torch.testing.assert_close(a.float(), b.detach().float(), rtol=0, atol=0.05 * scale)
        leaf = x.clone().requires_grad_()
        outputs = _module_outputs(module, leaf, cell)
        grads = [torch.ones_like(o) for o in outputs]
        expected = torch.autograd.grad(outputs, [leaf, *module.parameters()], grads)
        if cell:
            found = backward(module, x, grad_output=tuple(grads) if len(grads) == 2 else grads[0])
        else:
            found = backward(
                module, x, grad_output=grads[0], grad_hx=tuple(grads[1:]) if len(grads) == 3 else grads[1]
            )
    names = ["input"] + [name for name, _ in module.named_parameters()]
    assert [found[name].dtype for name in names] == [e.dtype for e in expected]
    for name, value in zip(names, expected, strict=True):
        torch.testing.assert_close(
            found[name].float(), value.float(), rtol=0, atol=0.05 * float(value.abs().max()), msg=name
        )


def test_an_empty_lstm_batch_under_autocast_keeps_torchs_dtypes():
    """torch takes its fused oneDNN LSTM (in bfloat16) only for a non-empty input."""
    lstm = nn.LSTM(8, 16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        theirs = lstm(torch.randn(10, 0, 8))
        ours = forward(lstm, torch.randn(10, 0, 8))
    assert [ours[0].dtype, *(t.dtype for t in ours[1])] == [theirs[0].dtype, *(t.dtype for t in theirs[1])]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_relu_passes_the_gradient_at_nan_as_torch_does(value):
    """torch's ReLU backward zeroes the gradient only where the output is <= 0; NaN is not."""
    rnn = nn.RNN(1, 1, nonlinearity="relu", dtype=F64)
    x = torch.tensor([[[value]], [[0.5]]], dtype=F64)  # (L, N, H_in) = (2, 1, 1)
    grad_output = torch.ones(2, 1, 1, dtype=F64)
    leaf = x.clone().requires_grad_()
    output, _ = rnn(leaf)
    expected = torch.autograd.grad(output, [leaf, *rnn.parameters()], grad_output)
    found = backward(rnn, x, grad_output=grad_output)
    for name, e in zip(["input"] + [n for n, _ in rnn.named_parameters()], expected, strict=True):
        torch.testing.assert_close(found[name], e, rtol=0, atol=1e-12, equal_nan=True, msg=name)


def test_a_spectral_norm_parametrization_in_training_mode_is_refused():
    """torch's call reads a parametrized weight several times, each read a power iteration in
    training mode: a value rnndoc cannot reproduce. In eval mode the weight is fixed: it runs."""
    from torch.nn.utils import parametrizations  # noqa: PLC0415

    lstm = nn.LSTM(4, 4, dtype=F64)
    parametrizations.spectral_norm(lstm, "weight_hh_l0")
    x = torch.randn(3, 2, 4, dtype=F64)
    with pytest.raises(ValueError, match="spectral_norm parametrization and is in training mode"):
        forward(lstm, x)
    lstm.eval()
    (output, _), (expected, _) = forward(lstm, x), lstm(x)
    torch.testing.assert_close(output, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: rnn_step(None, torch.zeros(1, 2), torch.eye(2), "tanh"), "x_part"),
        (lambda: rnn_step(torch.zeros(1, 2), None, torch.eye(2), "tanh"), "h"),
        (lambda: rnn_step(torch.zeros(1, 2), torch.zeros(1, 2), None, "tanh"), "weight_hh"),
        (lambda: lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), None, torch.zeros(8, 2), None), "c"),
        (lambda: gru_step(torch.zeros(1, 6), None, torch.zeros(6, 2), None), "h"),
        (lambda: input_projection(torch.zeros(2, 3), None, None, None, "RNN_TANH"), "weight_ih"),
    ],
    ids=["rnn-x_part", "rnn-h", "rnn-weight_hh", "lstm-c", "gru-h", "projection-weight_ih"],
)
def test_a_required_tensor_given_as_none_is_named(call, name):
    with pytest.raises(TypeError, match=rf"^{name} must be a torch.Tensor, got NoneType"):
        call()


def test_a_packed_gradient_in_another_batch_order_is_refused():
    """Its rows would be read in the input's order: the gradient of one sequence lands on another."""
    from torch.nn.utils.rnn import pack_sequence  # noqa: PLC0415

    gru = nn.GRU(3, 4, dtype=F64)
    packed = pack_sequence([torch.randn(n, 3, dtype=F64) for n in (2, 4, 3)], enforce_sorted=False)
    output, _ = gru(packed)
    other = pack_sequence([torch.randn(n, 4, dtype=F64) for n in (4, 2, 3)], enforce_sorted=False)
    assert torch.equal(other.batch_sizes, output.batch_sizes)
    with pytest.raises(ValueError, match=r"grad_output\.sorted_indices must be the input's"):
        backward(gru, packed, grad_output=other)


def test_the_h_0_message_names_h_out_with_a_projection():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    h_0, c_0 = torch.zeros(4, 5, 4), torch.zeros(4, 5, 4)
    with pytest.raises(ValueError, match=r"\(D \* num_layers, N, H_out\) = \(4, 5, 2\)"):
        forward(lstm, torch.randn(7, 5, 3), (h_0, c_0))


# --- a second review of rnndoc.layers.gates (and so of forward and backward's front door) ---


class _WeightDrop(nn.Module):
    """AWD-LSTM's weight drop (DropConnect) as a parametrization: a dropout of the weight."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.inner = nn.Sequential(nn.Identity(), nn.Dropout(p))  # found anywhere inside the chain

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return self.inner(weight)


class _Tanh(nn.Module):
    """A deterministic parametrization: a function of the weight, the same in both modes."""

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return torch.tanh(weight)


@pytest.mark.parametrize("kind", [nn.LSTM, nn.GRU, nn.LSTMCell])
@pytest.mark.parametrize(
    "dropout", [lambda: _WeightDrop(0.5), lambda: nn.AlphaDropout(0.3)], ids=["weight-drop", "alpha"]
)
def test_a_weight_drop_parametrization_is_refused_in_training_mode_only(kind, dropout):
    """Each read of the weight draws a new mask (two calls differed by 6e-2 in the review): in
    training mode no result matches a module(x) call. In eval mode the dropout passes the weight."""
    from torch.nn.utils import parametrize  # noqa: PLC0415

    torch.manual_seed(0)
    module = kind(4, 6, dtype=F64)
    weight = "weight_hh" if isinstance(module, nn.LSTMCell) else "weight_hh_l0"
    parametrize.register_parametrization(module, weight, dropout())
    x = torch.randn(3, 4, dtype=F64) if isinstance(module, nn.LSTMCell) else torch.randn(5, 3, 4, dtype=F64)
    for call in (
        lambda: forward(module, x),
        lambda: gates(module, x),
        lambda: backward(module, x, grad_output=torch.ones_like(_first(module(x)))),
    ):
        with pytest.raises(
            ValueError, match=f"parametrization of {weight} holds a .*Dropout.* in training mode"
        ):
            call()
    module.eval()
    torch.testing.assert_close(_first(forward(module, x)), _first(module(x)).detach(), rtol=0, atol=1e-12)
    assert gates(module, x)


def _first(returned):
    """The first tensor a module (or forward) returns: output, or a cell's h'."""
    return returned[0] if isinstance(returned, tuple) else returned


def test_a_deterministic_parametrization_runs_in_training_mode():
    from torch.nn.utils import parametrizations, parametrize  # noqa: PLC0415

    torch.manual_seed(0)
    gru = nn.GRU(4, 6, dtype=F64)
    parametrize.register_parametrization(gru, "weight_hh_l0", _Tanh())
    parametrizations.weight_norm(gru, "weight_ih_l0")
    assert gru.training
    x = torch.randn(5, 3, 4, dtype=F64)
    torch.testing.assert_close(forward(gru, x)[0], gru(x)[0].detach(), rtol=0, atol=1e-12)


def _outputs(returned) -> list[torch.Tensor]:
    if isinstance(returned, PackedSequence):
        return [returned.data]
    if isinstance(returned, torch.Tensor):
        return [returned]
    return [t for part in returned for t in _outputs(part)]


_AUTOCAST_LAYERS = {
    "GRU": lambda: nn.GRU(5, 7, num_layers=2, bidirectional=True),
    "GRU-nobias": lambda: nn.GRU(5, 7, bias=False),
    "LSTM-proj": lambda: nn.LSTM(5, 7, num_layers=2, bidirectional=True, proj_size=3),
    "RNN-relu": lambda: nn.RNN(5, 7, nonlinearity="relu", num_layers=2),
    "RNN-tanh": lambda: nn.RNN(5, 7, bidirectional=True),
}


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
@pytest.mark.parametrize("kind", list(_AUTOCAST_LAYERS))
@pytest.mark.parametrize("form", ["time_first", "unbatched", "packed"])
@pytest.mark.parametrize("grad", [False, True])
def test_under_cpu_autocast_forward_is_torchs_bit_for_bit(kind, form, grad):
    """The review measured the GRU 3.4e-3 off under bfloat16 autocast (b_hn added in float32
    after the product): the steps now round where torch's CPU cells round."""
    from torch.nn.utils.rnn import pack_sequence  # noqa: PLC0415

    torch.manual_seed(0)
    module = _AUTOCAST_LAYERS[kind]()
    x = {"time_first": lambda: torch.randn(6, 3, 5), "unbatched": lambda: torch.randn(6, 5),
         "packed": lambda: pack_sequence([torch.randn(n, 5) for n in (4, 6, 2)], enforce_sorted=False)}[form]()  # fmt: skip
    with torch.set_grad_enabled(grad), torch.autocast("cpu", dtype=torch.bfloat16):
        theirs, ours = _outputs(module(x)), _outputs(forward(module, x))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs]
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))


@pytest.mark.parametrize("kind", [nn.GRUCell, nn.LSTMCell, nn.RNNCell])
@pytest.mark.parametrize("batched", [True, False])
def test_under_cpu_autocast_the_cells_are_torchs_bit_for_bit(kind, batched):
    torch.manual_seed(0)
    cell = kind(5, 7)
    x = torch.randn(3, 5) if batched else torch.randn(5)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        theirs, ours = _outputs(cell(x)), _outputs(forward(cell, x))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs]
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
def test_under_cpu_autocast_the_gates_have_torchs_dtypes_and_rebuild_its_output():
    """torch's GRU computes r, z and n in bfloat16 (the review found n in float32); its LSTM with
    a projection keeps c_t in its state's float32 (f_t c_(t-1) promotes) and the gates in bfloat16."""
    torch.manual_seed(0)
    gru, lstm, x = nn.GRU(5, 7), nn.LSTM(5, 7, proj_size=3), torch.randn(6, 3, 5)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        found, (output, _) = gates(gru, x), gru(x)
        found_lstm, (_, (_, c_n)) = gates(lstm, x), lstm(x)
        h = torch.cat([torch.zeros(1, 3, 7), output[:-1]])  # h_(t-1), float32 as torch keeps it
        rebuilt = (h - found["n_l0"]) * found["z_l0"] + found["n_l0"]  # torch's GRU update, in its order
    assert {k: v.dtype for k, v in found.items()} == dict.fromkeys(["r_l0", "z_l0", "n_l0"], torch.bfloat16)
    assert torch.equal(rebuilt, output)
    assert {k: v.dtype for k, v in found_lstm.items()} == {
        **dict.fromkeys(["i_l0", "f_l0", "g_l0", "o_l0"], torch.bfloat16),
        "c_l0": torch.float32,
    }
    assert c_n.dtype == torch.float32
    assert torch.equal(found_lstm["c_l0"][-1], c_n[0])


def test_gates_carry_the_graph_where_parameters_require_grad():
    torch.manual_seed(0)
    lstm, x = nn.LSTM(3, 4, dtype=F64), torch.randn(5, 2, 3, dtype=F64)
    assert all(v.grad_fn is not None for v in gates(lstm, x).values())
    with torch.no_grad():
        assert not any(v.requires_grad for v in gates(lstm, x).values())


@pytest.mark.parametrize(
    ("make", "attribute", "value", "match"),
    [
        (lambda: nn.LSTM(4, 6, dtype=F64), "hidden_size", 5, r"module.hidden_size is 5, but its weights have hidden size 6"),
        (lambda: nn.GRUCell(4, 6, dtype=F64), "hidden_size", 5, r"module.hidden_size is 5, .*weight_hh has shape \(18, 6\)"),
        (lambda: nn.LSTM(4, 6, proj_size=2, dtype=F64), "proj_size", 0, r"module.proj_size is 0, but the module has weight_hr_l0"),
        (lambda: nn.LSTM(4, 6, proj_size=2, dtype=F64), "proj_size", 3, r"module.proj_size is 3, but weight_hr_l0 has shape \(2, 6\)"),
        (lambda: nn.LSTM(4, 6, dtype=F64), "proj_size", 2, r"module.proj_size is 2, but the module has no weight_hr_l0"),
    ],
)  # fmt: skip
def test_a_size_attribute_changed_after_construction_is_named(make, attribute, value, match):
    """The review's hx=None got 'h_0 must have shape ...', a state the caller never passed."""
    module = make()
    setattr(module, attribute, value)
    x = (
        torch.randn(3, 4, dtype=F64)
        if isinstance(module, nn.RNNCellBase)
        else torch.randn(5, 3, 4, dtype=F64)
    )
    with pytest.raises(ValueError, match=match):
        forward(module, x)
    with pytest.raises(RuntimeError):  # torch fails too, naming no attribute
        module(x)


def test_a_one_d_state_of_unbatched_input_is_told_its_missing_axis():
    gru = nn.GRU(4, 6, dtype=F64)
    with pytest.raises(ValueError, match=r"got \(6,\) \(the first axis, D \* num_layers = 1, is there"):
        gates(gru, torch.randn(5, 4, dtype=F64), torch.zeros(6, dtype=F64))
    with pytest.raises(ValueError, match=r"\(unbatched input takes an unbatched state\)"):
        gates(gru, torch.randn(5, 4, dtype=F64), torch.zeros(1, 1, 6, dtype=F64))


def test_packed_data_of_another_dtype_is_named_input_data():
    from torch.nn.utils.rnn import pack_sequence  # noqa: PLC0415

    packed = pack_sequence([torch.randn(3, 4), torch.randn(2, 4)])  # float32, the module float64
    with pytest.raises(TypeError, match=r"input.data must have the dtype of weight_ih_l0"):
        gates(nn.LSTM(4, 6, dtype=F64), packed)


@pytest.mark.filterwarnings(
    "ignore:`torch.jit.script_method` is deprecated"
)  # torch's own, on importing dynamo
def test_a_compiled_module_is_pointed_to_its_orig_mod():
    compiled = torch.compile(nn.LSTM(4, 6))  # compiles lazily: nothing runs here
    for call in (gates, forward):
        with pytest.raises(
            TypeError, match=r"got OptimizedModule \(torch.compile's wrapper; the LSTM .*module._orig_mod"
        ):
            call(compiled, torch.randn(5, 3, 4))


def _inference(make):
    with torch.inference_mode():
        return make()


@pytest.mark.parametrize("kind", [nn.GRU, nn.LSTM, nn.RNN, nn.GRUCell])
def test_inference_tensors_autograd_must_save_are_named_as_torch_fails(kind):
    """Outside inference mode torch's call records for backward and fails deep inside on an
    inference input; so did rnndoc, in products.linear. Now the message names the tensor."""
    module = kind(4, 6, dtype=F64)
    shape = (3, 4) if isinstance(module, nn.RNNCellBase) else (5, 3, 4)
    x = _inference(lambda: torch.randn(*shape, dtype=F64))
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved"):
        module(x)
    for call in (forward,) + ((gates,) if kind is not nn.RNN else ()):
        with pytest.raises(
            RuntimeError, match=r"^input is an inference tensor \(made under torch.inference_mode"
        ):
            call(module, x)
    with torch.no_grad():  # where torch runs, so do we
        torch.testing.assert_close(_first(forward(module, x)), _first(module(x)), rtol=0, atol=1e-12)
    with torch.inference_mode():
        torch.testing.assert_close(_first(forward(module, x)), _first(module(x)), rtol=0, atol=1e-12)


def test_an_inference_input_runs_where_torch_runs_it():
    """Frozen weights: nothing saves the input; torch runs, and so must rnndoc (h_0 requires grad)."""
    lstm = nn.LSTM(4, 6, dtype=F64).requires_grad_(False)
    x = _inference(lambda: torch.randn(5, 3, 4, dtype=F64))
    hx = (torch.zeros(1, 3, 6, dtype=F64, requires_grad=True), torch.zeros(1, 3, 6, dtype=F64))
    (expected, _), (found, _) = lstm(x, hx), forward(lstm, x, hx)
    torch.testing.assert_close(found, expected, rtol=0, atol=1e-12)
    assert found.requires_grad


def test_an_inference_state_and_module_are_named():
    gru = nn.GRU(4, 6, dtype=F64)
    h = _inference(lambda: torch.zeros(1, 3, 6, dtype=F64))
    with pytest.raises(RuntimeError, match=r"^hx is an inference tensor"):
        forward(gru, torch.randn(5, 3, 4, dtype=F64), h)
    made = _inference(lambda: nn.GRU(4, 6, dtype=F64))
    with pytest.raises(
        RuntimeError, match=r"module.weight_ih_l0, module.weight_hh_l0, .* are inference tensors"
    ):
        gates(made, torch.randn(5, 3, 4, dtype=F64))
