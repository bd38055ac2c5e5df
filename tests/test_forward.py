"""forward(module, input, hx) against the modules themselves, over the whole configuration space."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from layer_configs import build, cells, compare, configurations, torch_or_skip
from torch import nn
from torch.nn.utils import prune
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence

from rnndoc.layers import backward, forward, gru_cell, lstm_cell, rnn_cell
from rnndoc.verdict import FLOAT64_ATOL, assert_close


@settings(max_examples=400)
@given(configurations())
def test_forward_matches_the_module(config):
    module, x, hx = build(config)
    with pytest.MonkeyPatch.context() as patch:
        for cls in (nn.RNN, nn.LSTM, nn.GRU):  # no recurrent kernel inside forward
            patch.setattr(cls, "forward", _refuse)
        for name in ("rnn_tanh", "rnn_relu", "lstm", "gru"):
            patch.setattr(torch._VF, name, _refuse, raising=False)
        ours = forward(module, x, hx)
    compare(ours, module(x, hx))


def _refuse(*args, **kwargs):
    raise AssertionError("a recurrent kernel was called inside rnndoc.layers.forward")


def test_the_kernel_guard_works():
    """The guard above has teeth: calling the module inside it fails."""
    module = nn.GRU(2, 3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nn.GRU, "forward", _refuse)
        with pytest.raises(AssertionError, match="a recurrent kernel was called"):
            module(torch.zeros(1, 1, 2))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch._VF, "gru", _refuse, raising=False)
        with pytest.raises(AssertionError, match="a recurrent kernel was called"):
            module(torch.zeros(1, 1, 2))


@settings(max_examples=60)
@given(configurations())
def test_gradients_match_the_module(config):
    """Autograd through our forward and through the module: same gradients for parameters and input."""
    module, x, hx = build(config)
    data = x.data if isinstance(x, PackedSequence) else x
    data.requires_grad_(True)

    def grads(run):
        module.zero_grad()
        if data.grad is not None:
            data.grad = None
        output = run(module, x, hx)[0]
        output = output.data if isinstance(output, PackedSequence) else output
        weights = torch.linspace(-1, 1, output.numel(), dtype=output.dtype).reshape(output.shape)
        (output * weights).sum().backward()  # a loss that weighs every output differently
        return [p.grad.clone() for p in module.parameters()] + [data.grad.clone()]

    ours = grads(forward)
    theirs = grads(lambda m, a, b: m(a, b))
    for a, b in zip(ours, theirs, strict=True):
        assert_close(a, b, atol=FLOAT64_ATOL, what="gradient")


@settings(max_examples=100)
@given(cells())
def test_cells_match(cell_x_hx):
    cell, x, hx = cell_x_hx
    with pytest.MonkeyPatch.context() as patch:
        for cls in (nn.RNNCell, nn.LSTMCell, nn.GRUCell):
            patch.setattr(cls, "forward", _refuse)
        for name in ("rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"):
            patch.setattr(torch._VF, name, _refuse, raising=False)
        ours = forward(cell, x, hx)
    compare(ours, cell(x, hx))


def test_a_sequence_of_cell_steps_is_the_layer():
    torch.manual_seed(1)
    layer = nn.LSTM(3, 4, dtype=torch.float64)
    cell = nn.LSTMCell(3, 4, dtype=torch.float64)
    cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})  # weight_ih_l0 -> weight_ih
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    h = c = torch.zeros(2, 4, dtype=torch.float64)
    outputs = []
    for x_t in x:
        h, c = forward(cell, x_t, (h, c))
        outputs.append(h)
    expected, _ = layer(x)
    assert_close(torch.stack(outputs), expected.detach(), atol=FLOAT64_ATOL)


def test_gradcheck_of_the_cells():
    torch.manual_seed(2)

    def leaf(*shape):
        return torch.randn(*shape, dtype=torch.float64, requires_grad=True)

    x, h, c = leaf(2, 3), leaf(2, 4), leaf(2, 4)
    for gates, cell in ((1, rnn_cell), (3, gru_cell)):
        w_ih, w_hh, b_ih, b_hh = leaf(gates * 4, 3), leaf(gates * 4, 4), leaf(gates * 4), leaf(gates * 4)
        assert torch.autograd.gradcheck(cell, (x, h, w_ih, w_hh, b_ih, b_hh))
    w_ih, w_hh, b_ih, b_hh, w_hr = leaf(16, 3), leaf(16, 2), leaf(16), leaf(16), leaf(2, 4)
    h_proj = leaf(2, 2)
    assert torch.autograd.gradcheck(
        lambda *a: lstm_cell(a[0], (a[1], a[2]), *a[3:]), (x, h_proj, c, w_ih, w_hh, b_ih, b_hh, w_hr)
    )


def test_training_dropout_is_refused():
    module = nn.GRU(2, 3, num_layers=2, dropout=0.3)
    with pytest.raises(ValueError, match=r"dropout=0.3 between layers in training mode.*module.eval\(\)"):
        forward(module, torch.zeros(4, 1, 2))
    module.eval()
    assert forward(module, torch.zeros(4, 1, 2))[0].shape == (4, 1, 3)


@pytest.mark.parametrize(
    ("module", "input", "hx", "error", "match"),
    [
        (nn.Linear(2, 2), torch.zeros(3, 1, 2), None, TypeError, "module must be a torch.nn.RNN, LSTM, GRU"),
        (
            nn.RNN(2, 3),
            torch.zeros(3, 1, 5),
            None,
            ValueError,
            r"input must have shape \(L, N, H_in\) = \(\*, \*, 2\)",
        ),
        (nn.RNN(2, 3), torch.zeros(3, 1, 1, 2), None, ValueError, r"or \(L, H_in\) unbatched, with H_in = 2"),
        (
            nn.RNN(2, 3),
            torch.zeros(3, 1, 2, dtype=torch.int64),
            None,
            TypeError,
            "input must have a floating dtype",
        ),
        (
            nn.RNN(2, 3),
            torch.zeros(3, 1, 2, dtype=torch.float64),
            None,
            TypeError,
            "input must have the dtype",
        ),
        (
            nn.RNN(2, 3),
            torch.zeros(3, 2, 2),
            torch.zeros(1, 1, 3),
            ValueError,
            r"hx \(h_0\) must have shape .* = \(1, 2, 3\)",
        ),
        (
            nn.RNN(2, 3, num_layers=2),
            torch.zeros(3, 1, 2),
            torch.zeros(1, 1, 3),
            ValueError,
            r"\(2, 1, 3\), got",
        ),
        (nn.LSTM(2, 3), torch.zeros(3, 1, 2), torch.zeros(1, 1, 3), TypeError, r"pair \(h_0, c_0\)"),
        (
            nn.LSTM(2, 4, proj_size=2),
            torch.zeros(3, 1, 2),
            (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4)),
            ValueError,
            "with proj_size=2, h_0 has proj_size features, not hidden_size",
        ),
        (
            nn.LSTM(2, 4, proj_size=2),
            torch.zeros(3, 1, 2),
            (torch.zeros(1, 1, 2), torch.zeros(1, 1, 2)),
            ValueError,
            r"hx\[1\] \(c_0\) must have shape \(D \* num_layers, N, H\) = \(1, 1, 4\)",
        ),
        (nn.GRU(2, 3), torch.zeros(0, 1, 2), None, ValueError, "at least one time step"),
        (
            nn.GRUCell(2, 3),
            torch.zeros(1, 4),
            None,
            ValueError,
            r"input must have shape \(N, H_in\) = \(\*, 2\)",
        ),
        (nn.LSTMCell(2, 3), torch.zeros(1, 2), torch.zeros(1, 3), TypeError, r"hx must be a pair \(h, c\)"),
        (nn.RNN(2, 3), [[0.0, 1.0]], None, TypeError, "input must be a torch.Tensor or PackedSequence"),
    ],
)
def test_bad_input_gets_a_clear_error(module, input, hx, error, match):
    with pytest.raises(error, match=match):
        forward(module, input, hx)


def test_float32_modules_match_within_float32_round_off():
    torch.manual_seed(5)
    for module in (nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 4, batch_first=True)):
        module.eval()
        x = torch.randn(2, 5, 3)
        ours, theirs = forward(module, x), module(x)
        assert ours[0].dtype == torch.float32
        assert_close(ours[0], theirs[0].detach(), atol=1e-5, what="float32 output")  # float32 round-off


def test_gradients_with_respect_to_h_0_match():
    torch.manual_seed(6)
    module = nn.LSTM(2, 3, num_layers=2, dtype=torch.float64)
    x = torch.randn(4, 2, 2, dtype=torch.float64)
    grads = []
    for run in (forward, lambda m, a, b: m(a, b)):
        h_0 = torch.randn(
            2, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)
        ).requires_grad_()
        c_0 = torch.randn(
            2, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1)
        ).requires_grad_()
        output, (h_n, c_n) = run(module, x, (h_0, c_0))
        (output.sum() + h_n.square().sum() + c_n.sum()).backward()
        grads.append((h_0.grad, c_0.grad))
    assert_close(grads[0][0], grads[1][0], atol=FLOAT64_ATOL, what="dL/dh_0")
    assert_close(grads[0][1], grads[1][1], atol=FLOAT64_ATOL, what="dL/dc_0")


def test_parametrized_and_pruned_modules_run():
    """Weights read as the module reads them: weight norm and pruning change what it computes."""
    torch.manual_seed(7)
    module = nn.GRU(3, 4, dtype=torch.float64)
    torch.nn.utils.parametrizations.weight_norm(module, "weight_hh_l0")
    prune.l1_unstructured(module, "weight_ih_l0", amount=0.5)
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    compare(forward(module, x), module(x))
    cell = nn.LSTMCell(3, 4, dtype=torch.float64)
    prune.l1_unstructured(cell, "weight_hh", amount=0.5)
    compare(forward(cell, x[0]), cell(x[0]))


@pytest.mark.parametrize(
    ("module", "input", "hx", "match"),
    [
        (
            nn.RNN(2, 3, batch_first=True),
            torch.zeros(4, 7, 5),
            None,
            r"input must have shape \(N, L, H_in\) = \(\*, \*, 2\), got \(4, 7, 5\)",
        ),
        (
            nn.RNN(2, 3),
            torch.zeros(7, 5),
            None,
            r"input must have shape \(L, H_in\) = \(\*, 2\), got \(7, 5\)",
        ),
        (nn.RNN(2, 3), torch.zeros(7, 2), torch.zeros(1, 1, 3), r"unbatched input takes an unbatched state"),
        (
            nn.GRUCell(2, 3),
            torch.zeros(2),
            torch.zeros(4),
            r"hx must have shape \(H_out,\) for unbatched input = \(3,\), got \(4,\)",
        ),
        (
            nn.GRUCell(2, 3),
            torch.zeros(5),
            None,
            r"input must have shape \(H_in,\) for unbatched input = \(2,\), got \(5,\)",
        ),
        (
            nn.GRUCell(2, 3),
            torch.zeros(2),
            torch.zeros(1, 3),
            r"hx must have shape \(H_out,\) for unbatched input",
        ),
        (
            nn.LSTM(2, 3),
            torch.zeros(4, 1, 2),
            (None, torch.zeros(1, 1, 3)),
            r"hx\[0\] \(h_0\) must be a torch.Tensor, got NoneType",
        ),
    ],
)
def test_errors_name_the_callers_layout(module, input, hx, match):
    with pytest.raises((ValueError, TypeError), match=match):
        forward(module, input, hx)


# Issue 10: every public function answers like torch or refuses clearly.

LAYER_KINDS = {
    "RNN": lambda **kw: nn.RNN(3, 4, **kw),
    "RNN_relu": lambda **kw: nn.RNN(3, 4, nonlinearity="relu", **kw),
    "LSTM": lambda **kw: nn.LSTM(3, 4, **kw),
    "LSTM_proj": lambda **kw: nn.LSTM(3, 4, proj_size=2, **kw),
    "GRU": lambda **kw: nn.GRU(3, 4, **kw),
    "RNNCell": lambda **kw: nn.RNNCell(3, 4, **kw),
    "LSTMCell": lambda **kw: nn.LSTMCell(3, 4, **kw),
    "GRUCell": lambda **kw: nn.GRUCell(3, 4, **kw),
}


def _tensors(result):
    """The tensors of a module's return, flattened (a PackedSequence by its data)."""
    if isinstance(result, PackedSequence):
        return [result.data]
    if isinstance(result, tuple | list):
        return [t for part in result for t in _tensors(part)]
    return [result]


