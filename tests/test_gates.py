"""gates(module, input, hx): every gate at every step, against a hand computation from the module's weights."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from layer_configs import build, configurations
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from rnndoc.layers import forward, gates
from rnndoc.verdict import FLOAT64_ATOL, assert_close

F64 = torch.float64


def _hand_layer_direction(module, suffix, x, h, c):
    """One direction of one layer over one sequence x (T, F), its gates written out from the weights."""
    w = {
        name: getattr(module, name + suffix, None)
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    }
    size = module.hidden_size
    found: dict[str, list] = {}
    outputs = []
    for x_t in x:  # (F,)
        a_x = w["weight_ih"] @ x_t + (0 if w["bias_ih"] is None else w["bias_ih"])  # (G*H,)
        a_h = w["weight_hh"] @ h + (0 if w["bias_hh"] is None else w["bias_hh"])  # (G*H,)
        if isinstance(module, nn.LSTM):
            a = a_x + a_h
            i = torch.sigmoid(a[:size])
            f = torch.sigmoid(a[size : 2 * size])
            g = torch.tanh(a[2 * size : 3 * size])
            o = torch.sigmoid(a[3 * size :])
            c = f * c + i * g
            h = o * torch.tanh(c)
            if module.proj_size:
                h = getattr(module, "weight_hr" + suffix) @ h
            step = {"i": i, "f": f, "g": g, "o": o, "c": c}
        else:  # GRU
            r = torch.sigmoid(a_x[:size] + a_h[:size])
            z = torch.sigmoid(a_x[size : 2 * size] + a_h[size : 2 * size])
            n = torch.tanh(a_x[2 * size :] + r * a_h[2 * size :])
            h = (1 - z) * n + z * h
            step = {"r": r, "z": z, "n": n}
        for name, value in step.items():
            found.setdefault(name, []).append(value)
        outputs.append(h)
    return {name: torch.stack(v) for name, v in found.items()}, torch.stack(outputs)


def hand_gates(module, x, h_0, c_0):
    """Every gate of one sequence x (T, H_in) from initial states (S, H_out), (S, H): by key, (T, H)."""
    directions = 2 if module.bidirectional else 1
    out = {}
    for layer in range(module.num_layers):
        outputs = []
        for direction in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            index = layer * directions + direction
            seq = x.flip(0) if direction else x
            found, h = _hand_layer_direction(
                module, suffix, seq, h_0[index], None if c_0 is None else c_0[index]
            )
            if direction:  # by time index, as the output is
                found, h = {k: v.flip(0) for k, v in found.items()}, h.flip(0)
            out |= {name + suffix: value for name, value in found.items()}
            outputs.append(h)
        x = torch.cat(outputs, dim=1)  # (T, D*H_out)
    return out, x


def _time_first(value, config):
    """A gate laid out as the caller's output, back to (L, N, H), with the lengths of each sequence."""
    if isinstance(value, PackedSequence):
        return pad_packed_sequence(value)[0]
    if config["form"] == "unbatched":
        return value[:, None]
    return value.transpose(0, 1) if config["batch_first"] else value


