r"""One layer, one direction: the loop over time, and the loop back for BPTT.

``run_direction`` reads a sequence in one direction with the step of its cell kind
(:func:`~rnndoc.layers.rnn_step`, :func:`~rnndoc.layers.lstm_step` or
:func:`~rnndoc.layers.gru_step`); the input projection of the whole sequence is one matrix
product before the loop, which carries only the recurrent product. With a tape it keeps what
``run_direction_backward`` reads: the input, the state each step starts from, and each
step's saved tensors. ``run_direction_backward`` runs the steps' backward functions
against that order, and ``direction_gradients`` sums the weight gradients after that loop. With ``mask`` (L, N, 1), a sequence's state stops changing after its last
step, its outputs there are zero, and its gradient there is only carried back. The weights
are packed once per loop where oneDNN applies (:mod:`rnndoc.layers.products`). The stack
(:mod:`rnndoc.layers.stack`) runs these over layers and directions.
"""

from __future__ import annotations

from typing import Any

import torch

from .gru import gru_bias_hn, gru_step, gru_step_backward
from .lstm import lstm_step, lstm_step_backward
from .products import matmul, onednn_applies, pack, transposed_products
from .rnn import rnn_step, rnn_step_backward
from .shared import input_projection

__all__: list[str] = []  # the stack's internals: run_layers and run_layers_backward are public


def run_direction(x, h, c, w: dict, mode: str, reverse: bool, mask, tape: list | None):
    """One layer, one direction; returns output (L, N, H_out), h_n (N, H_out), c_n (N, H) or None.

    x (L, N, F); h (N, H_out); c (N, H) or None (LSTM only); ``w``: the weights by kind
    (``weight_ih``, ..., None where absent), checked by the caller; mask (L, N, 1) or None.
    """
    length, batch = x.shape[:2]
    fast = onednn_applies(x, h, c, *w.values())
    w_ih = pack(w["weight_ih"], length * batch, fast)  # products by a weight fixed for the whole loop
    w_hh, w_hr = pack(w["weight_hh"], batch, fast), pack(w["weight_hr"], batch, fast)
    x_part = input_projection(x, w_ih, w["bias_ih"], w["bias_hh"], mode)  # (L, N, G*H)
    bias_hn = gru_bias_hn(w["bias_hh"]) if mode == "GRU" else None
    # filled by time index, in the direction's reading order
    outputs: list[Any] = [None] * length
    h_prev: list[Any] = [None] * length
    saved: list[Any] = [None] * length
    step_saved: Any  # what the step's backward needs: a tuple, or h_t alone for the RNN
    for t in reversed(range(length)) if reverse else range(length):
        if mode == "LSTM":
            h_new, c_new, step_saved = lstm_step(x_part[t], h, c, w_hh, w_hr, check=False)  # (N, H_out)
        elif mode == "GRU":
            h_new, step_saved = gru_step(x_part[t], h, w_hh, bias_hn, check=False)  # (N, H)
        else:
            h_new = step_saved = rnn_step(x_part[t], h, w_hh, mode[4:].lower(), check=False)  # (N, H)
        if tape is not None:  # kept for the backward sweep only: the state step t started from, and more
            h_prev[t], saved[t] = h, step_saved  # (N, H_out), tuple
        if mask is None:
            h, c, outputs[t] = h_new, (c_new if mode == "LSTM" else c), h_new
        else:  # past a sequence's end: keep its state, output zeros
            h = torch.where(mask[t], h_new, h.to(h_new.dtype))  # (N, H_out), in the dtype the step computes
            c = torch.where(mask[t], c_new, c) if mode == "LSTM" else c  # (N, H)
            outputs[t] = h_new * mask[t]  # (N, H_out)
    if tape is not None:
        tape.append({"mode": mode, "x": x, "h_prev": h_prev, "saved": saved})
    return torch.stack(outputs), h, c  # (L, N, H_out), (N, H_out), (N, H) or None


