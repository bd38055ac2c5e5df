r"""The Elman RNN: one step and its backward; the cell is :func:`rnndoc.layers.rnn_cell`.

.. math:: a_t = x_t W_{ih}^\top + b_{ih} + b_{hh} + h_{t-1} W_{hh}^\top,\qquad h_t = \phi(a_t)

with :math:`\phi` = tanh or ReLU, in PyTorch's row form (:math:`x_t` is (N, H_in)). The stack passes
the weights packed (:mod:`rnndoc.layers.products`), with ``check=False``.
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_choice
from .products import Weight, linear, matmul
from .shared import check_shapes

__all__ = ["rnn_step", "rnn_step_backward"]

_ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}


def _check_nonlinearity(nonlinearity: object) -> None:
    check_choice("nonlinearity", nonlinearity, _ACTIVATIONS)


def rnn_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: Weight, nonlinearity: str, *, check: bool = True
) -> torch.Tensor:
    r"""One Elman step from the precomputed input projection: :math:`h_t = \phi(a_t)`.

    .. math:: a_t = x_{part} + h_{t-1} W_{hh}^\top, \qquad x_{part} = x_t W_{ih}^\top + b_{ih} + b_{hh}

    Parameters
    ----------
    x_part : Tensor, shape (N, H)
        :math:`x_t W_{ih}^\top + b_{ih} + b_{hh}` from :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H)
        :math:`h_{t-1}`.
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}
        :math:`\phi`.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    Tensor, shape (N, H)
        :math:`h_t`; it is also all that :func:`rnn_step_backward` needs.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes, devices and dtypes are checked (the error names the argument); dtypes may mix
    only under ``torch.autocast``, which casts them. PyTorch's ``torch.nn.RNNCell`` documentation; Elman (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.rnn import rnn_step
    >>> rnn_step(torch.zeros(1, 2), torch.ones(1, 2), torch.eye(2), "relu")
    tensor([[1., 1.]])
    """
    if check_bool("check", check):
        _check_nonlinearity(nonlinearity)
        check_shapes(x_part=(x_part, "N,H"), h=(h, "N,H"), weight_hh=(weight_hh, "H,H"))
    return _ACTIVATIONS[nonlinearity](linear(h, weight_hh, add=x_part))  # (N, H): phi(a_t)


def rnn_step_backward(
    dh_next: torch.Tensor,
    h_next: torch.Tensor,
    weight_hh: Weight,
    nonlinearity: str,
    *,
    check: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`rnn_step`: from :math:`\delta h_t` to the step's inputs.

    The book's BPTT recursion, one step, batched (:eq:`eq-h0-grad` at t = 1):
    :math:`\delta h_t = \partial \mathcal{L}/\partial h_t` is the total derivative by the
    step's output, :math:`\delta_t = \partial \mathcal{L}/\partial a_t` the derivative by
    its pre-activation:

    .. math::

        \begin{aligned}
        \delta_t &= \delta h_t \odot \phi'(a_t), \qquad
          \phi'(a_t) = 1 - h_t^2\ (\tanh),\ [h_t > 0]\ (\mathrm{ReLU}), \\
        \frac{\partial \mathcal{L}}{\partial h_{t-1}} &= \delta_t W_{hh}
          \quad (\text{through step } t)
        \end{aligned}

    The caller adds :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}` to the second
    to make :math:`\delta h_{t-1}` (at t = 1 it is :math:`\partial \mathcal{L}/\partial h_0`).
    The weight gradient :math:`\sum_t \delta_t^\top h_{t-1}` is summed by the caller after
    the loop over time (one matrix product).

    Parameters
    ----------
    dh_next : Tensor, shape (N, H)
        :math:`\delta h_t`, everything that reaches this step's output :math:`h_t` (from
        :math:`\mathrm{output}_t` and from step t + 1).
    h_next : Tensor, shape (N, H)
        :math:`h_t` as :func:`rnn_step` returned it.
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}
        :math:`\phi`.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta : Tensor, shape (N, H)
        :math:`\delta_t = \partial \mathcal{L}/\partial a_t`, also the derivative by ``x_part``.
    dh : Tensor, shape (N, H)
        :math:`\delta_t W_{hh}`, the derivative by :math:`h_{t-1}` through step t.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    The BPTT recursion of the book's BPTT chapter (:eq:`eq-delta`), batched; Werbos (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.rnn import rnn_step_backward
    >>> delta, dh = rnn_step_backward(torch.ones(1, 2), torch.zeros(1, 2), 2 * torch.eye(2), "tanh")
    >>> delta, dh  # tanh'(0) = 1, then through W_hh = 2 I
    (tensor([[1., 1.]]), tensor([[2., 2.]]))
    """
    if check_bool("check", check):
        _check_nonlinearity(nonlinearity)
        check_shapes(dh_next=(dh_next, "N,H"), h_next=(h_next, "N,H"), weight_hh=(weight_hh, "H,H"))
    slope = 1 - h_next * h_next if nonlinearity == "tanh" else (h_next > 0).to(h_next.dtype)  # (N, H)
    delta = dh_next * slope  # (N, H): delta_t = delta h_t * phi'(a_t)
    return delta, matmul(delta, weight_hh)  # (N, H), (N, H): delta_t W_hh
