"""Modules changed after construction, autocast activations and odd arguments: torch's answer or a named refusal.

A breaker found cells whose ``bias`` flag was flipped answered without their biases (torch
keeps using the tensors), layers whose ``num_layers``/``bias``/``bidirectional`` were changed
answered by the flags (torch refuses), bfloat16 activations refused under autocast (torch
runs them), and refusals that named the wrong argument or none.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from layer_configs import torch_or_skip
from torch import nn

from rnndoc.layers import backward, forward, lstm_cell
from rnndoc.state_jacobian import gate_values, raise_forget_bias, state_jacobians
from rnndoc.verdict import FLOAT64_ATOL

F64 = torch.float64
CELLS = {"RNNCell": nn.RNNCell, "LSTMCell": nn.LSTMCell, "GRUCell": nn.GRUCell}


def _tensors(returned) -> list[torch.Tensor]:
    if isinstance(returned, torch.Tensor):
        return [returned]
    return [t for part in returned for t in _tensors(part)]


def _close(ours: list[torch.Tensor], theirs: list[torch.Tensor]) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b.detach(), rtol=0, atol=FLOAT64_ATOL)


# --- F1/F4: a cell's biases are the tensors it holds, whatever its flag says ------------------


def _changed_cell(kind: str, change: str, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    cell = CELLS[kind](3, 4, bias=change != "built without, flag set", dtype=F64)
    if change == "flag cleared":
        cell.bias = False
    elif change == "built without, flag set":
        cell.bias = True
    elif change != "none":
        for name in change.split("+"):
            setattr(cell, name, None)
    return cell


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(list(CELLS)),
    change=st.sampled_from(
        ["none", "flag cleared", "built without, flag set", "bias_ih", "bias_hh", "bias_ih+bias_hh"]
    ),
    batched=st.booleans(),
    with_state=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_cell_computes_with_the_biases_it_holds_as_torch_does(kind, change, batched, with_state, seed):
    cell = _changed_cell(kind, change, seed)
    batch = (2,) if batched else ()
    x = torch.randn(*batch, 3, dtype=F64)
    hx = None
    if with_state:
        h = torch.randn(*batch, 4, dtype=F64)
        hx = (h, torch.randn(*batch, 4, dtype=F64)) if kind == "LSTMCell" else h
    theirs = _tensors(cell(x, hx))
    _close(_tensors(forward(cell, x, hx)), theirs)
    grads = [torch.randn_like(t) for t in theirs]
    grad_output = tuple(grads) if kind == "LSTMCell" else grads[0]
    ours = backward(cell, x, hx, grad_output=grad_output)
    leaf = x.clone().requires_grad_()
    params = dict(cell.named_parameters())
    expected = torch.autograd.grad(_tensors(cell(leaf, hx)), [leaf, *params.values()], grads)
    assert set(ours) - {"input", "hx"} == set(params)  # a bias set to None has no gradient
    _close([ours["input"], *(ours[name] for name in params)], list(expected))


# --- F2: a layer's num_layers, bias, bidirectional changed after construction ----------------

_FLIPS = [
    ({"num_layers": 2}, "num_layers", 1),
    ({"num_layers": 1}, "num_layers", 2),
    ({"bias": True}, "bias", False),
    ({"bias": False}, "bias", True),
    ({"bidirectional": True}, "bidirectional", False),
    ({"bidirectional": False}, "bidirectional", True),
]


@pytest.mark.parametrize("kind", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize(("built", "attr", "value"), _FLIPS)
def test_a_layer_attribute_changed_after_construction_is_refused_as_torch_refuses(kind, built, attr, value):
    module = kind(3, 4, dtype=F64, **built)
    setattr(module, attr, value)
    x = torch.randn(5, 2, 3, dtype=F64)
    with pytest.raises(RuntimeError):
        module(x)  # torch: "Expected more weights in stacked_rnn" and the like
    match = (
        rf"module\.{attr} is {value}, but its weights are those of {attr}={built[attr]} .*was {attr} changed"
    )
    with pytest.raises(ValueError, match=match):
        forward(module, x)
    output, _ = module.__class__(3, 4, dtype=F64)(x)  # a gradient of the output's shape
    with pytest.raises(ValueError, match=match):
        backward(module, x, grad_output=torch.zeros_like(output))


@pytest.mark.parametrize(("kind", "helper"), [(nn.LSTM, gate_values), (nn.GRU, state_jacobians)])
def test_the_chapter_helpers_refuse_a_changed_num_layers_or_bias(kind, helper):
    x = torch.randn(4, 3, dtype=F64)
    fewer = kind(3, 4, num_layers=2, dtype=F64)
    fewer.num_layers = 1  # passes the one-layer check, but the weights are two layers'
    with pytest.raises(
        ValueError, match=r"module\.num_layers is 1, but its weights are those of num_layers=2"
    ):
        helper(fewer, x)
    unflagged = kind(3, 4, dtype=F64)
    unflagged.bias = False
    with pytest.raises(ValueError, match=r"module\.bias is False, but its weights are those of bias=True"):
        helper(unflagged, x)


def test_raise_forget_bias_refuses_a_changed_num_layers_naming_its_argument():
    lstm = nn.LSTM(3, 4, num_layers=2, dtype=F64)
    lstm.num_layers = 1
    with pytest.raises(ValueError, match=r"lstm\.num_layers is 1, but its weights are those of num_layers=2"):
        raise_forget_bias(lstm, 1.0)


# --- F3: activations in autocast's dtype, under autocast -------------------------------------

_LAYERS = {
    "GRU": lambda: nn.GRU(5, 7, num_layers=2, bidirectional=True),
    "RNN-tanh": lambda: nn.RNN(5, 7, bidirectional=True),
    "LSTM-proj": lambda: nn.LSTM(5, 7, num_layers=2, proj_size=3),
}


def _state(module: nn.Module, batch: tuple, cell: bool):
    layers = () if cell else (module.num_layers * (2 if module.bidirectional else 1),)
    out = getattr(module, "proj_size", 0) or module.hidden_size
    h = torch.randn(*layers, *batch, out)
    lstm = isinstance(module, nn.LSTM | nn.LSTMCell)
    return (h, torch.randn(*layers, *batch, module.hidden_size)) if lstm else h


def _bfloat16(value, where: str, which: str):
    if which not in (where, "both"):
        return value
    return tuple(v.bfloat16() for v in value) if isinstance(value, tuple) else value.bfloat16()


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")  # torch's own
@pytest.mark.parametrize("kind", [*_LAYERS, *CELLS])
@pytest.mark.parametrize("which", ["input", "hx", "both"])
@pytest.mark.parametrize("grad", [False, True])
def test_a_bfloat16_input_or_state_under_autocast_runs_as_torch_runs_it_bit_for_bit(kind, which, grad):
    torch.manual_seed(0)
    cell = kind in CELLS
    module = CELLS[kind](5, 7) if cell else _LAYERS[kind]()
    x = _bfloat16(torch.randn(3, 5) if cell else torch.randn(6, 3, 5), "input", which)
    hx = _bfloat16(_state(module, (3,), cell), "hx", which)
    with torch.set_grad_enabled(grad), torch.autocast("cpu", dtype=torch.bfloat16):
        theirs, ours = _tensors(torch_or_skip(lambda: module(x, hx))), _tensors(forward(module, x, hx))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs]
    assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))


@pytest.mark.parametrize("which", ["input", "hx", "both"])
def test_a_bfloat16_input_into_the_fused_lstm_gets_torchs_dtypes(which):
    """torch's oneDNN LSTM (no projection) runs in bfloat16; its round-off is its own, so only
    the dtypes and a bfloat16 tolerance are claimed, as for a float32 input."""
    torch.manual_seed(0)
    lstm = nn.LSTM(5, 7)
    x = _bfloat16(torch.randn(6, 3, 5), "input", which)
    hx = _bfloat16(_state(lstm, (3,), False), "hx", which)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        theirs, ours = _tensors(torch_or_skip(lambda: lstm(x, hx))), _tensors(forward(lstm, x, hx))
    assert [t.dtype for t in ours] == [t.dtype for t in theirs]
    for a, b in zip(ours, theirs, strict=True):  # bfloat16 round-off (eps 8e-3) over six steps
        torch.testing.assert_close(a.float(), b.detach().float(), rtol=0, atol=3e-2)


@pytest.mark.parametrize(
    ("module", "x", "match"),
    [
        (nn.GRU(3, 4), torch.zeros(5, 2, 3, dtype=torch.float16),
         r"input must have the dtype of weight_ih_l0 \(torch.float32\) or autocast's \(torch.bfloat16\), got torch.float16"),
        (nn.GRUCell(3, 4), torch.zeros(2, 3, dtype=torch.float16),
         r"input must have the dtype of weight_ih \(torch.float32\) or autocast's \(torch.bfloat16\), got torch.float16"),
    ],
)  # fmt: skip
def test_another_dtype_under_autocast_is_refused_naming_the_input(module, x, match):
    with torch.autocast("cpu", dtype=torch.bfloat16), pytest.raises(TypeError, match=match):
        forward(module, x)


def test_a_cell_blames_its_input_for_a_dtype_outside_autocast():
    with pytest.raises(
        TypeError, match=r"^input must have the dtype of weight_ih \(torch.float64\), got torch.float16$"
    ):
        forward(nn.LSTMCell(3, 4, dtype=F64), torch.zeros(2, 3, dtype=torch.float16))


# --- F4: what a cell reads of its size attributes ---------------------------------------------


@pytest.mark.parametrize("kind", list(CELLS))
def test_a_cell_runs_with_a_changed_input_size_as_torch_does(kind):
    torch.manual_seed(1)
    cell = CELLS[kind](3, 4, dtype=F64)
    cell.input_size = 5  # torch's cells never read it
    x = torch.randn(2, 3, dtype=F64)
    _close(_tensors(forward(cell, x)), _tensors(cell(x)))


@pytest.mark.parametrize("kind", list(CELLS))
def test_a_cell_reads_a_changed_hidden_size_only_for_a_default_state(kind):
    torch.manual_seed(2)
    cell = CELLS[kind](3, 4, dtype=F64)
    cell.hidden_size = 6
    x, h = torch.randn(2, 3, dtype=F64), torch.randn(2, 4, dtype=F64)
    hx = (h, torch.randn(2, 4, dtype=F64)) if kind == "LSTMCell" else h
    _close(_tensors(forward(cell, x, hx)), _tensors(cell(x, hx)))
    with pytest.raises(RuntimeError):
        cell(x)  # torch's zeros have hidden_size features
    with pytest.raises(ValueError, match=r"module\.hidden_size is 6, but its weights have hidden size 4"):
        forward(cell, x)


# --- the messages ---------------------------------------------------------------------------


def test_a_wrong_length_state_or_gradient_says_its_length():
    lstm, x, h = nn.LSTM(3, 4, dtype=F64), torch.randn(5, 2, 3, dtype=F64), torch.zeros(1, 2, 4, dtype=F64)
    with pytest.raises(
        TypeError, match=r"^hx of an LSTM must be a pair \(h_0, c_0\) of tensors, got a tuple of length 3$"
    ):
        forward(lstm, x, (h, h, h))
    with pytest.raises(
        TypeError,
        match=r"^grad_hx must be a pair \(like the LSTM's state\) or None, got a tuple of length 1$",
    ):
        backward(lstm, x, grad_hx=(h,))
    with pytest.raises(TypeError, match=r"^hx must be a pair \(h, c\) of tensors, got a list of length 1$"):
        forward(nn.LSTMCell(3, 4, dtype=F64), x[0], [h[0]])


def test_the_old_spectral_norm_hook_in_training_mode_is_named():
    gru = nn.GRU(3, 4, dtype=F64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch deprecates the hook form
        nn.utils.spectral_norm(gru, "weight_hh_l0")
    x = torch.randn(5, 2, 3, dtype=F64)
    with pytest.raises(
        TypeError, match=r"spectral_norm hook on weight_hh_l0 .*training mode.*module\.eval\(\)"
    ):
        forward(gru, x)
    gru.eval()  # followed there, without a power iteration
    _close(_tensors(forward(gru, x)), _tensors(gru(x)))


@pytest.mark.parametrize(
    ("module", "x"),
    [(nn.GRU(3, 4, dtype=F64), torch.randn(5, 2, 3, dtype=F64)), (nn.GRUCell(3, 4, dtype=F64), torch.randn(2, 3, dtype=F64))],
)  # fmt: skip
def test_a_sparse_input_is_refused_by_name(module, x):
    with pytest.raises(
        TypeError,
        match=r"^input must be a dense tensor \(layout torch.strided\), got layout torch.sparse_coo$",
    ):
        forward(module, x.to_sparse())


def test_a_sparse_state_is_refused_by_name():
    x, h = torch.randn(5, 2, 3, dtype=F64), torch.zeros(1, 2, 4, dtype=F64)
    with pytest.raises(
        TypeError,
        match=r"^hx \(h_0\) must be a dense tensor \(layout torch.strided\), got layout torch.sparse_coo$",
    ):
        forward(nn.GRU(3, 4, dtype=F64), x, h.to_sparse())
    with pytest.raises(
        TypeError, match=r"^hx must be a dense tensor \(layout torch.strided\), got layout torch.sparse_coo$"
    ):
        forward(nn.GRUCell(3, 4, dtype=F64), x[0], h[0].to_sparse())


@pytest.mark.parametrize("module", [nn.LSTMCell(3, 4, dtype=F64), nn.RNN(3, 4, dtype=F64)])
def test_gate_values_says_what_it_accepts(module):
    with pytest.raises(TypeError, match=r"^module must be an nn\.LSTM or nn\.GRU .*got (LSTMCell|RNN)$"):
        gate_values(module, torch.randn(4, 3, dtype=F64))


def test_lstm_cell_names_an_inconsistent_weight_hr():
    with pytest.raises(ValueError, match=r"^weight_hr must have shape \(P, H\) = \(2, 5\) .*got \(3, 5\)$"):
        lstm_cell(torch.ones(3, dtype=F64), (torch.zeros(2, dtype=F64), torch.zeros(5, dtype=F64)),
                  torch.ones(20, 3, dtype=F64), torch.ones(20, 2, dtype=F64), weight_hr=torch.ones(3, 5, dtype=F64))  # fmt: skip
