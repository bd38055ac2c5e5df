r"""A stack of recurrent layers, each read forwards and (bidirectional) backwards, and its BPTT.

Layer k reads the previous layer's output, the concatenation of its two directions
(width :math:`D \cdot H_{out}`); layer 0 reads the input. Each direction's input projection
is one matrix product over the whole sequence; the loop over time carries only the
recurrent product. With ``lengths`` (variable-length sequences), a sequence's state stops
changing after its last step and its outputs there are zero, so the reverse direction of
each sequence starts at its own end. The backward sweep runs the same loops the other way
(top layer first, each direction against its time order); the weight gradients are summed
over time after the loop, one matrix product each.
"""

from __future__ import annotations

from typing import Any

import torch

from .._validate import check_lengths
from .direction import run_direction, run_direction_backward
from .products import matmul, onednn_applies, pack, transposed_products
from .stack_arguments import check_stack_arguments, check_tape, check_weights

__all__ = ["run_layers", "run_layers_backward"]

_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


def _weights(params: dict, layer: int, direction: int) -> tuple[str, dict]:
    """The name suffix of one layer and direction (``_l1_reverse``) and its weights by kind."""
    suffix = f"_l{layer}" + ("_reverse" if direction else "")
    return suffix, {kind: params.get(kind + suffix) for kind in _KINDS}


def _mask(lengths: torch.Tensor | None, x: torch.Tensor) -> torch.Tensor | None:
    if lengths is None:
        return None
    check_lengths("lengths", lengths, x.shape[1], x.shape[0])  # (N,), each in [1, L]
    steps = torch.arange(x.shape[0], device=x.device)  # (L,)
    return (steps[:, None] < lengths.to(x.device)[None, :]).unsqueeze(-1)  # (L, N, 1)


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
    r"""Run ``num_layers`` recurrent layers over time-first input, as ``nn.RNN/LSTM/GRU`` do.

    Parameters
    ----------
    input : Tensor, shape (L, N, H_in)
    h_0 : Tensor, shape (num_layers * D, N, H_out)
        Ordered [layer 0 forward, layer 0 reverse, layer 1 forward, ...].
    c_0 : Tensor, shape (num_layers * D, N, H), or None
        LSTM only.
    params : dict of str to Tensor
        PyTorch's names: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
        ``bias_hh_l{k}``, ``weight_hr_l{k}`` (LSTM with ``proj_size``), each with the suffix
        ``_reverse`` for the reverse direction; biases may be absent (``bias=False``).
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
    num_layers : int
    bidirectional : bool
    lengths : Tensor of int, shape (N,), optional
        Each sequence's length (at most L); default: all L.
    tape : list, optional
        If given, each layer and direction appends what :func:`run_layers_backward` reads:
        its input, the state each step starts from, and each step's saved tensors.

    Returns
    -------
    output : Tensor, shape (L, N, D * H_out)
        The last layer's states, both directions concatenated (forward first).
    h_n : Tensor, shape (num_layers * D, N, H_out)
    c_n : Tensor, shape (num_layers * D, N, H), or None

    Notes
    -----
    The layout of ``h_0``/``h_n`` and of the weights follows PyTorch's ``torch.nn.RNN``,
    ``torch.nn.LSTM`` and ``torch.nn.GRU`` documentation; bidirectional RNNs are Schuster
    and Paliwal (1997). Shapes, flags and weight names are checked; :func:`rnndoc.layers.forward`
    checks more (dtypes, devices, the caller's layouts).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.stack import run_layers
    >>> gru = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    >>> out, h_n, _ = run_layers(torch.zeros(5, 2, 3), torch.zeros(4, 2, 4), None, dict(gru.named_parameters()),
    ...                          mode="GRU", num_layers=2, bidirectional=True)
    >>> out.shape, h_n.shape  # (L, N, D * H_out), (D * num_layers, N, H_out)
    (torch.Size([5, 2, 8]), torch.Size([4, 2, 4]))
    """
    check_stack_arguments(input, h_0, c_0, params, mode, num_layers, bidirectional, lengths)
    if tape is not None and not isinstance(tape, list):
        raise TypeError(f"tape must be a list (run_layers fills it) or None, got {type(tape).__name__}")
    directions, mask = 2 if bidirectional else 1, _mask(lengths, input)
    x, h_n, c_n = input, [], []  # x: (L, N, H_in)
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            _, weights = _weights(params, layer, direction)
            index = layer * directions + direction
            c = None if c_0 is None else c_0[index]  # (N, H)
            out, h, c = run_direction(x, h_0[index], c, weights, mode, direction == 1, mask, tape)
            outputs.append(out)  # (L, N, H_out)
            h_n.append(h)
            c_n.append(c)
        x = torch.cat(outputs, dim=2) if directions == 2 else outputs[0]  # (L, N, D*H_out)
    return x, torch.stack(h_n), None if c_0 is None else torch.stack(c_n)  # (L, N, D*H_out), (lD, N, H_out)


