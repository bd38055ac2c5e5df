"""The chapters' helpers on the kinds of input rnndoc.layers handles (tests/test_review_layers.py).

A table: helper x kind of input. Where a helper answers, the value is held against torch's
own reading of the module (the module called, autograd through the call, weights as the
module's hooks or parametrizations compute them) in float64, rtol=0, atol=1e-12; where it
refuses, the error class and the argument named. The helpers are called *before* the module
runs, so a pruned or weight-normed attribute is still stale when they read it.
"""

from __future__ import annotations

import copy
import math
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.nn.utils import parametrize, prune

from rnndoc.adding import evaluate
from rnndoc.bptt import bptt_gradients
from rnndoc.classification import loss_and_gradients, path_contributions, sgd_step, tensors
from rnndoc.masking import length_mask, masked_mean
from rnndoc.state_jacobian import (
    autograd_state_jacobians,
    gate_values,
    gru_step_jacobian,
    lstm_step_jacobian,
    raise_forget_bias,
    raise_update_bias,
    rnn_step_jacobian,
    state_jacobians,
)
from rnndoc.truncated import chunked_autograd_gradients
from rnndoc.vanishing import autograd_state_gradient_norms, state_gradient_norms

F64 = torch.float64
H = 3  # hidden size = input size, so that weight_ih and weight_hh can be tied
EXACT = {"rtol": 0, "atol": 1e-12}
# float32: one rounding per operation, a different order from torch's kernels; 1e-5 is
# about 100 float32 epsilons on entries of order 1.
SINGLE = {"rtol": 0, "atol": 1e-5}


# ---- torch's own answers -------------------------------------------------------------------


def _lstm(module):
    return isinstance(module, nn.LSTM)


def _run(module, x, state):
    """torch: the module called on the unbatched x from the flat state s = h or (h, c)."""
    if _lstm(module):
        _, (h, c) = module(x, (state[None, :H], state[None, H:]))
        return torch.cat([h[0], c[0]])
    return module(x, state[None])[1][0]


def _torch_states(module, x):
    """s_0 = 0, s_1, ..., s_T by calling the module on x[:t]."""
    size = 2 * H if _lstm(module) else H
    zero = x.new_zeros(size)
    return [zero] + [_run(module, x[:t], zero).detach() for t in range(1, len(x) + 1)]


def torch_jacobians(module, x):
    """ds_T/ds_(T-d) for d = 0 ... T, by autograd through module(x[t:], s_t)."""
    states = _torch_states(module, x)
    eye = torch.eye(len(states[0]), dtype=x.dtype)
    out = [eye] + [
        torch.autograd.functional.jacobian(lambda s, t=t: _run(module, x[t:], s), states[t])
        for t in reversed(range(len(x)))
    ]
    return torch.stack(out)


def torch_norms(module, x):
    """||dh_T/dh_(T-d)||_2 with c_(T-d) held, by autograd through the module."""
    states = _torch_states(module, x)
    norms = [torch.ones((), dtype=x.dtype)]
    for t in reversed(range(len(x))):
        rest = states[t][H:]

        def final_h(h, t=t, rest=rest):
            return _run(module, x[t:], torch.cat([h, rest]))[:H]

        jacobian = torch.autograd.functional.jacobian(final_h, states[t][:H])
        finite = bool(jacobian.isfinite().all())  # torch's SVD refuses NaN: the norm of NaN is NaN
        norms.append(torch.linalg.matrix_norm(jacobian, ord=2) if finite else x.new_tensor(float("nan")))
    return torch.stack(norms)