def _input(module, **kw):
    cell = isinstance(module, nn.RNNCell | nn.LSTMCell | nn.GRUCell)
    return torch.randn(*((2, 3) if cell else (5, 2, 3)), **kw)  # (N, H_in) or (L, N, H_in)


def test_rnn_runs_by_its_mode_as_torch_does():
    """pytorch#28058: nn.RNN dispatches on mode; setting nonlinearity later changes nothing."""
    torch.manual_seed(8)
    module = nn.RNN(3, 4, dtype=torch.float64)
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    expected = forward(module, x)
    module.nonlinearity = "relu"
    compare(forward(module, x), module(x))
    compare(forward(module, x), expected)  # still tanh: 'mode' is RNN_TANH
    del module.nonlinearity  # as a module pickled by an old torch: no such attribute
    compare(forward(module, x), module(x))
    relu = nn.RNN(3, 4, nonlinearity="relu", dtype=torch.float64)
    assert (forward(relu, -(x.abs()))[0] >= 0).all()


def test_rnn_cell_runs_by_its_nonlinearity_as_torch_does():
    torch.manual_seed(9)
    cell = nn.RNNCell(3, 4, dtype=torch.float64)
    x = torch.randn(2, 3, dtype=torch.float64)
    cell.nonlinearity = "relu"  # nn.RNNCell reads this attribute on every call
    compare(forward(cell, x), cell(x))
    assert (forward(cell, x) >= 0).all()
    cell.nonlinearity = "sigmoid"
    with pytest.raises(ValueError, match=r"module\.nonlinearity must be 'tanh' or 'relu', got 'sigmoid'"):
        forward(cell, x)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_modules_are_refused_clearly(kind, dtype):
    """pytorch#71614: torch runs complex modules; rnndoc says plainly that it does not."""
    module = LAYER_KINDS[kind](dtype=dtype)
    x = _input(module, dtype=dtype)
    with pytest.raises(TypeError, match="complex recurrent modules are not supported"):
        forward(module, x)
    with pytest.raises(TypeError, match="complex recurrent modules are not supported"):
        backward(module, x, grad_hx=None, grad_output=torch.zeros(1))


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
@pytest.mark.parametrize("kind", list(LAYER_KINDS))
@pytest.mark.parametrize(
    ("dtype", "atol"),
    [(torch.float16, 4e-3), (torch.bfloat16, 3e-2), (torch.float32, 1e-6), (torch.float64, FLOAT64_ATOL)],
)
def test_every_real_dtype_runs_with_torchs_dtypes(kind, dtype, atol):
    """Tolerances: a few units of each dtype's round-off (eps 1e-3, 8e-3, 1e-7) over a few steps."""
    torch.manual_seed(10)
    module = LAYER_KINDS[kind](dtype=dtype)
    x = _input(module, dtype=dtype)
    ours, theirs = _tensors(forward(module, x)), _tensors(module(x))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs] == [dtype] * len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b.detach(), rtol=0, atol=atol)


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
@pytest.mark.parametrize("kind", list(LAYER_KINDS))
@pytest.mark.parametrize("packed", [False, True])
def test_autocast_gives_torchs_dtypes(kind, packed):
    """Under CPU autocast, torch's dtypes differ by module (its fused oneDNN LSTM runs in bfloat16)."""
    torch.manual_seed(11)
    module = LAYER_KINDS[kind]()
    x = _input(module)
    if packed:
        if isinstance(module, nn.RNNCell | nn.LSTMCell | nn.GRUCell):
            pytest.skip("cells take no packed input")
        x = pack_padded_sequence(x, torch.tensor([5, 3]))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ours, theirs = _tensors(forward(module, x)), _tensors(torch_or_skip(lambda: module(x)))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs]
    for a, b in zip(ours, theirs, strict=True):  # bfloat16 round-off (eps 8e-3) over five steps
        torch.testing.assert_close(a.float(), b.detach().float(), rtol=0, atol=3e-2)


