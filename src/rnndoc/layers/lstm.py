r"""The LSTM (and LSTMP): one step and its backward; the cell is :func:`rnndoc.layers.lstm_cell`.

Gate blocks in PyTorch's order ``i, f, g, o``; the projection :math:`W_{hr}` of
``nn.LSTM(proj_size=P)`` is applied at every step (Sak et al. 2014). The stack passes the
weights packed (:mod:`rnndoc.layers.products`), with ``check=False``.
"""

from __future__ import annotations

import torch

from .._validate import check_bool
from .products import Weight, linear, matmul
from .shared import _check_saved, _saved_labels, check_shapes

__all__ = ["lstm_step", "lstm_step_backward"]


_SAVED = ("i", "f", "g", "o", "c", "tanh_c")


def check_lstm_shapes(**named) -> None:
    """Shapes agree (:func:`rnndoc.layers.shared.check_shapes`) and, without a projection, H_out = H."""
    sizes = check_shapes(**named)
    if named["weight_hr"][0] is None and sizes["H_out"] != sizes["H"]:
        raise ValueError(f"h has {sizes['H_out']} features but c has {sizes['H']}: give weight_hr (P, H)")


def lstm_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    weight_hh: Weight,
    weight_hr: Weight | None,
    *,
    check: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, ...]]:
    r"""One LSTM step from the precomputed input projection.

    .. math::

        \begin{aligned}
        (i, f, g, o) &= (\sigma, \sigma, \tanh, \sigma)(x_{part} + h W_{hh}^\top), \\
        c' &= f \odot c + i \odot g, \\
        h' &= (o \odot \tanh c')\, W_{hr}^\top\ (\text{with } W_{hr})
        \end{aligned}

    Parameters
    ----------
    x_part : Tensor, shape (N, 4H)
        :math:`x W_{ih}^\top + b_{ih} + b_{hh}` from :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H_out)
    c : Tensor, shape (N, H)
    weight_hh : Tensor, shape (4H, H_out)
    weight_hr : Tensor, shape (P, H), or None
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    h_next : Tensor, shape (N, H_out)
    c_next : Tensor, shape (N, H)
    saved : tuple (i, f, g, o, c, tanh(c')) of Tensor, each (N, H)
        What :func:`lstm_step_backward` reads.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes are checked (a ``ValueError`` names the argument); the sigmoid is taken of all four blocks at once and the g block's
    is discarded, which is cheaper than slicing first. PyTorch's ``torch.nn.LSTM``
    documentation; Hochreiter and Schmidhuber (1997), forget gate of Gers et al. (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.lstm import lstm_step
    >>> h, c, _ = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), torch.zeros(8, 2), None)
    >>> c  # f = sigmoid(0) = 1/2 keeps half of c; g = tanh(0) = 0 adds nothing
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        check_lstm_shapes(x_part=(x_part, "N,4H"), h=(h, "N,H_out"), c=(c, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
               weight_hr=(weight_hr, "H_out,H"))  # fmt: skip
    hidden_size = c.shape[1]
    gates = linear(h, weight_hh, add=x_part)  # (N, 4H): x_part + h W_hh^T
    i, f, _, o = torch.sigmoid(gates).chunk(4, dim=1)  # each (N, H); the g block is unused
    g = torch.tanh(gates[:, 2 * hidden_size : 3 * hidden_size])  # (N, H)
    c_next = torch.addcmul(f * c, i, g)  # (N, H): c' = f * c + i * g
    tanh_c = torch.tanh(c_next)  # (N, H)
    h_next = o * tanh_c  # (N, H): h' = o * tanh(c')
    if weight_hr is not None:
        h_next = linear(h_next, weight_hr)  # (N, P): the projection, applied at every step
    return h_next, c_next, (i, f, g, o, c, tanh_c)


def lstm_step_backward(
    dh_next: torch.Tensor,
    dc_next: torch.Tensor,
    saved: tuple[torch.Tensor, ...],
    weight_hh: Weight,
    weight_hr: Weight | None,
    *,
    check: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`lstm_step`: the two deltas, for h and for c, through the gates.

    With :math:`m = o \odot \tanh c'` (so :math:`h' = m W_{hr}^\top`, or :math:`h' = m`):

    .. math::

        \begin{aligned}
        \delta m &= \delta h'\, W_{hr}, \\
        \delta c &= \delta c' + \delta m \odot o \odot (1 - \tanh^2 c'), \\
        \delta i &= \delta c \odot g,\quad \delta f = \delta c \odot c, \\
        \delta g &= \delta c \odot i,\quad \delta o = \delta m \odot \tanh c', \\
        \delta a &= \big(\delta i \odot i(1-i),\ \delta f \odot f(1-f), \\
        &\qquad \delta g \odot (1-g^2),\ \delta o \odot o(1-o)\big), \\
        \frac{\partial L}{\partial x_{part}} &= \delta a, \\
        \frac{\partial L}{\partial h} &= \delta a\, W_{hh}, \\
        \frac{\partial L}{\partial c} &= \delta c \odot f
        \end{aligned}

    The weight gradients :math:`\sum_t \delta a_t^\top h_{t-1}` and
    :math:`\sum_t \delta h_t'^\top m_t` are summed by the caller after the loop.

    Parameters
    ----------
    dh_next : Tensor, shape (N, H_out)
        :math:`\partial L/\partial h'`.
    dc_next : Tensor, shape (N, H)
        :math:`\partial L/\partial c'` from the later steps.
    saved : tuple (i, f, g, o, c, tanh(c')) of Tensor, each (N, H)
        As :func:`lstm_step` returned it.
    weight_hh : Tensor, shape (4H, H_out)
    weight_hr : Tensor, shape (P, H), or None
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta_a : Tensor, shape (N, 4H)
        :math:`\partial L/\partial x_{part}`, the gates' pre-activations, blocks i, f, g, o.
    dh : Tensor, shape (N, H_out)
    dc : Tensor, shape (N, H)

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes are checked, as in :func:`lstm_step`. Graves (2012), *Supervised Sequence Labelling with Recurrent
    Neural Networks*, ch. 4; the gated-gradients chapter derives the same step Jacobians.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.lstm import lstm_step, lstm_step_backward
    >>> w_hh = torch.zeros(8, 2)
    >>> _, _, saved = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), w_hh, None)
    >>> _, _, dc = lstm_step_backward(torch.zeros(1, 2), torch.ones(1, 2), saved, w_hh, None)
    >>> dc  # dc'/dc = f = 1/2
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        _check_saved(saved, _SAVED, "lstm_step")
        check_lstm_shapes(dh_next=(dh_next, "N,H_out"), dc_next=(dc_next, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
               weight_hr=(weight_hr, "H_out,H"), **_saved_labels(saved, _SAVED))  # fmt: skip
    i, f, g, o, c, tanh_c = saved
    dm = dh_next if weight_hr is None else matmul(dh_next, weight_hr)  # (N, H): dh' W_hr
    dc = dc_next + dm * o * (1 - tanh_c * tanh_c)  # (N, H)
    di, df, dg, do = dc * g, dc * c, dc * i, dm * tanh_c  # each (N, H)
    delta_a = torch.cat(
        [di * i * (1 - i), df * f * (1 - f), dg * (1 - g * g), do * o * (1 - o)], dim=1
    )  # (N, 4H)
    return delta_a, matmul(delta_a, weight_hh), dc * f  # (N, 4H), (N, H_out), (N, H)