@settings(max_examples=150)
@given(configurations().filter(lambda c: c["kind"] in ("LSTM", "LSTM_PROJ", "GRU")))
def test_gates_match_a_hand_computation(config):
    module, x, hx = build(config)
    with torch.no_grad():
        found = gates(module, x, hx)
        if isinstance(x, PackedSequence):
            padded, lengths = pad_packed_sequence(x)  # (L, N, H_in)
        elif config["form"] == "unbatched":
            padded, lengths = x[:, None], torch.tensor([x.shape[0]])
        else:
            padded = x.transpose(0, 1) if config["batch_first"] else x
            lengths = torch.full((padded.shape[1],), padded.shape[0])
        d = 2 if module.bidirectional else 1
        h_out = module.proj_size or module.hidden_size
        state = (d * module.num_layers, padded.shape[1])
        h_0, c_0 = (torch.zeros(*state, h_out, dtype=F64), torch.zeros(*state, module.hidden_size, dtype=F64))
        if hx is not None:
            h_0, c_0 = hx if isinstance(module, nn.LSTM) else (hx, c_0)
            if config["form"] == "unbatched":
                h_0, c_0 = h_0[:, None], c_0[:, None]
        gate_names = "ifgoc" if isinstance(module, nn.LSTM) else "rzn"
        suffixes = [f"_l{n}{s}" for n in range(module.num_layers) for s in ("", "_reverse")[:d]]
        assert set(found) == {g + s for g in gate_names for s in suffixes}
        expected_output = module(x, hx)[0]
        expected_output = _time_first(expected_output, config)
        for b, length in enumerate(lengths.tolist()):
            hand, hand_output = hand_gates(
                module, padded[:length, b], h_0[:, b], None if not isinstance(module, nn.LSTM) else c_0[:, b]
            )
            assert_close(
                hand_output, expected_output[:length, b], atol=FLOAT64_ATOL
            )  # the hand witness is right
            for key, value in found.items():
                ours = _time_first(value, config)
                assert ours.shape[2] == module.hidden_size
                torch.testing.assert_close(ours[:length, b], hand[key], rtol=0, atol=FLOAT64_ATOL)


@settings(max_examples=60)
@given(configurations().filter(lambda c: c["kind"] in ("LSTM", "GRU") and c["form"] == "batched"))
def test_gates_are_the_forward_bit_for_bit(config):
    """What gates reads is what forward carried: o tanh(c) is the output, the last c is c_n, exactly."""
    module, x, hx = build(config)
    with torch.no_grad():
        found = gates(module, x, hx)
        output, state = forward(module, x, hx)
        directions = 2 if module.bidirectional else 1
        top = module.num_layers - 1
        for direction, suffix in enumerate(("", "_reverse")[:directions]):
            key = f"_l{top}{suffix}"
            if isinstance(module, nn.LSTM):
                h = found["o" + key] * torch.tanh(found["c" + key])  # laid out as output
                size = module.hidden_size
                assert torch.equal(h, output[..., direction * size : (direction + 1) * size])
                last = found["c" + key].select(1 if config["batch_first"] else 0, 0 if direction else -1)
                assert torch.equal(last, state[1][top * directions + direction])
            for gate in found:
                assert found[gate].shape == output[..., : module.hidden_size].shape


@given(st.sampled_from([nn.LSTMCell, nn.GRUCell]), st.sampled_from([None, 3]), st.booleans())
def test_cell_gates(cls, batch, bias):
    cell = cls(2, 3, bias=bias, dtype=F64)
    x = torch.randn(*(() if batch is None else (batch,)), 2, dtype=F64)
    with torch.no_grad():
        found = gates(cell, x)
        expected = forward(cell, x)  # bitwise: the same sweep
        assert_close(
            expected[0] if cls is nn.LSTMCell else expected,
            cell(x)[0] if cls is nn.LSTMCell else cell(x),
            atol=FLOAT64_ATOL,
        )
    assert sorted(found) == sorted("ifgoc" if cls is nn.LSTMCell else "rzn")
    assert all(v.shape == (*x.shape[:-1], 3) for v in found.values())
    if cls is nn.LSTMCell:
        assert torch.equal(found["o"] * torch.tanh(found["c"]), expected[0])
        assert torch.equal(found["c"], expected[1])


@pytest.mark.parametrize("module", [nn.RNN(2, 3), nn.RNNCell(2, 3), nn.Linear(2, 3), "lstm"])
def test_gates_refuse_modules_without_gates(module):
    with pytest.raises(TypeError, match="LSTM, GRU, LSTMCell or GRUCell"):
        gates(module, torch.zeros(4, 2))


def test_gates_refuse_what_forward_refuses():
    lstm = nn.LSTM(2, 3, dtype=F64)
    with pytest.raises(ValueError, match="H_in"):
        gates(lstm, torch.zeros(4, 1, 5, dtype=F64))
    with pytest.raises(TypeError):
        gates(lstm, torch.zeros(4, 1, 2, dtype=F64), torch.zeros(1, 1, 3, dtype=F64))  # not a pair
