r"""The LSTM (and LSTMP): one step and its backward; the cell is :func:`rnndoc.layers.lstm_cell`.

Gate blocks in PyTorch's order ``i, f, g, o``; the projection :math:`W_p` of
``nn.LSTM(proj_size=P)`` (PyTorch's parameter ``weight_hr_l{k}``, the argument ``weight_hr``
here) is applied at every step (Sak et al. 2014). Symbols as in the book's LSTM chapters
(:eq:`eq-lstm-rows`, :eq:`eq-lstm-deltas`, :eq:`eq-lstm-gate-deltas`): step t maps
:math:`(h_{t-1}, c_{t-1})` to :math:`(h_t, c_t)`. The stack passes the
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
    r"""One LSTM step from the precomputed input projection (:eq:`eq-lstm-rows`).

    .. math::

        \begin{aligned}
        a_t &= x_{part} + h_{t-1} W_{hh}^\top, \qquad
          x_{part} = x_t W_{ih}^\top + b_{ih} + b_{hh}, \\
        [\,i_t\ f_t\ g_t\ o_t\,] &= [\,\sigma\ \sigma\ \tanh\ \sigma\,](a_t), \\
        c_t &= f_t \odot c_{t-1} + i_t \odot g_t, \\
        m_t &= o_t \odot \tanh c_t, \\
        h_t &= m_t W_p^\top \quad (\text{without } W_p\text{: } h_t = m_t)
        \end{aligned}

    Parameters
    ----------
    x_part : Tensor, shape (N, 4H)
        :math:`x_t W_{ih}^\top + b_{ih} + b_{hh}` from :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H_out)
        :math:`h_{t-1}`.
    c : Tensor, shape (N, H)
        :math:`c_{t-1}`.
    weight_hh : Tensor, shape (4H, H_out)
        :math:`W_{hh}`, blocks i, f, g, o.
    weight_hr : Tensor, shape (P, H), or None
        The projection :math:`W_p` (PyTorch's ``weight_hr_l{k}``); None without ``proj_size``.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    h_next : Tensor, shape (N, H_out)
        :math:`h_t`.
    c_next : Tensor, shape (N, H)
        :math:`c_t`.
    saved : tuple of Tensor, each (N, H)
        :math:`(i_t, f_t, g_t, o_t, c_{t-1}, \tanh c_t)`, what :func:`lstm_step_backward` reads.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    The sigmoid is taken of all four blocks at once and the g block's is discarded, which is
    cheaper than slicing first. PyTorch's ``torch.nn.LSTM`` documentation; Hochreiter and
    Schmidhuber (1997), forget gate of Gers et al. (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.lstm import lstm_step
    >>> h, c, _ = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), torch.zeros(8, 2), None)
    >>> c  # f_t = sigmoid(0) = 1/2 keeps half of c_(t-1); g_t = tanh(0) = 0 adds nothing
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        check_lstm_shapes(x_part=(x_part, "N,4H"), h=(h, "N,H_out"), c=(c, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
               weight_hr=(weight_hr, "H_out,H"))  # fmt: skip
    hidden_size = c.shape[1]
    gates = linear(h, weight_hh, add=x_part)  # (N, 4H): a_t = x_part + h_(t-1) W_hh^T
    i, f, _, o = torch.sigmoid(gates).chunk(4, dim=1)  # each (N, H); the g block is unused
    g = torch.tanh(gates[:, 2 * hidden_size : 3 * hidden_size])  # (N, H)
    c_next = torch.addcmul(f * c, i, g)  # (N, H): c_t = f_t * c_(t-1) + i_t * g_t
    tanh_c = torch.tanh(c_next)  # (N, H)
    h_next = o * tanh_c  # (N, H): m_t = o_t * tanh(c_t)
    if weight_hr is not None:
        h_next = linear(h_next, weight_hr)  # (N, P): h_t = m_t W_p^T, the projection at every step
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

    Step t of :eq:`eq-lstm-deltas` and :eq:`eq-lstm-gate-deltas`, with the book's symbols:
    :math:`\delta X = \partial \mathcal{L}/\partial X`, the total derivative through every path
    to the loss; on a gate, :math:`\delta i_t` is the derivative by the gate's pre-activation
    (its block of :math:`a_t`), not by its value :math:`i_t`:

    .. math::

        \begin{aligned}
        \delta m_t &= \delta h_t\, W_p \quad (\text{without } W_p\text{: } \delta m_t = \delta h_t), \\
        \delta c_t &= \delta c_{t+1} \odot f_{t+1} + \delta m_t \odot o_t \odot (1 - \tanh^2 c_t), \\
        \delta i_t &= \delta c_t \odot g_t \odot i_t (1 - i_t), \\
        \delta f_t &= \delta c_t \odot c_{t-1} \odot f_t (1 - f_t), \\
        \delta g_t &= \delta c_t \odot i_t \odot (1 - g_t^2), \\
        \delta o_t &= \delta m_t \odot \tanh c_t \odot o_t (1 - o_t), \\
        \delta a_t &= [\,\delta i_t,\ \delta f_t,\ \delta g_t,\ \delta o_t\,]
        \end{aligned}

    What step t sends back to step t - 1 are the terms of :math:`\delta h_{t-1}` and
    :math:`\delta c_{t-1}` that pass through step t: :math:`\delta a_t W_{hh}` and
    :math:`\delta c_t \odot f_t`. The caller adds :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}`
    to the first to make :math:`\delta h_{t-1}`, and passes the second on as ``dc_next`` of step
    t - 1; at t = 1 they are :math:`\partial \mathcal{L}/\partial h_0` and
    :math:`\partial \mathcal{L}/\partial c_0`. The weight gradients :math:`\sum_t \delta a_t^\top h_{t-1}`
    and :math:`\sum_t \delta h_t^\top m_t` (:eq:`eq-lstm-weights`) are summed by the caller
    after the loop. The pair (``dh_next``, ``dc_next``) is the book's :math:`\lambda_t` of
    :eq:`eq-lstm-vjp`.

    Parameters
    ----------
    dh_next : Tensor, shape (N, H_out)
        :math:`\delta h_t`, the total derivative by this step's output :math:`h_t` (from
        :math:`\mathrm{output}_t` and from step t + 1).
    dc_next : Tensor, shape (N, H)
        :math:`\delta c_{t+1} \odot f_{t+1}`, the cell term from the later steps (what step
        t + 1 returned as ``dc``); at the last step, :math:`\partial \mathcal{L}/\partial c_n`.
    saved : tuple of Tensor, each (N, H)
        :math:`(i_t, f_t, g_t, o_t, c_{t-1}, \tanh c_t)`, as :func:`lstm_step` returned it.
    weight_hh : Tensor, shape (4H, H_out)
        :math:`W_{hh}`, blocks i, f, g, o.
    weight_hr : Tensor, shape (P, H), or None
        The projection :math:`W_p` (PyTorch's ``weight_hr_l{k}``); None without ``proj_size``.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta_a : Tensor, shape (N, 4H)
        :math:`\delta a_t = \partial \mathcal{L}/\partial a_t`, also the derivative by ``x_part``;
        blocks i, f, g, o.
    dh : Tensor, shape (N, H_out)
        :math:`\delta a_t W_{hh}`, the derivative by :math:`h_{t-1}` through step t's gates.
    dc : Tensor, shape (N, H)
        :math:`\delta c_t \odot f_t`, the derivative by :math:`c_{t-1}` through :math:`c_t`.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Graves (2012), *Supervised Sequence Labelling with Recurrent Neural Networks*, ch. 4,
    without peepholes; the gated-gradients chapter derives the same step Jacobians.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.lstm import lstm_step, lstm_step_backward
    >>> w_hh = torch.zeros(8, 2)
    >>> _, _, saved = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), w_hh, None)
    >>> _, _, dc = lstm_step_backward(torch.zeros(1, 2), torch.ones(1, 2), saved, w_hh, None)
    >>> dc  # delta c_t * f_t, with delta c_t = dc_next = 1 and f_t = 1/2
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        _check_saved(saved, _SAVED, "lstm_step")
        check_lstm_shapes(dh_next=(dh_next, "N,H_out"), dc_next=(dc_next, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
               weight_hr=(weight_hr, "H_out,H"), **_saved_labels(saved, _SAVED))  # fmt: skip
    i, f, g, o, c, tanh_c = saved
    delta_m = dh_next if weight_hr is None else matmul(dh_next, weight_hr)  # (N, H): delta h_t W_p
    delta_c = dc_next + delta_m * o * (1 - tanh_c * tanh_c)  # (N, H): delta c_t
    # dL/d(gate value), before the gates' derivatives: by i_t, f_t, g_t, o_t
    by_i, by_f, by_g, by_o = delta_c * g, delta_c * c, delta_c * i, delta_m * tanh_c  # each (N, H)
    delta_a = torch.cat(
        [by_i * i * (1 - i), by_f * f * (1 - f), by_g * (1 - g * g), by_o * o * (1 - o)], dim=1
    )  # (N, 4H): [delta i_t, delta f_t, delta g_t, delta o_t]
    return delta_a, matmul(delta_a, weight_hh), delta_c * f  # (N, 4H), (N, H_out), (N, H)
