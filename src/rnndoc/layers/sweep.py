r"""The sweeps: forward over time, directions and layers, and BPTT back through them.

The simplest layer first, :func:`rnn_tanh_layer`: the input projection of the whole sequence
is one product, then a loop that carries only the recurrent product. :func:`run_layers` is
the same loop for every cell kind (read from :data:`rnndoc.layers.steps.KINDS`), each
direction of each layer, with a mask for variable lengths; with a tape it keeps what
:func:`run_layers_backward` reads, which runs the steps' backward against each direction's
order, top layer first, and sums the weight gradients after the loop
(:func:`weight_gradients`). The weights are packed once per sweep where the products choose
oneDNN (:mod:`rnndoc.layers.products`). Arguments are checked at the front doors
(:func:`rnndoc.layers.forward`, :func:`rnndoc.layers.backward`, :func:`rnn_tanh_layer`),
not here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import torch

from .._autograd import recorded
from . import checks
from .products import onednn_applies, pack, transposed_products
from .steps import AUTOCAST_KINDS, KINDS, Kind, Weights, input_projection, rnn_step

__all__ = ["rnn_tanh_layer"]  # the sweeps themselves are internal: forward and backward check, then call them


def rnn_tanh_layer(
    input: torch.Tensor,
    h_0: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One tanh RNN layer over a batch of sequences, in the row form of PyTorch's docs.

    :math:`h_t = \tanh(x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh})`, the
    recurrence of :eq:`eq-rnn-forward` for a batch of row vectors. The input projection of the
    whole sequence is one matrix product; the loop over time carries only the recurrent one.

    Parameters
    ----------
    input : Tensor, shape (L, N, H_in)
        Time first, as ``nn.RNN`` with ``batch_first=False``.
    h_0 : Tensor, shape (N, H)
        Initial state of each sequence in the batch.
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,), optional
        Omitted for ``bias=False``.

    Returns
    -------
    output : Tensor, shape (L, N, H)
        :math:`h_t` for every step, in ``input``'s dtype.
    h_n : Tensor, shape (N, H)
        The state after the last step.

    Raises
    ------
    TypeError
        If an argument is not a floating tensor or its dtype differs from ``input``'s.
    ValueError
        If a shape disagrees (the message names the argument, the expected and the
        actual shape), ``input`` has no time step, or the tensors are on different devices.

    Notes
    -----
    PyTorch's ``torch.nn.RNN`` documentation; Elman (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import rnn_tanh_layer
    >>> output, h_n = rnn_tanh_layer(torch.ones(3, 1, 2), torch.zeros(1, 2), torch.eye(2), torch.eye(2))
    >>> output.shape, h_n.shape, round(h_n[0, 0].item(), 6)
    (torch.Size([3, 1, 2]), torch.Size([1, 2]), 0.959746)
    """
    checks.check_tanh_layer(input, h_0, weight_ih, weight_hh, bias_ih, bias_hh)
    x_part = input_projection(input, weight_ih, bias_ih, bias_hh, "RNN_TANH")  # (L, N, H)
    h, output = h_0, []
    for x_t in x_part:  # t = 1, ..., T
        h = rnn_step(x_t, h, weight_hh, "tanh")  # (N, H): tanh(x_t W_ih^T + b + h_(t-1) W_hh^T)
        output.append(h)
    return torch.stack(output), h  # (L, N, H), (N, H)


@dataclass
class Tape:
    """What one layer and direction's forward keeps for its backward, by time index."""

    x: torch.Tensor  # (L, N, F): the direction's input
    h_prev: list[torch.Tensor]  # L x (N, H_out): the state each step started from
    saved: list[Any]  # L x what the kind's backward reads
    kind: Kind  # the kind whose step saved it (under autocast, its AUTOCAST_KINDS entry)