def torch_gates(module, x):
    """The gates from the weights as torch's call reads them (getattr after a call)."""
    module(x)  # the hooks refresh the attributes
    w = {k: getattr(module, f"{k}_l0") for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
    states = _torch_states(module, x)
    out: dict[str, list] = {}
    for t, x_t in enumerate(x):
        h = states[t][:H]
        a_x, a_h = w["weight_ih"] @ x_t + w["bias_ih"], w["weight_hh"] @ h + w["bias_hh"]
        if _lstm(module):
            i, f, g, o = (a_x + a_h).chunk(4)
            gates = {"i": i.sigmoid(), "f": f.sigmoid(), "g": g.tanh(), "o": o.sigmoid()}
        else:
            (x_r, x_z, x_n), (h_r, h_z, h_n) = a_x.chunk(3), a_h.chunk(3)
            r = (x_r + h_r).sigmoid()
            gates = {"r": r, "z": (x_z + h_z).sigmoid(), "n": (x_n + r * h_n).tanh()}
        for k, v in gates.items():
            out.setdefault(k, []).append(v.detach())
    return {k: torch.stack(v) for k, v in out.items()}


HELPERS = {
    "state_jacobians": (state_jacobians, torch_jacobians, (nn.RNN, nn.LSTM, nn.GRU)),
    "autograd_state_jacobians": (autograd_state_jacobians, torch_jacobians, (nn.RNN, nn.LSTM, nn.GRU)),
    "autograd_state_gradient_norms": (autograd_state_gradient_norms, torch_norms, (nn.RNN, nn.LSTM, nn.GRU)),
    "gate_values": (gate_values, torch_gates, (nn.LSTM, nn.GRU)),
}
AUTOGRAD = {"autograd_state_jacobians"}  # runs autograd through the module: backward hooks matter


# ---- the kinds of module ---------------------------------------------------------------------


class _Scale(nn.Module):
    def forward(self, w):
        return 0.7 * w


def _make(cls, kind, dtype=F64, **config):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout with one layer; the old weight_norm
        module = cls(H, H, dtype=dtype, **config)
        if kind == "parametrize":
            parametrize.register_parametrization(module, "weight_hh_l0", _Scale())
        elif kind == "weight_norm":
            nn.utils.parametrizations.weight_norm(module, "weight_ih_l0")
        elif kind == "pruned":
            prune.l1_unstructured(module, "weight_hh_l0", amount=0.5)
            with torch.no_grad():
                module.weight_hh_l0_orig.add_(0.25)  # an optimizer step: the attribute is stale
        elif kind == "old_weight_norm":
            nn.utils.weight_norm(module, "weight_hh_l0")
            with torch.no_grad():
                module.weight_hh_l0_v.mul_(1.5).add_(0.1)  # stale until the next call
        elif kind == "spectral_norm_eval":
            nn.utils.spectral_norm(module, "weight_hh_l0")
            module(torch.zeros(1, H, dtype=dtype))  # one power iteration, in training mode
            module.eval()
        elif kind == "frozen":
            module.requires_grad_(False)
        elif kind == "tied":
            module.weight_ih_l0 = module.weight_hh_l0
        elif kind == "deepcopy":
            module = copy.deepcopy(module)
        elif kind == "reloaded":
            other = cls(H, H, dtype=dtype, **config)
            other.load_state_dict(module.state_dict())
            module = other
        elif kind == "dropout_training":
            module = cls(H, H, dtype=dtype, dropout=0.5, **config).train()  # one layer: no dropout
    return module


ANSWERS = [
    "plain",
    "parametrize",
    "weight_norm",
    "pruned",
    "old_weight_norm",
    "spectral_norm_eval",
    "frozen",
    "tied",
    "deepcopy",
    "reloaded",
    "dropout_training",
]


def _input(length=5, dtype=F64):
    torch.manual_seed(1)
    return torch.randn(length, H, dtype=dtype)


def _close(ours, theirs, tolerance=EXACT):
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs:
            torch.testing.assert_close(ours[k], theirs[k], equal_nan=True, **tolerance, msg=k)
    else:
        torch.testing.assert_close(ours, theirs, equal_nan=True, **tolerance)


def _cases(kinds):
    return [
        pytest.param(helper, cls, kind, id=f"{helper}-{cls.__name__}-{kind}")
        for helper, (_, _, classes) in HELPERS.items()
        for cls in classes
        for kind in kinds
    ]


@pytest.mark.parametrize(("helper", "cls", "kind"), _cases(ANSWERS))
def test_a_module_helper_answers_as_torch_reads_the_module(helper, cls, kind):
    function, reference, _ = HELPERS[helper]
    module = _make(cls, kind)
    x = _input()
    ours = function(module, x)  # before the module runs: stale attributes are still stale
    _close(ours, reference(module, x))


@pytest.mark.parametrize(("helper", "cls", "kind"), _cases(["plain"]))
def test_the_reference_sees_a_stale_attribute_the_helper_would_have_missed(helper, cls, kind):
    """The kinds above can fail: a helper that read the stale ``weight_hh_l0`` is caught."""
    function, reference, _ = HELPERS[helper]
    module = _make(cls, "pruned")
    x = _input()
    stale = _make(cls, "pruned")
    del stale._forward_pre_hooks[next(iter(stale._forward_pre_hooks))]  # the pruning hook
    with pytest.raises(AssertionError):
        _close(function(stale, x), reference(module, x))


@pytest.mark.parametrize(
    ("helper", "cls", "kind"), _cases(["batch_first", "float32", "noncontiguous", "nan", "inf", "empty"])
)
def test_a_module_helper_answers_on_degenerate_input(helper, cls, kind):
    function, reference, _ = HELPERS[helper]
    tolerance = SINGLE if kind == "float32" else EXACT
    module = _make(
        cls, "plain", F64 if kind != "float32" else torch.float32, batch_first=kind == "batch_first"
    )
    x = _input(dtype=module.weight_hh_l0.dtype)
    if kind == "noncontiguous":
        x = torch.randn(H, 2 * len(x), dtype=F64).T[::2]  # (T, H), strided
        assert not x.is_contiguous()
    elif kind in ("nan", "inf"):
        x = x.clone()
        x[2, 1] = float(kind)
    elif kind == "empty":
        x = x[:0]
    ours = function(module, x)
    theirs = reference(module, x) if kind != "empty" else _empty_answer(helper, module)
    _close(ours, theirs, tolerance)
    if kind == "nan":  # the NaN reaches the late states, as through torch
        assert (
            torch.cat([v.flatten() for v in (ours.values() if isinstance(ours, dict) else [ours])])
            .isnan()
            .any()
        )


def _empty_answer(helper, module):
    """T = 0: ds_0/ds_0 = I, its norm 1, and no gate."""
    size = 2 * H if _lstm(module) else H
    if helper == "gate_values":
        return {k: torch.zeros(0, H, dtype=F64) for k in ("ifgo" if _lstm(module) else "rzn")}
    if helper == "autograd_state_gradient_norms":
        return torch.ones(1, dtype=F64)
    return torch.eye(size, dtype=F64)[None]


class _OwnForward(nn.GRU):
    def forward(self, input, hx=None):
        output, h = super().forward(input, hx)
        return 2 * output, 2 * h


def _refusal(cls, kind):
    """(module, input, error, match) for a kind every module helper refuses."""
    x = _input()
    if kind == "forward_hook":
        module = _make(cls, "plain")
        module.register_forward_hook(lambda m, args, out: out)
        return module, x, TypeError, r"module.*hook"
    if kind == "forward_pre_hook":
        module = _make(cls, "plain")
        module.register_forward_pre_hook(lambda m, args: None)
        return module, x, TypeError, r"module.*hook"
    if kind == "spectral_norm_training":
        module = _make(cls, "spectral_norm_eval").train()
        return module, x, TypeError, r"module.*hook"
    if kind == "own_forward":
        return _OwnForward(H, H, dtype=F64), x, TypeError, r"module.*_OwnForward.*forward"
    if kind == "two_layers":
        return _make(cls, "plain", num_layers=2), x, ValueError, r"module.*num_layers=2"
    if kind == "bidirectional":
        return _make(cls, "plain", bidirectional=True), x, ValueError, r"module.*bidirectional=True"
    if kind == "wrong_dtype":
        return _make(cls, "plain"), x.float(), TypeError, r"input.*float64"
    if kind == "complex":
        return _make(cls, "plain"), x.to(torch.complex128), TypeError, r"input.*floating"
    if kind == "meta_module":
        return _make(cls, "plain").to("meta"), x, ValueError, r"weight_ih_l0.*meta.*input.*cpu"
    if kind == "wrong_shape":
        return _make(cls, "plain"), x[None], ValueError, r"input.*\(T, H_in\)"
    if kind == "not_a_module":
        return nn.Linear(H, H), x, TypeError, r"module.*Linear"
    raise AssertionError(kind)


REFUSALS = [
    "forward_hook",
    "forward_pre_hook",
    "spectral_norm_training",
    "own_forward",
    "two_layers",
    "bidirectional",
    "wrong_dtype",
    "complex",
    "meta_module",
    "wrong_shape",
    "not_a_module",
]


@pytest.mark.parametrize(("helper", "cls", "kind"), _cases(REFUSALS))
def test_a_module_helper_refuses_by_name(helper, cls, kind):
    function = HELPERS[helper][0]
    module, x, error, match = _refusal(cls, kind)
    with pytest.raises(error, match=match):
        function(module, x)


@pytest.mark.parametrize("helper", HELPERS)
def test_a_projection_and_a_relu_rnn_are_refused_where_unsupported(helper):
    function = HELPERS[helper][0]
    with pytest.raises(ValueError, match=r"module.*proj_size=2"):
        function(nn.LSTM(H, H, proj_size=2, dtype=F64), _input())
    relu = nn.RNN(H, H, nonlinearity="relu", dtype=F64)
    if helper == "autograd_state_gradient_norms":  # runs the cell as torch does: ReLU too
        _close(function(relu, _input()), torch_norms(relu, _input()))
    else:
        error = TypeError if helper == "gate_values" else ValueError
        with pytest.raises(error, match="module"):
            function(relu, _input())


@pytest.mark.parametrize(("helper", "cls", "kind"), _cases(["backward_hook"]))
def test_backward_hooks_are_refused_only_where_autograd_runs_through_the_module(helper, cls, kind):
    function, reference, _ = HELPERS[helper]
    module = _make(cls, "plain")
    module.register_full_backward_hook(lambda m, grad_input, grad_output: None)
    if helper in AUTOGRAD:
        with pytest.raises(TypeError, match=r"module.*backward hooks"):
            function(module, _input())
    else:
        _close(function(module, _input()), reference(module, _input()))


@settings(max_examples=25, deadline=None)
@given(
    cls=st.sampled_from([nn.RNN, nn.LSTM, nn.GRU]),
    kind=st.sampled_from(ANSWERS),
    length=st.integers(1, 6),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_state_jacobians_agree_with_torch_over_configurations(cls, kind, length, bias, seed):
    module = _make(cls, kind, bias=bias)
    torch.manual_seed(seed)
    x = torch.randn(length, H, dtype=F64)
    ours = state_jacobians(module, x)
    theirs = torch_jacobians(module, x)
    scale = max(1.0, theirs.abs().max().item())  # products can exceed 1: an absolute bound per unit
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12 * scale)


# ---- the tensor helpers ------------------------------------------------------------------------


def _torch_step(kind, x, h, c, w_ih, w_hh, b_ih, b_hh):
    if kind == "lstm":
        h_t, c_t = torch.lstm_cell(x[None], (h[None], c[None]), w_ih, w_hh, b_ih, b_hh)
        return torch.cat([h_t[0], c_t[0]])
    cell = torch.gru_cell if kind == "gru" else torch.rnn_tanh_cell
    return cell(x[None], h[None], w_ih, w_hh, b_ih, b_hh)[0]


STEPS = {"rnn": (rnn_step_jacobian, 1), "lstm": (lstm_step_jacobian, 4), "gru": (gru_step_jacobian, 3)}


def _step_args(kind, dtype=F64):
    torch.manual_seed(2)
    gates = STEPS[kind][1]
    x, h, c = (torch.randn(H, dtype=dtype) for _ in range(3))
    w_ih, w_hh = torch.randn(gates * H, H, dtype=dtype), torch.randn(gates * H, H, dtype=dtype)
    b_ih, b_hh = torch.randn(gates * H, dtype=dtype), torch.randn(gates * H, dtype=dtype)
    return [x, h, c, w_ih, w_hh, b_ih, b_hh]


def _call_step(kind, args):
    x, h, c, *weights = args
    return STEPS[kind][0](x, h, c, *weights) if kind == "lstm" else STEPS[kind][0](x, h, *weights)


def _torch_step_jacobian(kind, args):
    x, h, c, *weights = args
    if kind == "lstm":
        return torch.autograd.functional.jacobian(
            lambda s: _torch_step(kind, x, s[:H], s[H:], *weights), torch.cat([h, c])
        )
    return torch.autograd.functional.jacobian(lambda s: _torch_step(kind, x, s, c, *weights), h)


@pytest.mark.parametrize("kind", STEPS)
@pytest.mark.parametrize("case", ["plain", "float32", "noncontiguous", "nan", "inf", "requires_grad"])
def test_a_step_jacobian_answers_as_autograd_through_torch_s_cell(kind, case):
    args = _step_args(kind, torch.float32 if case == "float32" else F64)
    if case == "noncontiguous":
        args[4] = args[4].T.contiguous().T  # weight_hh, column-major
        args[0] = torch.stack([args[0], args[0]], dim=1)[:, 0]  # x_t, stride 2
        assert not args[4].is_contiguous()
        assert not args[0].is_contiguous()
    elif case in ("nan", "inf"):
        args[0] = args[0].clone()
        args[0][0] = float(case)
    elif case == "requires_grad":
        args = [a.requires_grad_() for a in args]
    ours = _call_step(kind, args).detach()
    theirs = _torch_step_jacobian(kind, [a.detach() for a in args])
    if kind == "lstm" and case == "nan":  # autograd's 0 * NaN off the diagonals of the c blocks
        structural = ~torch.eye(H, dtype=torch.bool).repeat(2, 1)  # (2H, H): off-diagonal
        assert torch.equal(ours[:, H:][structural], torch.zeros_like(ours[:, H:][structural]))
        assert theirs[:, H:][structural].isnan().all()
        ours, theirs = ours.clone(), theirs.clone()
        theirs[:, H:][structural] = 0.0
    _close(ours, theirs, SINGLE if case == "float32" else EXACT)
    if case == "nan":
        assert ours.isnan().any()


@pytest.mark.parametrize("kind", STEPS)
@pytest.mark.parametrize(
    ("case", "error", "match"),
    [
        ("wrong_dtype", TypeError, "h_prev.*float64"),
        ("meta", ValueError, "h_prev.*meta.*x_t.*cpu"),
        ("complex", TypeError, "h_prev.*floating"),
        ("int", TypeError, "h_prev.*floating"),
        ("shape", ValueError, r"h_prev.*\(H,\)"),
    ],
)
def test_a_step_jacobian_refuses_by_name(kind, case, error, match):
    args = _step_args(kind)
    h = args[1]
    args[1] = {
        "wrong_dtype": h.float(),
        "meta": h.to("meta"),
        "complex": h.to(torch.complex128),
        "int": h.long(),
        "shape": h[:2],
    }[case]
    with pytest.raises(error, match=match):
        _call_step(kind, args)


@pytest.mark.parametrize("case", ["plain", "noncontiguous", "float32", "nan", "empty"])
def test_state_gradient_norms_answer_as_autograd_through_nn_rnn(case):
    dtype = torch.float32 if case == "float32" else F64
    rnn = _make(nn.RNN, "plain", dtype, bias=False)
    x = _input(0 if case == "empty" else 5, dtype)
    hidden = rnn(x)[0].detach() if len(x) else x.new_zeros(0, H)
    weight = rnn.weight_hh_l0.detach()
    if case == "noncontiguous":
        weight, hidden = weight.T.contiguous().T, hidden.T.contiguous().T
        assert not weight.is_contiguous()
        assert not hidden.is_contiguous()
    if case == "nan":
        hidden = hidden.clone()
        hidden[1, 0] = float("nan")  # h_2: the products back to h_1 and earlier are NaN
        ours = state_gradient_norms(weight, hidden)
        assert not ours[: len(x) - 1].isnan().any()
        assert ours[len(x) - 1 :].isnan().all()
        return
    ours = state_gradient_norms(weight, hidden)
    theirs = torch_norms(rnn, x) if len(x) else torch.ones(1, dtype=F64)
    _close(ours, theirs, SINGLE if case == "float32" else EXACT)


def test_state_gradient_norms_give_infinity_for_an_infinite_product():
    weight = torch.tensor([[float("inf")]], dtype=F64)  # H = 1: no 0 * inf in the product
    norms = state_gradient_norms(weight, torch.zeros(2, 1, dtype=F64))
    assert norms.tolist() == [1.0, float("inf"), float("inf")]


@pytest.mark.parametrize(
    ("weight", "hidden", "error", "match"),
    [
        (
            torch.eye(2, dtype=F64).to("meta"),
            torch.zeros(3, 2, dtype=F64),
            ValueError,
            "hidden.*cpu.*weight_hh.*meta",
        ),
        (torch.eye(2, dtype=F64), torch.zeros(3, 2), TypeError, "hidden.*float64"),
        (
            torch.eye(2, dtype=torch.complex128),
            torch.zeros(3, 2, dtype=F64),
            TypeError,
            "weight_hh.*floating",
        ),
    ],
)
def test_state_gradient_norms_refuse_by_name(weight, hidden, error, match):
    with pytest.raises(error, match=match):
        state_gradient_norms(weight, hidden)


# ---- truncated BPTT ------------------------------------------------------------------------------


def _rnn_values(batch=2, length=5, dtype=F64):
    torch.manual_seed(3)
    return {
        "inputs": torch.randn(batch, length, H, dtype=dtype),
        "targets": torch.randn(batch, length, H, dtype=dtype),
        "h_0": torch.randn(1, batch, H, dtype=dtype),
    }


def _torch_weights(rnn, values):
    rnn(values["inputs"], values["h_0"])  # the hooks refresh the attributes
    return {k: getattr(rnn, k).detach() for k in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")}


@pytest.mark.parametrize("kind", ANSWERS)
@pytest.mark.parametrize("truncation", [1, 2, 5])
def test_truncated_bptt_answers_as_the_delta_recursion_on_the_weights_torch_reads(kind, truncation):
    rnn = _make(nn.RNN, kind, batch_first=True)
    values = _rnn_values()
    before = {k: v.clone() for k, v in rnn.state_dict().items()}
    ours = chunked_autograd_gradients(rnn, values, truncation)
    assert all(torch.equal(before[k], v) for k, v in rnn.state_dict().items())  # left alone
    weights = _torch_weights(rnn, values)
    theirs = bptt_gradients(values | weights, truncation=truncation).gradients
    if kind == "tied":  # one tensor, two uses: autograd's total under each name
        total = theirs["weight_ih_l0"] + theirs["weight_hh_l0"]
        theirs = theirs | {"weight_ih_l0": total, "weight_hh_l0": total}
    assert set(ours) == {*weights, "h_0"}
    for name in ours:
        torch.testing.assert_close(ours[name], theirs[name], **EXACT, msg=name)


def test_truncated_bptt_tied_gradient_is_what_autograd_gives_on_the_module():
    rnn = _make(nn.RNN, "tied", batch_first=True)
    values = _rnn_values()
    ours = chunked_autograd_gradients(rnn, values, 5)  # one chunk: plain autograd
    output, _ = rnn(values["inputs"], values["h_0"])
    loss = 0.5 * (output - values["targets"]).square().sum()
    (shared,) = torch.autograd.grad(loss, [rnn.weight_hh_l0])
    torch.testing.assert_close(ours["weight_ih_l0"], shared, **EXACT)
    torch.testing.assert_close(ours["weight_hh_l0"], shared, **EXACT)


@pytest.mark.parametrize(
    ("case", "expected"),
    [("zero_batch", "zeros"), ("noncontiguous", "value"), ("float32", "value"), ("nan", "nan")],
)
def test_truncated_bptt_on_degenerate_input(case, expected):
    dtype = torch.float32 if case == "float32" else F64
    rnn = _make(nn.RNN, "plain", dtype, batch_first=True)
    values = _rnn_values(batch=0 if case == "zero_batch" else 2, dtype=dtype)
    if case == "noncontiguous":
        values["inputs"] = values["inputs"].transpose(0, 2).contiguous().transpose(0, 2)
        assert not values["inputs"].is_contiguous()
    if case == "nan":
        values["inputs"] = values["inputs"].clone()
        values["inputs"][0, 3, 0] = float("nan")
    ours = chunked_autograd_gradients(rnn, values, 2)
    if expected == "zeros":  # no sequence, no loss: zero gradients, as autograd gives
        assert all(torch.equal(g, torch.zeros_like(g)) for g in ours.values())
        assert ours["h_0"].shape == (1, 0, H)
        return
    theirs = bptt_gradients(values | _torch_weights(rnn, values), truncation=2).gradients
    if expected == "nan":  # the NaN at step 4 reaches the gradients of its chunk
        assert ours["weight_hh_l0"].isnan().all()
        assert not ours["h_0"][:, 1].isnan().any()
        return
    for name in ours:
        torch.testing.assert_close(ours[name], theirs[name], **(SINGLE if case == "float32" else EXACT))


def _truncated_refusal(case):
    values = _rnn_values()
    rnn = _make(nn.RNN, "plain", batch_first=True)
    if case == "forward_hook":
        rnn.register_forward_hook(lambda m, a, o: o)
    elif case == "backward_hook":
        rnn.register_full_backward_hook(lambda m, gi, go: None)
    elif case == "spectral_norm_training":
        rnn = _make(nn.RNN, "spectral_norm_eval", batch_first=True).train()
    elif case == "own_forward":

        class OwnForward(nn.RNN):
            def forward(self, input, hx=None):
                return super().forward(input, hx)

        rnn = OwnForward(H, H, batch_first=True, dtype=F64)
    elif case == "time_first":
        rnn = _make(nn.RNN, "plain")
    elif case == "two_layers":
        rnn = _make(nn.RNN, "plain", num_layers=2, batch_first=True)
    elif case == "bidirectional":
        rnn = _make(nn.RNN, "plain", bidirectional=True, batch_first=True)
    elif case == "lstm":
        rnn = _make(nn.LSTM, "plain", batch_first=True)
    elif case == "zero_length":
        values = {k: v[:, :0] if k != "h_0" else v for k, v in values.items()}
    elif case == "wrong_dtype":
        values["targets"] = values["targets"].float()
    elif case == "meta":
        values["h_0"] = values["h_0"].to("meta")
    elif case == "meta_module":
        rnn = rnn.to("meta")
    return rnn, values


@pytest.mark.parametrize(
    ("case", "error", "match"),
    [
        ("forward_hook", TypeError, r"rnn.*hook"),
        ("backward_hook", TypeError, r"rnn.*backward hooks"),
        ("spectral_norm_training", TypeError, r"rnn.*hook"),
        ("own_forward", TypeError, r"rnn.*OwnForward.*forward"),
        ("time_first", ValueError, r"rnn.*batch_first=False"),
        ("two_layers", ValueError, r"rnn.*num_layers=2"),
        ("bidirectional", ValueError, r"rnn.*bidirectional=True"),
        ("lstm", TypeError, r"rnn.*nn.RNN.*LSTM"),
        ("zero_length", ValueError, r"inputs.*time step"),
        ("wrong_dtype", TypeError, r"targets.*float64"),
        ("meta", ValueError, r"h_0.*meta.*inputs.*cpu"),
        ("meta_module", ValueError, r"weight_ih_l0.*meta.*inputs.*cpu"),
    ],
)
def test_truncated_bptt_refuses_by_name(case, error, match):
    rnn, values = _truncated_refusal(case)
    with pytest.raises(error, match=match):
        chunked_autograd_gradients(rnn, values, 2)


def test_truncated_bptt_draws_nothing_from_the_global_generator():
    rnn, values = _make(nn.RNN, "plain", batch_first=True), _rnn_values()
    state = torch.random.get_rng_state()
    chunked_autograd_gradients(rnn, values, 2)
    assert torch.equal(torch.random.get_rng_state(), state)


# ---- raising a gate bias -----------------------------------------------------------------------------


RAISE = {nn.LSTM: raise_forget_bias, nn.GRU: raise_update_bias}


@pytest.mark.parametrize("cls", RAISE)
@pytest.mark.parametrize("kind", ["plain", "frozen", "deepcopy", "reloaded", "tied_layers", "meta"])
def test_raising_a_gate_bias_moves_what_the_module_computes_with_by_delta(cls, kind):
    module = _make(cls, "plain" if kind in ("tied_layers", "meta") else kind, num_layers=2)
    if kind == "tied_layers":
        module.bias_ih_l1 = module.bias_ih_l0
    if kind == "meta":
        module = module.to("meta")
        assert RAISE[cls](module, 1.0) is module  # nothing to read back on meta; it runs
        return
    before = {k: v.detach().clone() for k, v in module.named_parameters(remove_duplicate=False)}
    assert RAISE[cls](module, 1.5) is module
    for name, value in module.named_parameters(remove_duplicate=False):
        expected = before[name].clone()
        if name.startswith("bias_ih"):
            expected[H : 2 * H] += 1.5  # once, even where the tensor is shared
        assert torch.equal(value.detach(), expected), name


@pytest.mark.parametrize("cls", RAISE)
@pytest.mark.parametrize("kind", ["parametrize", "pruned", "old_weight_norm", "spectral_norm_training"])
def test_raising_a_bias_the_module_recomputes_is_refused(cls, kind):
    module = _make(cls, "plain")
    if kind == "parametrize":
        parametrize.register_parametrization(module, "bias_ih_l0", _Scale())
    elif kind == "pruned":
        prune.l1_unstructured(module, "bias_ih_l0", amount=0.5)
    elif kind == "old_weight_norm":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nn.utils.weight_norm(module, "bias_ih_l0", dim=0)
    else:
        nn.utils.spectral_norm(module, "bias_ih_l0", dim=0)
    name = "lstm" if cls is nn.LSTM else "gru"
    with pytest.raises(ValueError, match=rf"{name}.bias_ih_l0 is recomputed"):
        RAISE[cls](module, 1.0)


# ---- classification -------------------------------------------------------------------------------------


def _torch_classifier(values, target=1):
    """nn.RNN (bias=False) and nn.Linear loaded with the values; autograd's loss and gradients."""
    hidden_size, vocabulary = values["weight_ih_l0"].shape
    dtype = values["weight_ih_l0"].dtype
    rnn = nn.RNN(vocabulary, hidden_size, bias=False, dtype=dtype)
    head = nn.Linear(hidden_size, values["linear.weight"].shape[0], dtype=dtype)
    parameters = dict(rnn.named_parameters()) | {f"linear.{k}": p for k, p in head.named_parameters()}
    with torch.no_grad():
        for name, p in parameters.items():
            p.copy_(values[name])
    h_T = rnn(values["inputs"], values["h_0"][None])[1] if len(values["inputs"]) else values["h_0"][None]
    loss = nn.functional.cross_entropy(head(h_T), torch.tensor([target]))
    grads = torch.autograd.grad(loss, list(parameters.values()), allow_unused=True, materialize_grads=True)
    return loss.detach(), dict(zip(parameters, grads, strict=True))


@pytest.mark.parametrize("case", ["plain", "float32", "noncontiguous", "requires_grad", "empty", "nan"])
def test_the_classifier_answers_as_nn_rnn_and_autograd(case):
    values = tensors()
    if case == "float32":
        values = {k: v.float() for k, v in values.items()}
    elif case == "noncontiguous":
        values = {k: v.T.contiguous().T if v.dim() == 2 else v for k, v in values.items()}
        assert not values["weight_hh_l0"].is_contiguous()
    elif case == "requires_grad":
        values = {k: (v * 1).requires_grad_() for k, v in values.items()}
    elif case == "empty":
        values["inputs"] = values["inputs"][:0]
    elif case == "nan":
        values["inputs"] = values["inputs"].clone()
        values["inputs"][1, 0] = float("nan")
    loss, grads = loss_and_gradients(values)
    their_loss, theirs = _torch_classifier({k: v.detach() for k, v in values.items()})
    tolerance = SINGLE if case == "float32" else EXACT
    _close(loss, their_loss, tolerance)
    _close(grads, theirs, tolerance)
    paths = path_contributions(values)
    assert paths.shape == (len(values["inputs"]), 2, 2)
    _close(paths.sum(dim=0), theirs["weight_hh_l0"], tolerance)
    if case == "nan":
        assert loss.isnan()
        assert paths.isnan().all()


@pytest.mark.parametrize(
    ("entry", "value", "error", "match"),
    [
        ("h_0", lambda v: v.to("meta"), ValueError, "h_0.*meta.*weight_ih_l0.*cpu"),
        ("inputs", lambda v: v.float(), TypeError, "inputs.*float64"),
        ("inputs", lambda v: v.to(torch.complex128), TypeError, "inputs.*floating"),
    ],
)
def test_the_classifier_refuses_by_name(entry, value, error, match):
    values = tensors()
    values[entry] = value(values[entry])
    for function in (loss_and_gradients, path_contributions):
        with pytest.raises(error, match=match):
            function(values)


# ---- masking and the adding problem ------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["plain", "noncontiguous", "float32", "nan_on_padding", "nan_on_a_step"])
def test_masked_mean_answers_as_the_mean_of_the_real_steps(case):
    dtype = torch.float32 if case == "float32" else F64
    lengths = torch.tensor([2, 4, 1])
    losses = torch.arange(12, dtype=dtype).reshape(4, 3) / 7
    if case == "noncontiguous":
        losses = losses.T.contiguous().T
        assert not losses.is_contiguous()
    if case.startswith("nan"):
        losses = losses.clone()
        losses[3 if case == "nan_on_padding" else 0, 0] = float("nan")
    real = torch.cat([losses[: int(n), b] for b, n in enumerate(lengths)])
    _close(masked_mean(losses, lengths), real.mean(), EXACT)
    assert masked_mean(losses, lengths).isnan().item() == (case == "nan_on_a_step")


def test_masked_mean_of_no_sequence_is_nan_as_torch_mean_of_nothing():
    ours = masked_mean(torch.zeros(4, 0, dtype=F64), torch.zeros(0, dtype=torch.long))
    assert ours.isnan()
    assert torch.zeros(0, dtype=F64).mean().isnan()


def test_masking_refuses_lengths_it_cannot_read_or_use():
    with pytest.raises(ValueError, match=r"lengths.*meta"):
        length_mask(torch.tensor([2, 1], device="meta"), 3)
    with pytest.raises(ValueError, match=r"lengths.*meta"):
        masked_mean(torch.zeros(3, 2, dtype=F64), torch.tensor([2, 1], device="meta"))


def test_evaluate_answers_as_torch_and_refuses_by_name():
    inputs, targets = torch.randn(4, 3, 2, dtype=F64), torch.randn(4, dtype=F64)
    mse, right = evaluate(lambda x: x[:, -1, 0], inputs, targets)
    error = inputs[:, -1, 0] - targets
    assert mse == error.square().mean().item()
    assert right == (error.abs() < 0.04).double().mean().item()
    empty = evaluate(lambda x: x[:, -1, 0], inputs[:0], targets[:0])
    assert all(math.isnan(v) for v in empty)  # NaN, NaN: torch's mean of nothing
    with pytest.raises(TypeError, match=r"model must return a torch.Tensor, got list"):
        evaluate(lambda x: [0.0] * 4, inputs, targets)
    with pytest.raises(ValueError, match=r"targets.*meta.*inputs.*cpu"):
        evaluate(lambda x: x[:, -1, 0], inputs, targets.to("meta"))
    with pytest.raises(ValueError, match=r"model answers.*meta.*targets.*cpu"):
        evaluate(lambda x: x[:, -1, 0].to("meta"), inputs, targets)


# ---- review: the helpers under the caller's grad mode, torch's mode, low precision, ties ---------


def _in_context(context, function, *tensors):
    """``function(*tensors)`` under ``context``: none, no_grad, inference_mode, or inference tensors."""
    if context == "no_grad":
        with torch.no_grad():
            return function(*tensors)
    if context == "inference_mode":
        with torch.inference_mode():
            return function(*tensors)
    if context == "inference_tensors":
        with torch.inference_mode():
            tensors = tuple(
                {k: v.clone() for k, v in t.items()} if isinstance(t, dict) else t.clone() for t in tensors
            )
        assert all(v.is_inference() for t in tensors for v in (t.values() if isinstance(t, dict) else [t]))
        return function(*tensors)
    raise AssertionError(context)


def _plain_result(result):
    """Every tensor of the result is an ordinary one (not an inference tensor, no grad)."""
    leaves = (
        result.values() if isinstance(result, dict) else result if isinstance(result, tuple) else [result]
    )
    for leaf in leaves:
        if isinstance(leaf, dict):
            _plain_result(leaf)
        elif isinstance(leaf, torch.Tensor):
            assert not leaf.is_inference()
            assert not leaf.requires_grad


CONTEXTS = ["no_grad", "inference_mode", "inference_tensors"]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("helper", ["autograd_state_jacobians", "autograd_state_gradient_norms"])
def test_an_autograd_helper_answers_as_torch_whatever_the_caller_s_grad_mode(helper, cls, context):
    function, reference, _ = HELPERS[helper]
    module = _make(cls, "plain")
    x = _input()
    ours = _in_context(context, lambda x: function(module, x), x)
    _plain_result(ours)
    _close(ours, reference(module, x))  # the reference runs with grad on, outside inference mode


@pytest.mark.parametrize("context", CONTEXTS)
def test_truncated_bptt_answers_as_the_delta_recursion_whatever_the_caller_s_grad_mode(context):
    rnn = _make(nn.RNN, "plain", batch_first=True)
    values = _rnn_values()
    ours = _in_context(context, lambda v: chunked_autograd_gradients(rnn, v, 2), values)
    _plain_result(ours)
    theirs = bptt_gradients(values | _torch_weights(rnn, values), truncation=2).gradients
    for name in ours:
        torch.testing.assert_close(ours[name], theirs[name], **EXACT, msg=name)


@pytest.mark.parametrize("context", CONTEXTS)
def test_the_classifier_answers_as_nn_rnn_and_autograd_whatever_the_caller_s_grad_mode(context):
    values = tensors()
    loss, grads = _in_context(context, loss_and_gradients, values)
    _plain_result((loss, grads))
    torch_loss, torch_grads = _torch_classifier(values)
    _close(loss, torch_loss)
    _close(grads, torch_grads)


@pytest.mark.parametrize("context", ["no_grad", "inference_mode"])
def test_sgd_step_answers_as_torch_optim_whatever_the_caller_s_grad_mode(context):
    expected = sgd_step()
    if context == "no_grad":
        with torch.no_grad():
            step = sgd_step()
    else:
        with torch.inference_mode():
            step = sgd_step()
    _plain_result(step)
    _close(step["by_hand"], step["by_torch"])  # the update by hand is torch.optim.SGD's
    _close(step["by_torch"], expected["by_torch"])
    assert step["loss_after"] == expected["loss_after"]
    assert step["loss_before"] == expected["loss_before"]


def _retuned(mode=None, nonlinearity=None):
    """A tanh-built nn.RNN with ``mode`` or ``nonlinearity`` changed afterwards (torch reads mode)."""
    module = _make(nn.RNN, "plain", batch_first=True)
    if mode is not None:
        module.mode = mode
    if nonlinearity is not None:
        module.nonlinearity = nonlinearity
    return module


def _torch_chunked(rnn, values, truncation):
    """Truncated BPTT through the module itself (torch's call reads ``mode``)."""
    rnn = copy.deepcopy(rnn)
    start = values["h_0"].clone().requires_grad_()
    state = start
    for begin in range(0, values["inputs"].shape[1], truncation):
        chunk = slice(begin, begin + truncation)
        output, state = rnn(values["inputs"][:, chunk], state)
        (0.5 * (output - values["targets"][:, chunk]).square().sum()).backward()
        state = state.detach()
    return {k: p.grad for k, p in rnn.named_parameters()} | {"h_0": start.grad}


@pytest.mark.parametrize(("mode", "nonlinearity"), [(None, "relu"), ("RNN_RELU", None)])
def test_an_rnn_helper_reads_mode_as_torch_does(mode, nonlinearity):
    module = _retuned(mode, nonlinearity)
    x = _input()
    relu = mode == "RNN_RELU"  # what torch computes: mode, not nonlinearity
    tanh_norms = torch_norms(_retuned(), x)
    assert (torch_norms(_retuned("RNN_RELU"), x) - tanh_norms).abs().max() > 0.1  # the two differ
    _close(autograd_state_gradient_norms(module, x), torch_norms(module, x))
    values = _rnn_values()
    _close(chunked_autograd_gradients(module, values, 2), _torch_chunked(module, values, 2))
    if relu:
        for function in (state_jacobians, autograd_state_jacobians):
            with pytest.raises(ValueError, match=r"module must be a tanh RNN, got mode='RNN_RELU'"):
                function(module, x)
    else:
        _close(state_jacobians(module, x), torch_jacobians(module, x))
        _close(autograd_state_jacobians(module, x), torch_jacobians(module, x))


def test_an_rnn_helper_refuses_a_mode_torch_s_rnn_does_not_run():
    module = _retuned("GRU")
    for function, name in ((autograd_state_gradient_norms, "module"), (state_jacobians, "module")):
        with pytest.raises(ValueError, match=rf"{name}.mode must be 'RNN_TANH' or 'RNN_RELU', got 'GRU'"):
            function(module, _input())
    with pytest.raises(ValueError, match=r"rnn.mode must be 'RNN_TANH' or 'RNN_RELU', got 'GRU'"):
        chunked_autograd_gradients(module, _rnn_values(), 2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_the_norms_refuse_a_low_precision_dtype_by_name(dtype):
    with pytest.raises(TypeError, match=rf"weight_hh must be float32 or float64, got {dtype}"):
        state_gradient_norms(torch.eye(H, dtype=dtype), torch.zeros(2, H, dtype=dtype))
    module = _make(nn.GRU, "plain", dtype=dtype)
    with pytest.raises(TypeError, match=rf"input must be float32 or float64, got {dtype}"):
        autograd_state_gradient_norms(module, _input(dtype=dtype))


def test_the_norms_refuse_the_meta_device_by_name():
    with pytest.raises(ValueError, match=r"weight_hh must hold values.*meta"):
        state_gradient_norms(torch.eye(H, device="meta"), torch.zeros(2, H, device="meta"))
    module = _make(nn.GRU, "plain").to("meta")
    with pytest.raises(ValueError, match=r"input must hold values.*meta"):
        autograd_state_gradient_norms(module, _input().to("meta"))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_masked_mean_of_low_precision_losses_accumulates_wider_as_torch_mean(dtype):
    if dtype == torch.float16:  # bfloat16 has float32's range: no overflow to show
        lengths = torch.tensor([2, 1, 3])
        big = torch.full((3, 3), 60000.0, dtype=dtype)
        mask = length_mask(lengths, 3)
        expected = torch.mean(big[mask])  # torch accumulates in float32: finite
        assert expected.isfinite()  # torch accumulates in float32
        assert not big[mask].sum().isfinite()  # a sum in the dtype overflows
        ours = masked_mean(big, lengths)
        assert ours.dtype == dtype
        torch.testing.assert_close(ours, expected, rtol=0, atol=0)
    torch.manual_seed(4)
    losses = torch.rand(6, 4).to(dtype)
    lengths = torch.tensor([6, 1, 4, 3])
    # bitwise torch.mean's answer: both sum in float32 and round once to the dtype
    torch.testing.assert_close(
        masked_mean(losses, lengths), torch.mean(losses[length_mask(lengths, 6)]), rtol=0, atol=0
    )


def test_masked_mean_refuses_meta_losses_by_name():
    for lengths in (torch.tensor([2, 1, 3]), torch.tensor([2, 1, 3], device="meta")):
        with pytest.raises(ValueError, match=r"losses must hold values.*meta"):
            masked_mean(torch.zeros(3, 3, device="meta"), lengths)


@pytest.mark.parametrize("cls", RAISE)
def test_raising_a_gate_bias_tied_across_ih_and_hh_moves_the_sum_by_delta(cls):
    module = _make(cls, "plain")
    module.bias_hh_l0 = module.bias_ih_l0  # one tensor, twice in b_ih + b_hh
    untied = _make(cls, "plain")
    with torch.no_grad():
        untied.bias_hh_l0.copy_(untied.bias_ih_l0)  # the same numbers, two tensors
    before = (module.bias_ih_l0 + module.bias_hh_l0).detach().clone()
    RAISE[cls](module, 1.0)
    RAISE[cls](untied, 1.0)
    expected = before.clone()
    expected[H : 2 * H] += 1.0
    torch.testing.assert_close((module.bias_ih_l0 + module.bias_hh_l0).detach(), expected, **EXACT)
    x = _input()
    _close(module(x)[0].detach(), untied(x)[0].detach())  # what torch computes: the sum raised once


@pytest.mark.parametrize("cls", RAISE)
def test_raising_a_gate_bias_tied_unevenly_is_refused(cls):
    module = _make(cls, "plain", num_layers=2)
    module.bias_hh_l0 = module.bias_ih_l0  # layer 0's sum holds it twice, layer 1's bias_ih once
    name = "lstm" if cls is nn.LSTM else "gru"
    before = module.bias_ih_l0.detach().clone()
    with pytest.raises(ValueError, match=rf"{name}'s biases are tied.*untie them"):
        RAISE[cls](module, 1.0)
    assert torch.equal(module.bias_ih_l0.detach(), before)  # nothing changed
