"""The configuration space of PyTorch's recurrent layers, for the forward and backward tests."""

from __future__ import annotations

import pytest
import torch
from hypothesis import strategies as st
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence

from rnndoc.verdict import FLOAT64_ATOL, assert_close

#: torch's own error where its fused oneDNN LSTM has no bfloat16 kernel for the inputs on this
#: CPU (under CPU autocast, on an AMD EPYC; an Intel Xeon with AVX-512 runs the same calls).
ONEDNN_NO_PRIMITIVE = "could not create a primitive descriptor for the LSTM forward propagation primitive"


def torch_or_skip(call):
    """``call()``, torch's side of a comparison; a skip, naming the error, where torch itself
    cannot run it on this machine (ONEDNN_NO_PRIMITIVE): there is nothing to compare against."""
    try:
        return call()
    except RuntimeError as error:
        if ONEDNN_NO_PRIMITIVE not in str(error):
            raise
        pytest.skip(f"torch's own oneDNN LSTM cannot run this on this CPU: {str(error)[:120]}")


KINDS = ["RNN_TANH", "RNN_RELU", "LSTM", "LSTM_PROJ", "GRU"]
INPUT_FORMS = ["batched", "unbatched", "packed_sorted", "packed_unsorted"]


@st.composite
def configurations(draw):
    kind = draw(st.sampled_from(KINDS))
    hidden_size = draw(st.integers(2 if kind == "LSTM_PROJ" else 1, 6))
    config = {
        "kind": kind,
        "input_size": draw(st.integers(1, 6)),
        "hidden_size": hidden_size,
        "num_layers": draw(st.integers(1, 3)),
        "bidirectional": draw(st.booleans()),
        "bias": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
        "proj_size": draw(st.integers(1, hidden_size - 1)) if kind == "LSTM_PROJ" else 0,
        "dropout": draw(st.sampled_from([0.0, 0.5])),  # modules are in eval mode: no dropout
        "form": draw(st.sampled_from(INPUT_FORMS)),
        "batch": draw(st.integers(1, 4)),
        "length": draw(st.integers(1, 6)),
        "give_hx": draw(st.booleans()),
        "seed": draw(st.integers(0, 2**31 - 1)),
    }
    if config["num_layers"] == 1:
        config["dropout"] = 0.0  # torch warns about dropout on a single layer
    config["lengths"] = draw(
        st.lists(st.integers(1, config["length"]), min_size=config["batch"], max_size=config["batch"])
    )
    if config["form"] == "packed_sorted":
        config["lengths"] = sorted(config["lengths"], reverse=True)
    return config


def build(config):
    """The module (its own initial weights), the input and hx the configuration describes."""
    torch.manual_seed(config["seed"])
    kind = config["kind"]
    common = {k: config[k] for k in ("input_size", "hidden_size", "num_layers", "bidirectional", "bias")}
    common |= {"batch_first": config["batch_first"], "dropout": config["dropout"], "dtype": torch.float64}
    if kind.startswith("RNN"):
        module = nn.RNN(nonlinearity=kind[4:].lower(), **common)
    elif kind.startswith("LSTM"):
        module = nn.LSTM(proj_size=config["proj_size"], **common)
    else:
        module = nn.GRU(**common)
    module.eval()
    n, length = config["batch"], config["length"]
    d = 2 if config["bidirectional"] else 1
    h_out = config["proj_size"] or config["hidden_size"]
    form = config["form"]
    if form == "unbatched":
        x = torch.randn(length, config["input_size"], dtype=torch.float64)  # (L, H_in)
        state_shape = (d * config["num_layers"],)
    else:
        x = torch.randn(length, n, config["input_size"], dtype=torch.float64)  # (L, N, H_in)
        state_shape = (d * config["num_layers"], n)
        if form.startswith("packed"):
            lengths = torch.tensor(config["lengths"])
            x = pack_padded_sequence(x, lengths, enforce_sorted=form == "packed_sorted")
        elif config["batch_first"]:
            x = x.transpose(0, 1).contiguous()  # (N, L, H_in)
    hx = None
    if config["give_hx"]:
        h_0 = torch.randn(*state_shape, h_out, dtype=torch.float64)
        hx = (
            (h_0, torch.randn(*state_shape, config["hidden_size"], dtype=torch.float64))
            if "LSTM" in kind
            else h_0
        )
    return module, x, hx


def compare(ours, theirs, atol=FLOAT64_ATOL):
    if isinstance(theirs, PackedSequence):
        assert isinstance(ours, PackedSequence)
        assert torch.equal(ours.batch_sizes, theirs.batch_sizes)
        for name in ("sorted_indices", "unsorted_indices"):
            a, b = getattr(ours, name), getattr(theirs, name)
            assert (a is None and b is None) or torch.equal(a, b), name
        compare(ours.data, theirs.data, atol)
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            compare(a, b, atol)
    else:
        assert ours.shape == theirs.shape
        assert ours.dtype == theirs.dtype
        assert_close(ours, theirs.detach(), atol=atol)


@st.composite
def cells(draw):
    """A float64 RNNCell/LSTMCell/GRUCell with its own initial weights, an input and hx (or None)."""
    kind = draw(st.sampled_from(["RNN_TANH", "RNN_RELU", "LSTM", "GRU"]))
    input_size, hidden_size, bias = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.booleans())
    batch, give_hx = draw(st.sampled_from([None, 1, 3])), draw(st.booleans())
    torch.manual_seed(draw(st.integers(0, 2**31 - 1)))
    kw = {"bias": bias, "dtype": torch.float64}
    if kind.startswith("RNN"):
        cell = nn.RNNCell(input_size, hidden_size, nonlinearity=kind[4:].lower(), **kw)
    else:
        cell = (nn.LSTMCell if kind == "LSTM" else nn.GRUCell)(input_size, hidden_size, **kw)
    shape = () if batch is None else (batch,)
    x = torch.randn(*shape, input_size, dtype=torch.float64)  # (N, H_in) or (H_in,)
    h = torch.randn(*shape, hidden_size, dtype=torch.float64)  # (N, H) or (H,)
    hx = ((h, torch.randn_like(h)) if kind == "LSTM" else h) if give_hx else None
    return cell, x, hx