def _weights(params: dict, layer: int, direction: int) -> tuple[str, Weights]:
    """The name suffix of one layer and direction (``_l1_reverse``) and its weights."""
    suffix = f"_l{layer}" + ("_reverse" if direction else "")
    return suffix, Weights(**{f.name: params.get(f.name + suffix) for f in fields(Weights)})


def _packed(w: Weights, length: int, batch: int, use_onednn: bool) -> Weights:
    """The weights packed once for the sweep where oneDNN wins (W_ih: one product of all L*N rows; the others: L of N)."""
    return replace(w, weight_ih=pack(w.weight_ih, length * batch, use_onednn),
                   weight_hh=pack(w.weight_hh, batch, use_onednn, uses=length),
                   weight_hr=pack(w.weight_hr, batch, use_onednn, uses=length))  # fmt: skip


def _mask(lengths: torch.Tensor | None, x: torch.Tensor) -> torch.Tensor | None:
    """(L, N, 1): True where step t is within sequence b's length (eq-packed)."""
    if lengths is None:
        return None
    steps = torch.arange(x.shape[0], device=x.device)  # (L,)
    return (steps[:, None] < lengths.to(x.device)[None, :]).unsqueeze(-1)  # (L, N, 1)


def run_direction(x, state: tuple, w: Weights, kind: Kind, reverse: bool, mask, tape: list | None):
    r"""One layer, one direction (:eq:`eq-cell-loop`; with ``mask``, :eq:`eq-packed`); x (L, N, F) -> output (L, N, H_out), final state."""
    length, batch = x.shape[:2]
    fast = onednn_applies(x, *state, *vars(w).values())
    packed = _packed(w, length, batch, fast)
    bias_hh = None if kind.bias_hh_in_step else w.bias_hh  # autocast: b_hh rides in the recurrent product
    x_part = input_projection(x, packed.weight_ih, w.bias_ih, bias_hh, kind.name)  # (L, N, G*H)
    # each h_t written where the output keeps it (no copy at the end) where each step's h_t is its
    # output (no mask), in x_part's dtype (no autocast), and nothing records the steps (out= has no derivative)
    tensors = [t for t in (x_part, *state, *vars(w).values()) if isinstance(t, torch.Tensor)]
    in_place = mask is None and not kind.bias_hh_in_step and not any(recorded(t) for t in tensors)
    output = x_part.new_empty(length, *state[0].shape) if in_place else None  # (L, N, H_out)
    outputs: list[Any] = [None] * length  # by time index, filled in reading order
    h_prev: list[Any] = [None] * length
    saved: list[Any] = [None] * length
    x_steps = x_part.unbind(0)  # L x (N, G*H), one view each
    out_steps = [None] * length if output is None else output.unbind(0)  # L x (N, H_out), views
    step, cast = kind.step, kind.bias_hh_in_step  # read once: the loop's own work is the step
    for t in reversed(range(length)) if reverse else range(length):
        new, step_saved = step(x_steps[t], state, packed, out_steps[t])
        if tape is not None:  # h_(t-1) in the dtype the step computed in (autocast may change it)
            h_prev[t], saved[t] = state[0].to(new[0].dtype) if cast else state[0], step_saved
        if mask is None:
            state, outputs[t] = new, new[0]
        else:  # past a sequence's end (eq-packed): its state stays, its output is zero
            state = tuple(torch.where(mask[t], n, s.to(n.dtype)) for n, s in zip(new, state, strict=True))
            outputs[t] = new[0] * mask[t]  # (N, H_out)
    if tape is not None:
        tape.append(Tape(x, h_prev, saved, kind))
    return torch.stack(outputs) if output is None else output, state  # (L, N, H_out), ((N, H_out)[, (N, H)])


