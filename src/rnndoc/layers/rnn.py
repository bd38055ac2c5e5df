r"""The Elman RNN: one step, its backward, and ``torch.nn.RNNCell``.

.. math:: a_t = x_t W_{ih}^\top + b_{ih} + b_{hh} + h_{t-1} W_{hh}^\top,\qquad h_t = \phi(a_t)

with :math:`\phi` = tanh or ReLU, in PyTorch's row form (:math:`x_t` is (N, H_in)).
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_choice
from .shared import check_cell_arguments, check_shapes, input_projection

__all__ = ["rnn_cell", "rnn_step", "rnn_step_backward"]

_ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}


def _check_nonlinearity(nonlinearity: object) -> None:
    check_choice("nonlinearity", nonlinearity, _ACTIVATIONS)


def rnn_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, nonlinearity: str, *, check: bool = True
) -> torch.Tensor:
    r"""One Elman step from the precomputed input projection: :math:`h' = \phi(x_{part} + h W_{hh}^\top)`.

    Parameters
    ----------
    x_part : Tensor, shape (N, H)
        :math:`x W_{ih}^\top + b_{ih} + b_{hh}` from :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H)
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    Tensor, shape (N, H)
        :math:`h'`; it is also all that :func:`rnn_step_backward` needs.

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
    return _ACTIVATIONS[nonlinearity](torch.addmm(x_part, h, weight_hh.T))  # (N, H)


def rnn_step_backward(
    dh_next: torch.Tensor,
    h_next: torch.Tensor,
    weight_hh: torch.Tensor,
    nonlinearity: str,
    *,
    check: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`rnn_step`: from :math:`\partial L/\partial h'` to the step's inputs.

    .. math::

        \begin{aligned}
        \delta &= \frac{\partial L}{\partial h'} \odot \phi'(a), \\
        \phi'(a) &= 1 - h'^2\ (\tanh),\ [h' > 0]\ (\mathrm{ReLU}), \\
        \frac{\partial L}{\partial x_{part}} &= \delta, \\
        \frac{\partial L}{\partial h} &= \delta\, W_{hh}
        \end{aligned}

    The weight gradient :math:`\sum_t \delta_t^\top h_{t-1}` is summed by the caller after
    the loop over time (one matrix product).

    Parameters
    ----------
    dh_next : Tensor, shape (N, H)
        :math:`\partial L/\partial h'`, everything that reaches :math:`h'`.
    h_next : Tensor, shape (N, H)
        :math:`h'` as :func:`rnn_step` returned it.
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta : Tensor, shape (N, H)
        :math:`\partial L/\partial a = \partial L/\partial x_{part}`.
    dh : Tensor, shape (N, H)
        :math:`\partial L/\partial h`.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes are checked, as in :func:`rnn_step`. The BPTT recursion of the book's BPTT chapter, batched; Werbos (1990).

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
    delta = dh_next * slope  # (N, H)
    return delta, delta @ weight_hh  # (N, H), (N, H)


def rnn_cell(
    input: torch.Tensor,
    hx: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
    nonlinearity: str = "tanh",
) -> torch.Tensor:
    r"""One step of ``torch.nn.RNNCell``.

    .. math:: h' = \tanh(x W_{ih}^\top + b_{ih} + h W_{hh}^\top + b_{hh})
              \quad(\text{or } \mathrm{ReLU})

    Parameters
    ----------
    input : Tensor, shape (N, H_in) or (H_in,)
    hx : Tensor, shape (N, H) or (H,)
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,), optional
    nonlinearity : {"tanh", "relu"}

    Returns
    -------
    Tensor, shape (N, H) or (H,)
        :math:`h'`, batched as ``input`` is.

    Raises
    ------
    TypeError
        If an argument is not a floating tensor, or the dtypes differ.
    ValueError
        If a shape disagrees (the message names the argument, the expected and the actual
        shape), the tensors are on different devices, or ``nonlinearity`` is unknown.

    Notes
    -----
    PyTorch's ``torch.nn.RNNCell`` documentation; Elman (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import rnn_cell
    >>> rnn_cell(torch.ones(1, 2), torch.zeros(1, 2), torch.eye(2), torch.eye(2)).shape
    torch.Size([1, 2])
    """
    _check_nonlinearity(nonlinearity)
    x, h, unbatched, _ = check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates=1)
    x_part = input_projection(x, weight_ih, bias_ih, bias_hh, "RNN_TANH")  # (N, H)
    h_next = rnn_step(x_part, h, weight_hh, nonlinearity)  # (N, H)
    return h_next.squeeze(0) if unbatched else h_next
