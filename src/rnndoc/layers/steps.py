r"""The maths of :mod:`rnndoc.layers`: each cell kind's step and its backward, side by side.

Every function is one equation of the book, computed in PyTorch's row form: a batch of N
sequences in the rows (a step's input :math:`x_t` is (N, H_in)), so the chapters' column form
:math:`W h` is ``h @ W.T`` here and :math:`W^\top \delta` is ``delta @ W``; its docstring names the equation's label, and the equation
itself is written once, in its chapter. Below them, ``KINDS``: the one table of cell kinds
(gate count, step, backward, the kind's own weight-gradient term) that both sweeps of
:mod:`rnndoc.layers.sweep` read.

Nothing here checks its arguments: the front doors do, once (:mod:`rnndoc.layers.cells`
for single steps, :func:`rnndoc.layers.forward` and :func:`rnndoc.layers.backward` for
modules). A weight may be packed for oneDNN by the sweep (:mod:`rnndoc.layers.products`);
it multiplies with ``@`` as the tensor does. Three steps add to a product in the same kernel
call, ``linear(h, w, add=x)`` (:math:`x + h W^\top`: :func:`rnn_step`, :func:`lstm_step`) and
``matmul(d, w, add=x)`` (:math:`x + d W`: :func:`gru_step_backward`): one operation fewer per
step than a product followed by an addition, and the rounding the book's numbers were checked
with. The activations run in place (``tanh_``, ``sigmoid_``) on the fresh result of
the product or sum they apply to (the same kernel on the same layout as ``torch.tanh``: the
same bits, one allocation fewer), and ``out``, where the sweep gives it, is where
:math:`h_t` is written (a step of the sweep's preallocated output), so that the sweep needs no
copy of its outputs at the end.

Sources: PyTorch's ``torch.nn.RNN``, ``torch.nn.LSTM`` and ``torch.nn.GRU`` documentation
(the row form, the gate order, :math:`b_{hn}` inside the reset product); Elman (1990);
Hochreiter and Schmidhuber (1997) with the forget gate of Gers et al. (2000); Sak et al.
(2014) for the projection; Cho et al. (2014) for the GRU; the backward steps are BPTT
(Werbos 1990), for the LSTM as in Graves (2012).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import torch

from .products import Weight, linear, matmul, transposed_products

__all__: list[str] = []  # internal, and unchecked: the front doors (cells.py, forward, backward) check

ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}
#: The same, in place (on a fresh tensor: the same bits, no new one).
ACTIVATIONS_IN_PLACE = {"tanh": torch.tanh_, "relu": torch.relu_}


def input_projection(x: torch.Tensor, weight_ih: Weight, bias_ih, bias_hh, mode: str) -> torch.Tensor:
    r"""The part of every gate that does not depend on h, :math:`x W_{ih}^\top + b_{ih} + b_{hh}`, for all steps at once.

    The :math:`x_t` part of :eq:`eq-lstm-rows` and :eq:`eq-gru-rows`; the GRU's :math:`b_{hn}`
    stays out (it sits inside :math:`r_t \odot q_t`). x (..., H_in) -> (..., G*H).
    """
    if mode == "GRU" and bias_hh is not None:  # [b_hr, b_hz, 0]: b_hn is added in gru_step
        bias_hh = bias_hh.clone()  # (3H,)
        bias_hh[2 * (bias_hh.shape[0] // 3) :] = 0
    biases = [b for b in (bias_ih, bias_hh) if b is not None]
    bias = biases[0] + biases[1] if len(biases) == 2 else (biases[0] if biases else None)  # (G*H,)
    flat = x.reshape(-1, x.shape[-1])  # (L*N, H_in)
    part = linear(flat, weight_ih, add=bias)  # (L*N, G*H): x W_ih^T + b, one addmm (autocast casts it whole)
    return part.view(*x.shape[:-1], weight_ih.shape[0])  # (..., G*H)


# --- the Elman RNN: eq-rnn-forward, and its backward eq-h0-grad --------------------------------


def rnn_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    weight_hh: Weight,
    nonlinearity: str,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    r""":math:`h_t = \phi(x_{part} + h_{t-1} W_{hh}^\top)` (:eq:`eq-rnn-forward`, row form). (N, H) -> (N, H)."""
    a = linear(h, weight_hh, add=x_part, out=out)  # (N, H): a_t = x_part + h_(t-1) W_hh^T
    return ACTIVATIONS_IN_PLACE[nonlinearity](a)  # (N, H): h_t = phi(a_t), in place


def rnn_step_backward(
    dh_next: torch.Tensor,
    h_next: torch.Tensor,
    weight_hh: Weight,
    nonlinearity: str,
    out: torch.Tensor | None = None,
):
    r""":math:`\delta_t = \delta h_t \odot \phi'(a_t)` and :math:`\delta_t W_{hh}` (:eq:`eq-h0-grad`; batched, any layer).

    The same step as the hand-set network's δ recursion (:eq:`eq-delta`, computed for the
    book's example by :func:`rnndoc.bptt.bptt_gradients`, in row form too).
    """
    # (N, H): phi'(a_t); ReLU's is 0 where h_t <= 0 and 1 elsewhere, NaN included (as torch's threshold_backward)
    slope = 1 - h_next * h_next if nonlinearity == "tanh" else (h_next <= 0).logical_not().to(h_next.dtype)
    delta = torch.mul(dh_next, slope, out=out)  # (N, H)
    return delta, delta @ weight_hh  # (N, H), (N, H): to h_(t-1) through step t


# --- the LSTM (LSTMP with W_p = weight_hr): eq-lstm-rows, its backward eq-lstm-deltas ------


def lstm_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    weight_hh: Weight,
    weight_hr: Weight | None,
    out: torch.Tensor | None = None,
):
    r"""One LSTM step from the input projection (:eq:`eq-lstm-rows`): :math:`h_t`, :math:`c_t`, and :math:`(i_t, f_t, g_t, o_t, c_{t-1}, \tanh c_t)` for the backward.

    ``x_part`` is step t's row of :func:`input_projection`, :math:`x_t W_{ih}^\top + b_{ih} + b_{hh}` (N, 4H).
    """
    hidden_size = c.shape[1]
    a = linear(h, weight_hh, add=x_part)  # (N, 4H): a_t = x_part + h_(t-1) W_hh^T, blocks i, f, g, o
    g = torch.tanh(a[:, 2 * hidden_size : 3 * hidden_size])  # (N, H), read before the sigmoid overwrites a
    i, f, _, o = torch.sigmoid_(a).chunk(4, dim=1)  # each (N, H)
    c_next = torch.addcmul(f * c, i, g)  # (N, H): c_t = f_t c_(t-1) + i_t g_t
    tanh_c = torch.tanh(c_next)  # (N, H)
    m = torch.mul(o, tanh_c, out=out if weight_hr is None else None)  # (N, H): m_t = o_t tanh(c_t)
    h_next = m if weight_hr is None else linear(m, weight_hr, out=out)  # (N, H_out): h_t = m_t W_p^T
    return h_next, c_next, (i, f, g, o, c, tanh_c)  # saved: c is c_(t-1) here


def lstm_step_backward(dh_next, dc_later, saved, weight_hh: Weight, weight_hr: Weight | None, out=None):
    r"""Step t of :eq:`eq-lstm-deltas` and :eq:`eq-lstm-gate-deltas`: :math:`\delta a_t`, and what goes to step t - 1.

    ``dh_next`` is :math:`\delta h_t`, ``dc_later`` is :math:`\delta c_{t+1} \odot f_{t+1}`, what step t + 1 sends back to :math:`c_t` (the pair
    that arrives at step t in :eq:`eq-lstm-vjp`); returns :math:`\delta a_t` (N, 4H) and what step t
    alone sends back, :math:`\delta a_t W_{hh}` (N, H_out) and :math:`\delta c_t \odot f_t` (N, H):
    :eq:`eq-lstm-vjp`'s right side in rows (:math:`W_{hh}^\top \delta a_t` in the column form). The first line of :eq:`eq-lstm-deltas`,
    :math:`\delta h_t = \partial \mathcal{L}/\partial \text{output}_t + W_{hh}^\top \delta a_{t+1}`, is the sum
    :func:`rnndoc.layers.sweep.run_direction_backward` makes of this step's second return and output
    t - 1's gradient before it calls step t - 1.
    """
    i, f, g, o, c_prev, tanh_c = saved
    delta_m = dh_next if weight_hr is None else dh_next @ weight_hr  # (N, H): delta m_t = delta h_t W_p
    delta_c = dc_later + delta_m * o * (1 - tanh_c * tanh_c)  # (N, H): delta c_t
    hidden = delta_c.shape[1]
    by_g = delta_c * i  # (N, H): dL/dg_t
    # (N, 4H): dL/d(gate value), blocks i, f, g, o
    by_gate = torch.cat([delta_c * g, delta_c * c_prev, by_g, delta_m * tanh_c], dim=1)
    gates = torch.cat([i, f, g, o], dim=1)  # (N, 4H): i_t, f_t, g_t, o_t
    # (N, 4H): [delta i_t, delta f_t, ., delta o_t] = dL/d(gate) s (1 - s), sigma' of the sigmoid gates
    delta_a = torch.mul(by_gate * gates, 1 - gates, out=out)
    delta_a[:, 2 * hidden : 3 * hidden] = by_g * (1 - g * g)  # (N, H): delta g_t = dL/dg_t (1 - g_t^2)
    return delta_a, delta_a @ weight_hh, delta_c * f  # (N, 4H), (N, H_out), (N, H)


def lstm_projection_gradient(saved: list, dh_steps: torch.Tensor, use_onednn: bool) -> torch.Tensor:
    r""":math:`\partial \mathcal{L}/\partial W_p = \sum_t \delta h_t m_t^\top` (the LSTM-backward chapter's LSTMP section), in rows, (P, H)."""
    m = torch.stack([o * tanh_c for _, _, _, o, _, tanh_c in saved])  # (L, N, H): m_t = o_t tanh(c_t)
    return transposed_products(dh_steps.flatten(0, 1), [m.flatten(0, 1)], use_onednn)[0]  # (P, H)


# --- the GRU (PyTorch's candidate): eq-gru-rows, its backward eq-gru-deltas -----------------


def gru_bias_hn(bias_hh: torch.Tensor | None) -> torch.Tensor | None:
    r"""The GRU's :math:`b_{hn}`, the last third of ``bias_hh`` (:eq:`eq-gru-rows`); None without biases."""
    return None if bias_hh is None else bias_hh[2 * (bias_hh.shape[0] // 3) :]  # (H,)


def gru_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    weight_hh: Weight,
    bias_hn: torch.Tensor | None,
    out: torch.Tensor | None = None,
):
    r"""One GRU step from the input projection (:eq:`eq-gru`; :eq:`eq-gru-rows`, computed in rows): :math:`h_t`, and :math:`(h_{t-1}, r_t, z_t, n_t, q_t)` for the backward.

    ``x_part`` is step t's row of :func:`input_projection`, :math:`x_t W_{ih}^\top + b_{ih} + [b_{hr}, b_{hz}, 0]`
    (N, 3H): :math:`b_{hn}` is added here, inside the reset product. One product :math:`h_{t-1} W_{hh}^\top` for the three blocks (two products, each adding its own
    term, measured no faster on the bench and round autograd's Jacobians differently).
    """
    two = 2 * h.shape[1]
    x_rz, x_n = x_part.tensor_split([two], dim=1)  # (N, 2H), (N, H): blocks r, z | n
    hh_rz, hh_n = (h @ weight_hh.T).tensor_split([two], dim=1)  # h_(t-1) W_hh^T, the same blocks
    q = hh_n if bias_hn is None else hh_n + bias_hn  # (N, H): q_t = h_(t-1) W_hn^T + b_hn
    r, z = torch.sigmoid_(x_rz + hh_rz).chunk(2, dim=1)  # (N, H) each
    n = torch.tanh_(torch.addcmul(x_n, r, q))  # (N, H): n_t = tanh(x_n + r_t q_t)
    h_next = torch.addcmul(n, z, h - n, out=out)  # (N, H): h_t = (1 - z_t) n_t + z_t h_(t-1)
    return h_next, (h, r, z, n, q)


def gru_step_backward(
    dh_next: torch.Tensor,
    saved,
    weight_hh: Weight,
    out: torch.Tensor | None = None,
    out_hh: torch.Tensor | None = None,
):
    r"""Step t of :eq:`eq-gru-deltas`: :math:`[\delta r_t, \delta z_t, \delta n_t]`, :math:`\delta q_t`, and the term to :math:`h_{t-1}`.

    ``dh_next`` is :math:`\delta h_t` (the gradient that arrives at step t in :eq:`eq-gru-vjp`); the last
    return is :math:`\delta h_t \odot z_t + W_{hh}^\top [\delta r_t; \delta z_t; \delta q_t]`, in rows
    :math:`\delta h_t \odot z_t + [\delta r_t, \delta z_t, \delta q_t]\, W_{hh}` (N, H).
    ``out`` and ``out_hh``, where given: where to write :math:`[\delta r_t, \delta z_t, \delta n_t]`
    and :math:`[\delta r_t, \delta z_t, \delta q_t]` (the sweep's at step t).
    """
    h, r, z, n, q = saved
    one_minus_z = 1 - z  # (N, H)
    delta_n = dh_next * one_minus_z * (1 - n * n)  # (N, H): delta n_t
    delta_z = dh_next * (h - n) * z * one_minus_z  # (N, H): delta z_t
    delta_r = delta_n * q * r * (1 - r)  # (N, H): delta r_t
    delta = torch.cat([delta_r, delta_z, delta_n], dim=1, out=out)  # (N, 3H): by x_part
    # (N, 3H): [delta r_t, delta z_t, delta q_t], delta q_t = r_t delta n_t (W_hn and b_hn see delta n_t through r_t)
    by_hh = torch.cat([delta_r, delta_z, r * delta_n], dim=1, out=out_hh)
    # (N, H): dh_next z_t + by_hh W_hh, as one addmm (its rounding is the book's)
    dh = matmul(by_hh, weight_hh, add=dh_next * z)
    return delta, by_hh[:, 2 * h.shape[1] :], dh  # (N, 3H), (N, H): delta q_t, (N, H)


def gru_paper_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, bias_hn: torch.Tensor | None
):
    r"""One GRU step with Cho et al.'s candidate, the reset gate on :math:`h_{t-1}` before the product (:eq:`eq-gru-paper`): :math:`h_t`."""
    hidden_size = h.shape[1]
    w_rz, w_n = weight_hh[: 2 * hidden_size], weight_hh[2 * hidden_size :]  # (2H, H), (H, H)
    r, z = torch.sigmoid(torch.addmm(x_part[:, : 2 * hidden_size], h, w_rz.T)).chunk(2, dim=1)  # (N, H)
    n_part = x_part[:, 2 * hidden_size :] + (r * h) @ w_n.T  # (N, H): x_n + (r_t h_(t-1)) W_hn^T
    n = torch.tanh(n_part if bias_hn is None else n_part + bias_hn)  # (N, H): n_t
    return torch.addcmul(n, z, h - n)  # (N, H): h_t = (1 - z_t) n_t + z_t h_(t-1)


# --- the table both sweeps read -------------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """The weights of one layer and direction, by PyTorch's kind names (None where absent)."""

    weight_ih: Any
    weight_hh: Any
    bias_ih: Any = None
    bias_hh: Any = None
    weight_hr: Any = None

    @functools.cached_property
    def bias_hn(self) -> torch.Tensor | None:
        """The GRU's :math:`b_{hn}`, sliced once for a whole sweep."""
        return gru_bias_hn(self.bias_hh)


@dataclass(frozen=True)
class Kind:
    r"""A cell kind as the sweeps see it: its state is a tuple, (h,) or (h, c).

    ``step(x_part_t, state, w, out) -> (state_t, saved_t)``, with ``out`` None or where to write
    :math:`h_t` (the sweep's output at step t; never given under autocast);
    ``backward(d_state, saved_t, w, out, out_hh) -> (delta_t, delta_hh_t, d_state_prev)``:
    ``delta_t`` is the gradient at ``x_part`` (for W_ih and b_ih), ``delta_hh_t`` the gradient at
    :math:`h_{t-1} W_{hh}^\top + b_{hh}` (for W_hh and b_hh; the same tensor as ``delta_t`` but for
    the GRU), each written in ``out`` and ``out_hh`` where given (the sweep's at step t); ``own``: the weights only this kind has,
    each with its gradient ``(saved, dh_steps, use_onednn) -> Tensor``, given every step's :math:`\delta h_t`.
    """

    name: str  # PyTorch's mode: "RNN_TANH", "RNN_RELU", "LSTM", "GRU"
    gates: int  # blocks in weight_ih and weight_hh
    step: Callable[..., Any]
    backward: Callable[..., Any]
    own: dict[str, Callable[..., torch.Tensor]]
    named: Callable[[Any], dict[str, torch.Tensor]] | None = None  # saved_t -> gates by PyTorch's names
    bias_hh_in_step: bool = False  # the step adds b_hh (x_part holds b_ih only): the autocast kinds


def _rnn(name: str, nonlinearity: str) -> Kind:
    def step(x_part, state, w, out=None):
        h = rnn_step(x_part, state[0], w.weight_hh, nonlinearity, out)  # (N, H)
        return (h,), h  # h_t is all its backward reads

    def backward(d_state, h_next, w, out=None, out_hh=None):  # out_hh: delta_hh is delta
        delta, dh = rnn_step_backward(d_state[0], h_next, w.weight_hh, nonlinearity, out)  # (N, H), (N, H)
        return delta, delta, (dh,)

    return Kind(name, 1, step, backward, {})


def _lstm_step(x_part, state, w, out=None):
    h, c, saved = lstm_step(x_part, *state, w.weight_hh, w.weight_hr, out)  # (N, H_out), (N, H)
    return (h, c), saved


def _lstm_backward(d_state, saved, w, out=None, out_hh=None):  # out_hh: delta_hh is delta
    delta_a, dh, dc = lstm_step_backward(
        *d_state, saved, w.weight_hh, w.weight_hr, out
    )  # (N, 4H), (N, H_out), (N, H)
    return delta_a, delta_a, (dh, dc)


def lstm_gates(saved) -> dict[str, torch.Tensor]:
    r"""Step t's gates by PyTorch's names, :math:`i_t, f_t, g_t, o_t`, and :math:`c_t = f_t c_{t-1} + i_t g_t` (:eq:`eq-lstm-rows`), each (N, H).

    Read from what :func:`lstm_step` saved for the backward; :math:`c_t` by the step's own
    ``addcmul``, so it is the :math:`c_t` the step carried, bit for bit.
    """
    i, f, g, o, c_prev, _ = saved
    return {"i": i, "f": f, "g": g, "o": o, "c": torch.addcmul(f * c_prev, i, g)}  # each (N, H); "c" is c_t


def gru_gates(saved) -> dict[str, torch.Tensor]:
    r"""Step t's gates by PyTorch's names, :math:`r_t, z_t, n_t` (:eq:`eq-gru-rows`), each (N, H), from what :func:`gru_step` saved."""
    _, r, z, n, _ = saved
    return {"r": r, "z": z, "n": n}


def _gru_step(x_part, state, w, out=None):
    h, saved = gru_step(x_part, state[0], w.weight_hh, w.bias_hn, out)  # (N, H)
    return (h,), saved


def _gru_backward(d_state, saved, w, out=None, out_hh=None):
    delta, delta_q, dh = gru_step_backward(d_state[0], saved, w.weight_hh, out, out_hh)  # (N, 3H), 2 x (N, H)
    if out_hh is None:  # the sweep's first step, before its buffers exist
        out_hh = torch.cat([delta[:, : 2 * delta_q.shape[1]], delta_q], dim=1)
    return delta, out_hh, (dh,)  # [delta r, delta z, delta q] (N, 3H)


#: The cell kinds by PyTorch's mode: ``"RNN_TANH"`` and ``"RNN_RELU"`` (1 gate block, :func:`rnn_step`
#: and :func:`rnn_step_backward`), ``"LSTM"`` (4 blocks, :func:`lstm_step`, :func:`lstm_step_backward`,
#: and its own ``weight_hr`` by :func:`lstm_projection_gradient`), ``"GRU"`` (3 blocks,
#: :func:`gru_step`, :func:`gru_step_backward`); the gated kinds name their gates by
#: :func:`lstm_gates` and :func:`gru_gates`.
#:
#: :meta hide-value:
KINDS = {
    "RNN_TANH": _rnn("RNN_TANH", "tanh"),
    "RNN_RELU": _rnn("RNN_RELU", "relu"),
    "LSTM": Kind("LSTM", 4, _lstm_step, _lstm_backward, {"weight_hr": lstm_projection_gradient}, lstm_gates),
    "GRU": Kind("GRU", 3, _gru_step, _gru_backward, {}, gru_gates),
}


# --- under torch.autocast: torch's own order of operations and roundings --------------------
#
# In half precision every operation rounds, so the order of the operations shows in the bits.
# torch's CPU steps (ATen's RNN.cpp cells, which autocast casts operation by operation) compute
# x_t W_ih^T + b_ih and h_(t-1) W_hh^T + b_hh as two products, each with its bias inside, then
# add them; the GRU multiplies r_t by the second's n block before adding the first's; no
# addcmul. The kinds below follow that order, so that under autocast the sweep's results are
# torch's bit for bit; outside autocast the steps above run (the rounding the book's numbers
# were checked with). The backward steps are the same: they read the same saved values.


def _recurrent_part(h: torch.Tensor, w: Weights) -> torch.Tensor:
    r""":math:`h_{t-1} W_{hh}^\top + b_{hh}`, one product with the bias inside (torch's ``linear_hh``), (N, G*H)."""
    return linear(h, w.weight_hh, add=w.bias_hh)


def _rnn_autocast_step(nonlinearity: str) -> Callable[..., Any]:
    """:eq:`eq-rnn-forward` in torch's order under autocast (:func:`rnn_step` outside it)."""

    def step(x_part, state, w, out=None):  # out: never given under autocast
        h = ACTIVATIONS[nonlinearity](_recurrent_part(state[0], w) + x_part)  # (N, H)
        return (h,), h

    return step


def _lstm_autocast_step(x_part, state, w, out=None):  # out: never given under autocast
    """:eq:`eq-lstm-rows` in torch's order under autocast (:func:`lstm_step` outside it)."""
    h, c = state  # (N, H_out), (N, H)
    hidden_size = c.shape[1]
    a = _recurrent_part(h, w) + x_part  # (N, 4H): blocks i, f, g, o
    i, f, _, o = torch.sigmoid(a).chunk(4, dim=1)  # each (N, H)
    g = torch.tanh(a[:, 2 * hidden_size : 3 * hidden_size])  # (N, H)
    c_next = f * c + i * g  # (N, H): two products, then their sum
    tanh_c = torch.tanh(c_next)
    m = o * tanh_c  # (N, H)
    h_next = m if w.weight_hr is None else m @ w.weight_hr.T  # (N, H_out)
    return (h_next, c_next), (i, f, g, o, c, tanh_c)


def _lstm_autocast_gates(saved) -> dict[str, torch.Tensor]:
    """:func:`lstm_gates` for :func:`_lstm_autocast_step`: :math:`c_t` by that step's arithmetic, bit for bit."""
    i, f, g, o, c_prev, _ = saved
    return {"i": i, "f": f, "g": g, "o": o, "c": f * c_prev + i * g}


def _gru_autocast_step(x_part, state, w, out=None):  # out: never given under autocast
    """:eq:`eq-gru-rows` in torch's order under autocast (:func:`gru_step` outside it)."""
    h = state[0]  # (N, H)
    hidden_size = h.shape[1]
    hh = _recurrent_part(h, w)  # (N, 3H): blocks r, z, n, b_hh inside
    r, z = torch.sigmoid(hh[:, : 2 * hidden_size] + x_part[:, : 2 * hidden_size]).chunk(2, dim=1)
    q = hh[:, 2 * hidden_size :]  # (N, H): q_t = h_(t-1) W_hn^T + b_hn
    n = torch.tanh(x_part[:, 2 * hidden_size :] + q * r)  # (N, H)
    return ((h - n) * z + n,), (h, r, z, n, q)


#: :data:`KINDS` under ``torch.autocast``: the same kinds and backward steps, each forward step
#: in torch's order of operations (``x_part`` holds :math:`x_t W_{ih}^\top + b_{ih}` only).
#:
#: :meta hide-value:
AUTOCAST_KINDS = {
    "RNN_TANH": replace(KINDS["RNN_TANH"], step=_rnn_autocast_step("tanh"), bias_hh_in_step=True),
    "RNN_RELU": replace(KINDS["RNN_RELU"], step=_rnn_autocast_step("relu"), bias_hh_in_step=True),
    "LSTM": replace(
        KINDS["LSTM"], step=_lstm_autocast_step, named=_lstm_autocast_gates, bias_hh_in_step=True
    ),
    "GRU": replace(KINDS["GRU"], step=_gru_autocast_step, bias_hh_in_step=True),
}