def run_layers(
    input: torch.Tensor,
    h_0: torch.Tensor,
    c_0: torch.Tensor | None,
    params: dict[str, torch.Tensor],
    *,
    mode: str,
    num_layers: int,
    bidirectional: bool,
    lengths: torch.Tensor | None = None,
    tape: list | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    r"""The forward sweep (:eq:`eq-cell-loop`, :eq:`eq-stacked`, :eq:`eq-bidirectional`, :eq:`eq-packed`).

    input (L, N, H_in), h_0 (D*num_layers, N, H_out), c_0 (D*num_layers, N, H) for an LSTM,
    ``params`` by PyTorch's names, ``lengths`` (N,) or None; returns output (L, N, D*H_out),
    h_n and c_n (None but for an LSTM). With ``tape`` (a list), appends one :class:`Tape` per
    layer and direction, in the order of ``h_n``'s rows. Reached through
    :func:`rnndoc.layers.forward`, which checks the arguments.
    """
    kind, directions, mask = _kind(mode, input), 2 if bidirectional else 1, _mask(lengths, input)
    x, h_n, c_n = input, [], []  # x: (L, N, H_in), then each layer's output
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            state = (h_0[index],) if c_0 is None else (h_0[index], c_0[index])  # (N, H_out)[, (N, H)]
            out, state = run_direction(
                x, state, _weights(params, layer, direction)[1], kind, direction == 1, mask, tape
            )
            outputs.append(out)  # (L, N, H_out)
            h_n.append(state[0])
            c_n.extend(state[1:])  # an LSTM's c_t; nothing for the other kinds
        x = torch.cat(outputs, dim=2) if directions == 2 else outputs[0]  # (L, N, D*H_out): eq-bidirectional
    return x, torch.stack(h_n), None if c_0 is None else torch.stack(c_n)  # (lD, N, H_out), (lD, N, H)


def _kind(mode: str, x: torch.Tensor) -> Kind:
    """The cell kind the forward sweep runs: under ``torch.autocast`` for ``x``'s device, torch's order of operations."""
    device = x.device.type
    autocast = torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)
    return (AUTOCAST_KINDS if autocast else KINDS)[mode]


def gate_values(tape: list, mode: str) -> list[dict[str, torch.Tensor]]:
    r"""Every gate at every step, from a tape :func:`run_layers` filled: one dict per layer and direction.

    In the order of ``h_n``'s rows; each dict maps the kind's gate names (``Kind.named``:
    i, f, g, o, c for an LSTM, r, z, n for a GRU) to a time-first (L, N, H), by time index
    (a reverse direction's step t read x_t, as its output does). Reached through
    :func:`rnndoc.layers.gates`, which checks the arguments.
    """
    found = []
    for record in tape:
        named = record.kind.named
        assert named is not None  # the front door admits gated kinds only
        assert record.kind.name == mode
        steps = [named(saved) for saved in record.saved]  # L x {name: (N, H)}
        found.append({name: torch.stack([step[name] for step in steps]) for name in steps[0]})  # (L, N, H)
    return found