@pytest.mark.parametrize("kind", list(LAYER_KINDS))
def test_the_meta_device_runs(kind):
    module = LAYER_KINDS[kind](device="meta")
    x = _input(module, device="meta")
    ours, theirs = _tensors(forward(module, x)), _tensors(module(x))
    assert [(t.shape, t.dtype, t.device) for t in ours] == [(t.shape, t.dtype, t.device) for t in theirs]


@pytest.mark.parametrize(
    ("module", "input", "hx", "match"),
    [
        (nn.RNN(3, 4), torch.zeros(5, 2, 3), torch.zeros(1, 2, 4, device="meta"),
         "hx \\(h_0\\) is on device meta, but input is on device cpu"),
        (nn.LSTM(3, 4), torch.zeros(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4, device="meta")),
         "hx\\[1\\] \\(c_0\\) is on device meta, but input is on device cpu"),
        (nn.GRUCell(3, 4), torch.zeros(2, 3), torch.zeros(2, 4, device="meta"),
         "hx is on device meta, but input is on device cpu"),
        (nn.GRU(3, 4, device="meta"), torch.zeros(5, 2, 3),  None,
         "weight_ih_l0 is on device meta, but input is on device cpu"),
    ],
)  # fmt: skip
def test_a_state_on_another_device_is_named(module, input, hx, match):
    with pytest.raises(ValueError, match=match):
        forward(module, input, hx)


