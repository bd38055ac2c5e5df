r"""BPTT through a stack of recurrent layers, as :func:`rnndoc.layers.stack.run_layers` ran it.

The backward sweep runs the forward sweep's loops the other way: top layer first, each
direction against its own time order; the weight gradients are summed over time after the
loop, one matrix product each (``direction.direction_gradients``).
"""

from __future__ import annotations

from typing import Any

import torch

from .direction import direction_gradients, run_direction_backward
from .stack import _mask, _weights
from .stack_arguments import check_tape, check_weights

__all__ = ["run_layers_backward"]


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
    r"""BPTT through the stack :func:`~rnndoc.layers.stack.run_layers` ran: the gradients of its inputs and weights.

    The gradient of a layer's output splits into its two directions (forward first, :eq:`eq-bi-split`);
    each direction runs its steps' backward functions (:func:`rnndoc.layers.rnn_step_backward`,
    :func:`~rnndoc.layers.lstm_step_backward`, :func:`~rnndoc.layers.gru_step_backward`) against
    its own time order, starting from :math:`\partial \mathcal{L}/\partial h_n` (and
    :math:`\partial \mathcal{L}/\partial c_n`); the two directions' input gradients add up and flow
    down to the layer below (:eq:`eq-stack-down`). With :math:`\delta X = \partial \mathcal{L}/\partial X`
    and :math:`\delta a_t` the derivative by the pre-activations (:math:`\delta_t` for the RNN):

    .. math::

        \begin{aligned}
        \overrightarrow{\delta h}_t &= \delta\mathrm{output}_t[:, :H_{out}] + (\text{from step } t + 1), \\
        \overleftarrow{\delta h}_t &= \delta\mathrm{output}_t[:, H_{out}:] + (\text{from step } t - 1), \\
        \delta\mathrm{output}^{(l)}_t &= \frac{\partial \mathcal{L}}{\partial x^{(l+1)}_t}
          = \overrightarrow{\delta a}^{(l+1)}_t\, \overrightarrow{W}^{(l+1)}_{ih}
          + \overleftarrow{\delta a}^{(l+1)}_t\, \overleftarrow{W}^{(l+1)}_{ih}
        \end{aligned}

    and :math:`\partial \mathcal{L}/\partial x_t` likewise from layer 0. Each weight is used at
    every step, so its gradient is summed over time (and the batch), one matrix product after
    the loop, for each layer and direction (:eq:`eq-lstm-weights`; the RNN's read the same with
    :math:`\delta_t`):

    .. math::

        \begin{aligned}
        \frac{\partial \mathcal{L}}{\partial W_{ih}} &= \sum_t \delta a_t^\top x_t, \qquad
        \frac{\partial \mathcal{L}}{\partial W_{hh}} = \sum_t \delta a_t^\top h_{t-1}, \\
        \frac{\partial \mathcal{L}}{\partial b_{ih}} &= \sum_t \mathbf{1}^\top \delta a_t
          = \frac{\partial \mathcal{L}}{\partial b_{hh}}, \\
        \frac{\partial \mathcal{L}}{\partial W_{p}} &= \sum_t \delta h_t^\top m_t
          \quad (\text{LSTM with the projection } W_p)
        \end{aligned}

    (:math:`W_p` is PyTorch's ``weight_hr_l{k}``; :math:`m_t = o_t \odot \tanh c_t`.)

    The GRU's input and recurrent weights see different deltas (:eq:`eq-gru-weights`,
    :eq:`eq-gru-bhn`), with :math:`\delta q_t = r_t \odot \delta n_t`:

    .. math::

        \begin{aligned}
        \frac{\partial \mathcal{L}}{\partial W_{ih}} &= \sum_t [\delta r_t, \delta z_t, \delta n_t]^\top x_t,
          \qquad
        \frac{\partial \mathcal{L}}{\partial W_{hh}} = \sum_t [\delta r_t, \delta z_t, \delta q_t]^\top h_{t-1}, \\
        \frac{\partial \mathcal{L}}{\partial b_{in}} &= \sum_t \mathbf{1}^\top \delta n_t, \qquad
        \frac{\partial \mathcal{L}}{\partial b_{hn}} = \sum_t \mathbf{1}^\top (r_t \odot \delta n_t)
        \end{aligned}

    With ``lengths``, for sequence b of length :math:`T_b` (:eq:`eq-packed-grad`):

    .. math::

        \begin{aligned}
        \frac{\partial \mathcal{L}}{\partial x^{(b)}_t} &= 0 \quad (t > T_b), \qquad
        \overrightarrow{\delta h}^{(b)}_{T_b} = \delta\mathrm{output}^{(b)}_{T_b}[:, :H_{out}]
          + \frac{\partial \mathcal{L}}{\partial \overrightarrow{h}^{(b)}_n}, \\
        \frac{\partial \mathcal{L}}{\partial \overleftarrow{h}^{(b)}_0}
          &= \overleftarrow{\delta a}^{(b)}_{T_b}\, \overleftarrow{W}_{hh}
        \end{aligned}

    Parameters
    ----------
    tape : list
        As :func:`~rnndoc.layers.stack.run_layers` filled it (same arguments).
    grad_output : Tensor, shape (L, N, D * H_out)
        :math:`\partial \mathcal{L}/\partial\,\text{output}`; zero past each sequence's end.
    grad_h_n : Tensor, shape (num_layers * D, N, H_out)
        :math:`\partial \mathcal{L}/\partial h_n`, the gradient of the ``h_n`` :func:`~rnndoc.layers.stack.run_layers` returned.
    grad_c_n : Tensor, shape (num_layers * D, N, H), or None
        :math:`\partial \mathcal{L}/\partial c_n`; LSTM only.
    params, mode, num_layers, bidirectional, lengths
        As given to :func:`~rnndoc.layers.stack.run_layers`.

    Returns
    -------
    grad_input : Tensor, shape (L, N, H_in)
        :math:`\partial \mathcal{L}/\partial x_t` for every t.
    grad_h_0 : Tensor, shape (num_layers * D, N, H_out)
        :math:`\partial \mathcal{L}/\partial h_0`.
    grad_c_0 : Tensor, shape (num_layers * D, N, H), or None
        :math:`\partial \mathcal{L}/\partial c_0`; LSTM only.
    grads : dict of str to Tensor
        One entry per name in ``params``, with its shape.

    Raises
    ------
    TypeError
        If a flag has the wrong type, ``tape`` is not a list, ``grad_output`` or ``grad_h_n``
        is not a tensor, ``params`` is not a mapping, ``lengths`` is not an integer tensor,
        or the dtypes differ.
    ValueError
        If ``tape`` does not hold one record per layer and direction filled with the same
        ``mode``, a gradient's shape is not that of what :func:`~rnndoc.layers.stack.run_layers` returned, a shape
        disagrees (the message names the argument or the weight, the expected and the actual
        shape), a weight is missing, ``grad_c_n`` is given for a mode other than LSTM or
        missing for an LSTM, a length lies outside [1, L], or the tensors are on different
        devices.

    Notes
    -----
    :func:`rnndoc.layers.backward` checks more (the module, the caller's layouts). BPTT as in
    Werbos (1990); the layouts are PyTorch's.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.stack import run_layers
    >>> from rnndoc.layers.stack_backward import run_layers_backward
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
            dx, found = direction_gradients(delta, delta_hh, dh_steps, weights, tape[index])  # (L, N, F)
            d_below = dx if d_below is None else d_below + dx  # (L, N, F)
            grads |= {kind + suffix: g for kind, g in found.items()}
        d_layer = d_below
    c_0_grad = None if grad_c_n is None else torch.stack(grad_c_0)  # (lD, N, H)
    return d_layer, torch.stack(grad_h_0), c_0_grad, grads  # (L, N, H_in), (lD, N, H_out)