def _gradients(delta, delta_hh, dh_steps, w: dict, record: dict):
    r"""The input and weight gradients of one layer and direction, one matrix product each.

    From the deltas :func:`~rnndoc.layers.direction.run_direction_backward` returns, summed
    over time and batch: :math:`\partial L/\partial W_{ih} = \sum_t \delta_t^\top x_t`,
    :math:`\partial L/\partial W_{hh} = \sum_t \delta_{hh,t}^\top h_{t-1}`, the biases'
    :math:`\sum_t \delta_t` (:math:`\delta_{hh}` for :math:`b_{hh}`),
    :math:`\partial L/\partial W_{hr} = \sum_t (\partial L/\partial h'_t)^\top m_t`; and
    :math:`\partial L/\partial x_t = \delta_t W_{ih}`.
    """
    x = record["x"].flatten(0, 1)  # (L*N, F)
    h_prev = torch.stack(record["h_prev"]).flatten(0, 1)  # (L*N, H_out): the state each step started from
    flat, flat_hh = delta.flatten(0, 1), delta_hh.flatten(0, 1)  # (L*N, G*H)
    fast = onednn_applies(delta, *w.values())
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
    if w["weight_hr"] is not None:  # h' = m W_hr^T with m = o * tanh(c')
        m = torch.stack([o * tanh_c for _, _, _, o, _, tanh_c in record["saved"]])  # (L, N, H)
        grads["weight_hr"] = transposed_products(dh_steps.flatten(0, 1), [m.flatten(0, 1)], fast)[0]  # (P, H)
    d_x = matmul(flat, pack(w["weight_ih"], flat.shape[0], fast))  # (L*N, F): delta W_ih
    return d_x.view(*delta.shape[:2], w["weight_ih"].shape[1]), grads  # (L, N, F); N may be 0


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
    r"""BPTT through the stack :func:`run_layers` ran: the gradients of its inputs and weights.

    The gradient of a layer's output splits into its two directions (forward first); each
    direction runs its steps' backward functions against its own time order, starting from
    :math:`\partial L/\partial h_n` (and :math:`\partial L/\partial c_n`); the two directions'
    input gradients add up and flow down to the layer below.

    Parameters
    ----------
    tape : list
        As :func:`run_layers` filled it (same arguments).
    grad_output : Tensor, shape (L, N, D * H_out)
        :math:`\partial L/\partial\,\text{output}`; zero past each sequence's end.
    grad_h_n : Tensor, shape (num_layers * D, N, H_out)
    grad_c_n : Tensor, shape (num_layers * D, N, H), or None
        LSTM only.
    params, mode, num_layers, bidirectional, lengths
        As given to :func:`run_layers`.

    Returns
    -------
    grad_input : Tensor, shape (L, N, H_in)
    grad_h_0 : Tensor, shape (num_layers * D, N, H_out)
    grad_c_0 : Tensor, shape (num_layers * D, N, H), or None
    grads : dict of str to Tensor
        One entry per name in ``params``, with its shape.

    Notes
    -----
    Shapes are checked; :func:`rnndoc.layers.backward` checks more. BPTT as in Werbos (1990);
    the layouts are PyTorch's.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.stack import run_layers, run_layers_backward
    >>> params, tape = {k: v.detach() for k, v in torch.nn.RNN(3, 4).named_parameters()}, []
    >>> flags = {"mode": "RNN_TANH", "num_layers": 1, "bidirectional": False}
    >>> out, h_n, _ = run_layers(torch.randn(5, 2, 3), torch.zeros(1, 2, 4), None, params, tape=tape, **flags)
    >>> dx, dh_0, _, grads = run_layers_backward(tape, torch.ones_like(out), torch.zeros_like(h_n), None,
    ...                                          params, **flags)
    >>> dx.shape, dh_0.shape, grads["weight_hh_l0"].shape  # (L, N, H_in), (D * num_layers, N, H_out)
    (torch.Size([5, 2, 3]), torch.Size([1, 2, 4]), torch.Size([4, 4]))
    """
    check_tape(tape, grad_output, grad_h_n, grad_c_n, mode, num_layers, bidirectional)
    state = {"tape[0]['x'] (the input)": (tape[0]["x"], "L,N,H_in"), "grad_h_n": (grad_h_n, "S,N,H_out"),
             "grad_c_n": (grad_c_n, "S,N,H")}  # fmt: skip
    check_weights(params, mode, num_layers, bidirectional, **state)
    directions, mask = 2 if bidirectional else 1, _mask(lengths, grad_output)
    grad_h_0: list[Any] = [None] * len(tape)  # filled by layer and direction
    grad_c_0: list[Any] = [None] * len(tape)
    grads: dict[str, torch.Tensor] = {}
    d_layer: Any = grad_output  # (L, N, D*H_out), then each layer's input gradient
    for layer in reversed(range(num_layers)):
        d_below = None
        for direction, d_out in enumerate(d_layer.chunk(directions, dim=2)):  # each (L, N, H_out)
            suffix, weights = _weights(params, layer, direction)
            index = layer * directions + direction
            dc_n = None if grad_c_n is None else grad_c_n[index]  # (N, H)
            delta, delta_hh, dh_steps, grad_h_0[index], grad_c_0[index] = run_direction_backward(
                d_out, grad_h_n[index], dc_n, weights, tape[index], mode, direction == 1, mask
            )  # (L, N, G*H), (L, N, G*H), (L, N, H_out) or None, (N, H_out), (N, H) or None
            dx, found = _gradients(delta, delta_hh, dh_steps, weights, tape[index])  # (L, N, F)
            d_below = dx if d_below is None else d_below + dx  # (L, N, F)
            grads |= {kind + suffix: g for kind, g in found.items()}
        d_layer = d_below
    c_0_grad = None if grad_c_n is None else torch.stack(grad_c_0)  # (lD, N, H)
    return d_layer, torch.stack(grad_h_0), c_0_grad, grads  # (L, N, H_in), (lD, N, H_out)