def run_direction_backward(d_out, d_state: tuple, w: Weights, kind: Kind, record: Tape, reverse: bool, mask):
    r"""BPTT through one layer and direction, against its reading order (with ``mask``, :eq:`eq-packed-grad`).

    d_out (L, N, H_out) at the outputs, ``d_state`` at the final state; returns ``delta`` and
    ``delta_hh`` (L, N, G*H), every :math:`\delta h_t` (L, N, H_out) where the kind has its own
    weights (else None), and the gradient at the initial state.
    """
    length, batch = d_out.shape[:2]
    fast = onednn_applies(d_out, *d_state, *vars(w).values(), record.x)
    packed = _packed(w, length, batch, fast)
    keep_dh = any(getattr(w, name) is not None for name in kind.own)
    delta: Any = None  # (L, N, G*H), made at the first step, in the dtype it computes
    delta_hh: Any = None
    dh_steps: Any = None  # (L, N, H_out)
    # by time index, one view each (made once: a select per step costs as much as a small op)
    d_out_steps, saved_steps, backward_step = d_out.unbind(0), record.saved, kind.backward
    delta_steps: Any = [None] * length  # delta[t], delta_hh[t] once the buffers exist
    delta_hh_steps: Any = [None] * length
    for t in range(length) if reverse else reversed(range(length)):
        # (N, H_out): delta h_t, from output t and from the later steps (first line of eq-lstm-deltas)
        dh_t = d_state[0] + d_out_steps[t]
        in_place = delta is not None and mask is None  # delta_t written into delta[t] by the step
        delta_t, delta_hh_t, d_prev = backward_step(
            (dh_t, *d_state[1:]), saved_steps[t], packed,
            delta_steps[t] if in_place else None, delta_hh_steps[t] if in_place else None,
        )  # fmt: skip
        if delta is None:
            delta = delta_t.new_empty(length, *delta_t.shape)  # (L, N, G*H)
            delta_hh = delta if delta_hh_t is delta_t else torch.empty_like(delta)
            dh_steps = dh_t.new_empty(length, *dh_t.shape) if keep_dh else None  # (L, N, H_out)
            delta_steps, delta_hh_steps = delta.unbind(0), delta_hh.unbind(0)
        if mask is None:
            d_state = d_prev
            if not in_place:
                delta[t] = delta_t
                if delta_hh is not delta:
                    delta_hh[t] = delta_hh_t
        else:  # past a sequence's end the state was only carried (eq-packed-grad): so is its gradient
            d_state = tuple(torch.where(mask[t], new, old) for new, old in zip(d_prev, d_state, strict=True))
            torch.mul(delta_t, mask[t], out=delta[t])  # (N, G*H)
            if delta_hh is not delta:
                torch.mul(delta_hh_t, mask[t], out=delta_hh[t])
            dh_t = dh_t * mask[t]  # (N, H_out)
        if dh_steps is not None:
            dh_steps[t] = dh_t
    return delta, delta_hh, dh_steps, d_state


def weight_gradients(delta, delta_hh, dh_steps, w: Weights, kind: Kind, record: Tape):
    r"""The sums over time and batch after the loop (:eq:`eq-lstm-weights`, :eq:`eq-gru-weights`, :eq:`eq-gru-bhn`).

    :math:`\sum_t \delta_t^\top x_t` (W_ih), :math:`\sum_t \delta^{hh\,\top}_t h_{t-1}` (W_hh) and the
    kind's own (W_p), one matrix product each; :math:`\sum_t \mathbf{1}^\top \delta_t` and
    :math:`\sum_t \mathbf{1}^\top \delta^{hh}_t` (the biases), one sum each; and the input's
    gradient :math:`\delta_t W_{ih}` (:eq:`eq-stack-down`), (L, N, F), where F is what the
    direction read (H_in at layer 0, D * H_out above). BPTT, Werbos (1990); PyTorch's layouts.
    """
    x = record.x.flatten(0, 1)  # (L*N, F)
    h_prev = torch.stack(record.h_prev).flatten(0, 1)  # (L*N, H_out)
    flat = delta.flatten(0, 1)  # (L*N, G*H)
    fast = onednn_applies(delta, *vars(w).values())
    if delta_hh is delta:  # one layout of delta^T for both products
        d_w_ih, d_w_hh = transposed_products(flat, [x, h_prev], fast)  # (G*H, F), (G*H, H_out)
    else:  # the GRU: W_hn sees delta q_t = r_t delta n_t
        (d_w_ih,) = transposed_products(flat, [x], fast)  # (G*H, F)
        (d_w_hh,) = transposed_products(delta_hh.flatten(0, 1), [h_prev], fast)  # (G*H, H_out)
    grads = {"weight_ih": d_w_ih, "weight_hh": d_w_hh}
    if w.bias_ih is not None or w.bias_hh is not None:  # a cell may hold one bias (bias_ih = None set)
        d_bias_ih = delta.sum((0, 1))  # (G*H,)
        if w.bias_ih is not None:
            grads["bias_ih"] = d_bias_ih
        if w.bias_hh is not None:
            grads["bias_hh"] = d_bias_ih.clone() if delta_hh is delta else delta_hh.sum((0, 1))  # (G*H,)
    for name, gradient in kind.own.items():
        if getattr(w, name) is not None:
            grads[name] = gradient(record.saved, dh_steps, fast)
    d_x = flat @ pack(w.weight_ih, flat.shape[0], fast)  # (L*N, F): delta_t W_ih
    return d_x.view(*delta.shape[:2], w.weight_ih.shape[1]), grads  # (L, N, F); N may be 0


