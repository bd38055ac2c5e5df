r"""The products of step Jacobians over a sequence, and autograd through the module as their witness.

.. math:: \frac{\partial s_T}{\partial s_t} = J_T J_{T-1} \cdots J_{t+1}
"""

from __future__ import annotations

import torch
from torch import nn

from .._autograd import grad_on, plain
from ..layers import gru_cell, lstm_cell, rnn_cell
from ._arguments import Recurrent, check_module_input
from .steps import gru_step_jacobian, lstm_step_jacobian, rnn_step_jacobian

__all__ = ["autograd_state_jacobians", "state_jacobians"]


def _state_size(module: Recurrent) -> int:
    return 2 * module.hidden_size if isinstance(module, nn.LSTM) else module.hidden_size


def state_jacobians(module: Recurrent, input: torch.Tensor) -> torch.Tensor:
    r"""Every :math:`\partial s_T / \partial s_t` of one sequence, as products of step Jacobians (:eq:`eq-full-state-jacobian`).

    .. math:: \frac{\partial s_T}{\partial s_{T-d}} = J_T J_{T-1} \cdots J_{T-d+1},
              \qquad J_k = \frac{\partial s_k}{\partial s_{k-1}}

    with :math:`s_k = (h_k, c_k)` for an LSTM (:func:`lstm_step_jacobian`) and :math:`s_k = h_k`
    for a GRU (:func:`gru_step_jacobian`) or a tanh RNN (:func:`rnn_step_jacobian`). The states
    come from :func:`rnndoc.layers.lstm_cell`, ``gru_cell`` or ``rnn_cell`` on the module's
    layer-0 weights, from :math:`s_0 = 0`.

    Parameters
    ----------
    module : nn.RNN (tanh), nn.LSTM or nn.GRU
        One layer, one direction, no projection; ``batch_first`` does not matter.
    input : Tensor, shape (T, H_in)
        One unbatched sequence, in the module's dtype.

    Returns
    -------
    Tensor, shape (T + 1, S, S)
        Entry ``d`` is :math:`\partial s_T / \partial s_{T-d}` for the distance d = 0 ... T
        (entry 0 is the identity); S = 2H for the LSTM (h first, then c), H otherwise. For the
        LSTM, ``[d, :H, :H]`` is :math:`\partial h_T / \partial h_{T-d}` with :math:`c_{T-d}`
        held fixed.

    Raises
    ------
    TypeError
        If ``module`` is not one of the three, has forward hooks or overrides ``forward``
        (what ``module(input)`` would run besides the equations), or ``input`` is not a
        floating tensor of the module's dtype.
    ValueError
        If the module has more than one layer, two directions, a projection or the ReLU
        mode (``mode='RNN_RELU'``, which torch's call reads, not ``nonlinearity``), or
        ``input`` is not (T, H_in) or not on the module's device.

    Notes
    -----
    The weights are read as the module computes with them: parametrized
    (``torch.nn.utils.parametrize``), pruned, ``weight_norm`` or, in eval mode,
    ``spectral_norm`` weights included. T = 0 gives the identity alone. NaN and infinities
    propagate as through the module.

    The chain rule of BPTT (Werbos 1990); the step Jacobians as in their functions.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import state_jacobians
    >>> lstm = torch.nn.LSTM(2, 3, dtype=torch.float64)
    >>> products = state_jacobians(lstm, torch.zeros(4, 2, dtype=torch.float64))
    >>> products.shape, torch.equal(products[0], torch.eye(6, dtype=torch.float64))
    (torch.Size([5, 6, 6]), True)
    """
    weights = check_module_input(module, input)
    h = c = input.new_zeros(module.hidden_size)  # (H,)
    steps = []
    with torch.no_grad():
        for x_t in input:
            if isinstance(module, nn.LSTM):
                steps.append(lstm_step_jacobian(x_t, h, c, *weights))  # (2H, 2H)
                h, c = lstm_cell(x_t, (h, c), *weights)
            elif isinstance(module, nn.GRU):
                steps.append(gru_step_jacobian(x_t, h, *weights))  # (H, H)
                h = gru_cell(x_t, h, *weights)
            else:
                steps.append(rnn_step_jacobian(x_t, h, *weights))  # (H, H)
                h = rnn_cell(x_t, h, *weights)
        products = [torch.eye(_state_size(module), dtype=input.dtype, device=input.device)]  # ds_T/ds_T
        for jacobian in reversed(steps):  # k = T, T-1, ..., 1
            products.append(products[-1] @ jacobian)  # (S, S): ds_T/ds_(k-1)
    return torch.stack(products)  # (T + 1, S, S)


def autograd_state_jacobians(module: Recurrent, input: torch.Tensor) -> torch.Tensor:
    r"""The same Jacobians as :func:`state_jacobians`, by autograd through the PyTorch module.

    The module is run one step at a time from :math:`s_0 = 0` (``module(x_t, hx)`` on a
    length-1 sequence), so that every state :math:`s_t` is a node of one graph; then one
    backward pass per entry of :math:`s_T` gives that row of every :math:`\partial s_T /
    \partial s_t` at once. Nothing of rnndoc is used: this is the independent witness.

    Parameters
    ----------
    module : nn.RNN (tanh), nn.LSTM or nn.GRU
        One layer, one direction, no projection.
    input : Tensor, shape (T, H_in)

    Returns
    -------
    Tensor, shape (T + 1, S, S)
        As :func:`state_jacobians`.

    Raises
    ------
    TypeError, ValueError
        As :func:`state_jacobians`; TypeError also for a module with backward hooks, which
        change what autograd gives.

    Notes
    -----
    The answer does not depend on the caller's grad mode: autograd runs on inside
    ``torch.no_grad()`` or ``torch.inference_mode()`` too, on a copy of an inference-tensor
    ``input``; the result is an ordinary tensor that does not require grad.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import autograd_state_jacobians, state_jacobians
    >>> gru = torch.nn.GRU(2, 3, dtype=torch.float64)
    >>> x = torch.ones(5, 2, dtype=torch.float64)
    >>> gap = (autograd_state_jacobians(gru, x) - state_jacobians(gru, x)).abs().max().item()
    >>> gap < 1e-15
    True
    """
    check_module_input(module, input, autograd=True)
    size = module.hidden_size
    with grad_on():  # the same Jacobians under no_grad or inference_mode
        input = plain(input)
        s = input.new_zeros(_state_size(module), requires_grad=True)  # (S,): s_0
        states = [s]
        for x_t in input:
            if isinstance(module, nn.LSTM):
                _, (h, c) = module(x_t[None], (s[None, :size], s[None, size:]))  # (1, H) each
                s = torch.cat([h[0], c[0]])  # (2H,)
            else:
                _, h = module(x_t[None], s[None])  # (1, H)
                s = h[0]  # (H,)
            states.append(s)
        rows = [torch.autograd.grad(s[k], states, retain_graph=True) for k in range(s.shape[0])]
        # rows[k][t], (S,), is row k of ds_T/ds_t; the distance d = T - t runs the other way.
        jacobians = [
            torch.stack([row[t] for row in rows]) for t in reversed(range(len(states)))
        ]  # (S, S) each
        return torch.stack(jacobians)  # (T + 1, S, S)