def run_direction_backward(d_out, dh, dc, w: dict, record: dict, mode: str, reverse: bool, mask):
    r"""BPTT through one layer and direction, against its reading order.

    d_out (L, N, H_out): the gradient at its outputs; dh (N, H_out), dc (N, H) or None: at its
    final state; ``record``: what :func:`run_direction` put on the tape. Returns ``delta``
    (L, N, G*H), the gradient at each step's ``x_part``; ``delta_hh`` (L, N, G*H), at
    :math:`h_{t-1} W_{hh}^\top + b_{hh}` (``delta`` itself but for the GRU's n block, :math:`\delta q_t`
    = :math:`r_t \odot \delta n_t`); ``dh_steps`` (L, N, H_out), each :math:`\delta h_t` (with a
    projection only, else None); and :math:`\partial \mathcal{L}/\partial h_0` (N, H_out),
    :math:`\partial \mathcal{L}/\partial c_0` (N, H) or None.
    """
    length, batch = d_out.shape[:2]
    saved, hidden = record["saved"], w["weight_hh"].shape[0] // {"LSTM": 4, "GRU": 3}.get(mode, 1)
    fast = onednn_applies(d_out, dh, dc, *w.values(), record["x"])
    w_hh, w_hr = pack(w["weight_hh"], batch, fast), pack(w["weight_hr"], batch, fast)
    delta: Any = None  # (L, N, G*H), filled by time index; made at the first step, in its dtype
    delta_hh: Any = None  # (L, N, G*H)
    dh_steps: Any = None  # (L, N, H_out)
    for t in range(length) if reverse else reversed(range(length)):  # against the forward order
        dh_t = dh + d_out[t]  # (N, H_out): from the output at t and from the later steps
        if mode == "LSTM":
            delta_t, dh_prev, dc_prev = lstm_step_backward(dh_t, dc, saved[t], w_hh, w_hr, check=False)
        elif mode == "GRU":
            delta_t, delta_hh_n, dh_prev = gru_step_backward(dh_t, saved[t], w_hh, check=False)
        else:
            delta_t, dh_prev = rnn_step_backward(dh_t, saved[t], w_hh, mode[4:].lower(), check=False)
        if delta is None:
            delta = delta_t.new_empty(length, *delta_t.shape)  # (L, N, G*H)
            delta_hh = delta if mode != "GRU" else torch.empty_like(delta)  # (L, N, G*H)
            dh_steps = None if w_hr is None else dh_t.new_empty(length, *dh_t.shape)  # (L, N, H_out)
        if mask is None:
            dh, dc = dh_prev, (dc_prev if mode == "LSTM" else dc)
            delta[t] = delta_t  # (N, G*H)
        else:  # past a sequence's end the state was only carried: its gradient is carried back
            torch.mul(delta_t, mask[t], out=delta[t])  # (N, G*H)
            dh_t = dh_t * mask[t]  # (N, H_out)
            dh = torch.where(mask[t], dh_prev, dh)  # (N, H_out)
            dc = torch.where(mask[t], dc_prev, dc) if mode == "LSTM" else dc  # (N, H)
        if mode == "GRU":  # the r and z blocks as delta's; the n block reaches W_hn and b_hn through r
            delta_hh[t, :, : 2 * hidden] = delta[t, :, : 2 * hidden]  # (N, 2H)
            delta_hh[t, :, 2 * hidden :] = delta_hh_n if mask is None else delta_hh_n * mask[t]  # (N, H)
        if dh_steps is not None:
            dh_steps[t] = dh_t  # (N, H_out)
    return delta, delta_hh, dh_steps, dh, dc


def direction_gradients(delta, delta_hh, dh_steps, w: dict, record: dict):
    r"""The input and weight gradients of one layer and direction, one matrix product each.

    From the deltas :func:`~rnndoc.layers.direction.run_direction_backward` returns, summed
    over time and batch as :func:`rnndoc.layers.stack_backward.run_layers_backward` shows (:eq:`eq-lstm-weights`,
    :eq:`eq-gru-weights`, :eq:`eq-gru-bhn`, :eq:`eq-bi-split`).
    """
    x = record["x"].flatten(0, 1)  # (L*N, F)
    h_prev = torch.stack(record["h_prev"]).flatten(0, 1)  # (L*N, H_out): the state each step started from
    flat, flat_hh = delta.flatten(0, 1), delta_hh.flatten(0, 1)  # (L*N, G*H)
    fast = onednn_applies(delta, *w.values())
    # eq-lstm-weights, eq-gru-weights, eq-gru-bhn: the sums over t (and the batch), delta = delta a_t
    # ([delta r_t, delta z_t, delta n_t] for the GRU), delta_hh = delta a_t but for the GRU's
    # [delta r_t, delta z_t, delta q_t], with delta q_t = r_t * delta n_t:
    #   dL/dW_ih = sum_t delta_t^T x_t,  dL/dW_hh = sum_t delta_hh_t^T h_(t-1),
    #   dL/db_ih = sum_t 1^T delta_t,  dL/db_hh = sum_t 1^T delta_hh_t (b_hn: sum_t 1^T (r_t * delta n_t)),
    #   dL/dW_p = sum_t delta h_t^T m_t;  eq-bi-split, eq-stack-down: dL/dx_t = delta_t W_ih
    if delta_hh is delta:  # one product each, delta^T laid out once for both
        d_w_ih, d_w_hh = transposed_products(flat, [x, h_prev], fast)  # (G*H, F), (G*H, H_out)
    else:  # the GRU: delta_hh's n block is delta's scaled by r
        (d_w_ih,), (d_w_hh,) = (
            transposed_products(flat, [x], fast),
            transposed_products(flat_hh, [h_prev], fast),
        )
    grads = {"weight_ih": d_w_ih, "weight_hh": d_w_hh}
    if w["bias_ih"] is not None:
        grads["bias_ih"] = delta.sum((0, 1))  # (G*H,)
        grads["bias_hh"] = grads["bias_ih"].clone() if delta_hh is delta else delta_hh.sum((0, 1))  # (G*H,)
    if w["weight_hr"] is not None:  # h_t = m_t W_p^T with m_t = o_t * tanh(c_t); W_p is weight_hr
        m = torch.stack([o * tanh_c for _, _, _, o, _, tanh_c in record["saved"]])  # (L, N, H)
        grads["weight_hr"] = transposed_products(dh_steps.flatten(0, 1), [m.flatten(0, 1)], fast)[0]  # (P, H)
    d_x = matmul(flat, pack(w["weight_ih"], flat.shape[0], fast))  # (L*N, F): delta W_ih
    return d_x.view(*delta.shape[:2], w["weight_ih"].shape[1]), grads  # (L, N, F); N may be 0