def run_layers_backward(
    tape: list,
    grad_output: torch.Tensor,
    grad_h_n: torch.Tensor,
    grad_c_n: torch.Tensor | None,
    params: dict[str, torch.Tensor],
    *,
    mode: str,
    num_layers: int,
    bidirectional: bool,
    lengths: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, dict[str, torch.Tensor]]:
    r"""The backward sweep (:eq:`eq-bi-split`, :eq:`eq-stack-down`, :eq:`eq-packed-grad`), as :func:`run_layers` ran it.

    ``tape`` as :func:`run_layers` filled it with the same arguments; grad_output
    (L, N, D*H_out), grad_h_n (D*num_layers, N, H_out), grad_c_n (D*num_layers, N, H) for an
    LSTM. Top layer first, each direction gets its half of the output's gradient
    (:eq:`eq-bi-split`) and runs against its own order; the two directions' input gradients
    add up and flow to the layer below (:eq:`eq-stack-down`). Each direction's gradient at its
    initial state is what its first step sends back (packed, the reverse direction's first step is
    each sequence's last), by the kind's own step backward: for a GRU the last line of
    :eq:`eq-gru-deltas`, for an LSTM also :math:`\delta c \odot f` to c_0. Returns the gradients at the
    input (L, N, H_in), h_0, c_0 (or None) and every weight, by PyTorch's names. Reached
    through :func:`rnndoc.layers.backward`, which checks the arguments.
    """
    kind, directions, mask = KINDS[mode], 2 if bidirectional else 1, _mask(lengths, grad_output)
    grad_h_0: list[Any] = [None] * len(tape)  # by layer and direction
    grad_c_0: list[Any] = [None] * len(tape)
    grads: dict[str, torch.Tensor] = {}
    d_layer: Any = grad_output  # (L, N, D*H_out), then each layer's input gradient
    for layer in reversed(range(num_layers)):
        d_below = None
        for direction, d_out in enumerate(
            d_layer.chunk(directions, dim=2)
        ):  # each (L, N, H_out): eq-bi-split
            suffix, w = _weights(params, layer, direction)
            index = layer * directions + direction
            d_state = (grad_h_n[index],) if grad_c_n is None else (grad_h_n[index], grad_c_n[index])
            delta, delta_hh, dh_steps, d_state = run_direction_backward(
                d_out, d_state, w, kind, tape[index], direction == 1, mask
            )  # (L, N, G*H), (L, N, G*H), (L, N, H_out) or None, ((N, H_out)[, (N, H)])
            grad_h_0[index] = d_state[0]
            grad_c_0[index] = d_state[1] if len(d_state) > 1 else None  # an LSTM's c_0
            dx, found = weight_gradients(delta, delta_hh, dh_steps, w, kind, tape[index])  # (L, N, F)
            d_below = dx if d_below is None else d_below + dx  # (L, N, F): eq-stack-down
            grads |= {name + suffix: g for name, g in found.items()}
        d_layer = d_below
    c_0_grad = None if grad_c_n is None else torch.stack(grad_c_0)  # (lD, N, H)
    return d_layer, torch.stack(grad_h_0), c_0_grad, grads  # (L, N, H_in), (lD, N, H_out)