def test_an_empty_packed_sequence_is_refused():
    empty = PackedSequence(torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64))
    with pytest.raises(ValueError, match="input is an empty PackedSequence"):
        forward(nn.GRU(3, 4), empty)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: rnn_cell(torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(4, 3), torch.zeros(4, 4),
                          nonlinearity="sigmoid"), ValueError, "nonlinearity must be one of 'tanh', 'relu'"),
        (lambda: rnn_cell("x", torch.zeros(2, 4), torch.zeros(4, 3), torch.zeros(4, 4)), TypeError,
         "input must be a torch.Tensor, got str"),
        (lambda: rnn_cell(torch.zeros(3), torch.zeros(4), torch.zeros(4, 3), torch.zeros(4, 4), None, None, 5),
         TypeError, "nonlinearity must be a str, got int"),
        (lambda: rnn_cell(torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(4, 3), torch.zeros(4, 4),
                          torch.zeros(5)), ValueError, r"bias_ih must have shape \(G\*H,\) = \(4,\)"),
        (lambda: gru_cell(torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(12, 3), torch.zeros(12, 4),
                          reset_after=1), TypeError, "reset_after must be True or False"),
        (lambda: gru_cell(torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(11, 3), torch.zeros(12, 4)),
         ValueError, "weight_ih must have a multiple of 3 rows"),
        (lambda: gru_cell(torch.zeros(2, 3), torch.zeros(2, 4, device="meta"), torch.zeros(12, 3),
                          torch.zeros(12, 4)), ValueError, "hx is on device meta, but input is on device cpu"),
        (lambda: lstm_cell(torch.zeros(2, 3), torch.zeros(2, 4), torch.zeros(16, 3), torch.zeros(16, 4)),
         TypeError, r"hx must be a pair \(h, c\)"),
        (lambda: lstm_cell(torch.zeros(2, 3), (torch.zeros(2, 4), torch.zeros(2, 4, dtype=torch.float64)),
                           torch.zeros(16, 3), torch.zeros(16, 4)), TypeError, r"hx\[1\] \(c\) must have the dtype of weight_ih \(torch.float32\), got torch.float64"),
        (lambda: lstm_cell(torch.zeros(2, 3), (torch.zeros(2, 2), torch.zeros(2, 4)), torch.zeros(16, 3),
                           torch.zeros(16, 2), weight_hr=torch.zeros(2, 5)), ValueError,
         r"weight_hr must have shape \(P, H\) = \(2, 4\) \(P: weight_hh's columns, .*\), got \(2, 5\)"),
        (lambda: forward(nn.RNN(3, 4), torch.zeros(5, 2, 3, dtype=torch.complex64)), TypeError,
         "input must have a floating dtype"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)  # fmt: skip
def test_the_cells_name_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
