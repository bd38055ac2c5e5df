r"""The GRU: one step and its backward; the cell is :func:`rnndoc.layers.gru_cell`.

Gate blocks in PyTorch's order ``r, z, n``. PyTorch's candidate keeps :math:`b_{hn}` inside
the product with the reset gate, :math:`n_t = \tanh(x_n + r_t \odot q_t)` with
:math:`q_t = h_{t-1} W_{hn}^\top + b_{hn}` (``hh_n`` in the code; :eq:`eq-gru-rows`);
Cho et al. (2014) reset :math:`h` before the product (``gru_cell(reset_after=False)``). The
stack passes the weights packed (:mod:`rnndoc.layers.products`), with ``check=False``.
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_tensor
from .products import Weight, linear, matmul
from .shared import _check_saved, _saved_labels, check_shapes

__all__ = ["gru_bias_hn", "gru_step", "gru_step_backward"]


def gru_bias_hn(bias_hh: torch.Tensor | None) -> torch.Tensor | None:
    """The GRU's :math:`b_{hn}`, the last third of ``bias_hh``.

    Parameters
    ----------
    bias_hh : Tensor, shape (3H,), or None

    Returns
    -------
    Tensor, shape (H,), or None without biases

    Raises
    ------
    TypeError, ValueError
        If ``bias_hh`` is not a floating tensor of shape (3H,).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.gru import gru_bias_hn
    >>> gru_bias_hn(torch.arange(6.0))
    tensor([4., 5.])
    """
    if bias_hh is None:
        return None
    rows = check_tensor("bias_hh", bias_hh, (None,), "(3H,)").shape[0]
    if rows % 3:
        raise ValueError(f"bias_hh must have shape (3H,), got {tuple(bias_hh.shape)}")
    return bias_hh[2 * (rows // 3) :]


def gru_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    weight_hh: Weight,
    bias_hn: torch.Tensor | None,
    *,
    check: bool = True,
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    r"""One GRU step from the precomputed input projection (PyTorch's form, :eq:`eq-gru-rows`).

    With :math:`x_{part} = [x_r, x_z, x_n] = x_t W_{ih}^\top + b_{ih} + [b_{hr}, b_{hz}, 0]` and
    :math:`W_{hr}, W_{hz}, W_{hn}` the blocks of :math:`W_{hh}`:

    .. math::

        \begin{aligned}
        r_t &= \sigma(x_r + h_{t-1} W_{hr}^\top), \\
        z_t &= \sigma(x_z + h_{t-1} W_{hz}^\top), \\
        q_t &= h_{t-1} W_{hn}^\top + b_{hn}, \\
        n_t &= \tanh(x_n + r_t \odot q_t), \\
        h_t &= (1 - z_t) \odot n_t + z_t \odot h_{t-1}
        \end{aligned}

    Parameters
    ----------
    x_part : Tensor, shape (N, 3H)
        :math:`x_t W_{ih}^\top + b_{ih} + [b_{hr}, b_{hz}, 0]` from
        :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H)
        :math:`h_{t-1}`.
    weight_hh : Tensor, shape (3H, H)
        :math:`W_{hh}`, blocks r, z, n.
    bias_hn : Tensor, shape (H,), or None
        :math:`b_{hn}` (:func:`gru_bias_hn` of ``bias_hh``); None without biases.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    h_next : Tensor, shape (N, H)
        :math:`h_t`.
    saved : tuple (h, r, z, n, hh_n) of Tensor, each (N, H)
        :math:`(h_{t-1}, r_t, z_t, n_t, q_t)`, what :func:`gru_step_backward` reads.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.gru import gru_step
    >>> h, _ = gru_step(torch.zeros(1, 6), torch.ones(1, 2), torch.zeros(6, 2), None)  # z_t = 1/2, n_t = 0
    >>> h
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        check_shapes(
            x_part=(x_part, "N,3H"), h=(h, "N,H"), weight_hh=(weight_hh, "3H,H"), bias_hn=(bias_hn, "H")
        )
    hidden_size = h.shape[1]
    hh = linear(h, weight_hh)  # (N, 3H): h_(t-1) W_hh^T
    hh_n = hh[:, 2 * hidden_size :] if bias_hn is None else hh[:, 2 * hidden_size :] + bias_hn  # (N, H): q_t
    r, z = torch.sigmoid(x_part[:, : 2 * hidden_size] + hh[:, : 2 * hidden_size]).chunk(2, dim=1)  # (N, H)
    n = torch.tanh(torch.addcmul(x_part[:, 2 * hidden_size :], r, hh_n))  # (N, H): tanh(x_n + r_t q_t)
    h_next = torch.addcmul(n, z, h - n)  # (N, H): h_t = (1 - z_t) * n_t + z_t * h_(t-1)
    return h_next, (h, r, z, n, hh_n)


def gru_step_backward(
    dh_next: torch.Tensor, saved: tuple[torch.Tensor, ...], weight_hh: Weight, *, check: bool = True
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`gru_step`, with the reset gate visible on :math:`b_{hn}`'s path.

    Step t of :eq:`eq-gru-deltas`, with the book's symbols: :math:`\delta h_t` is the total
    derivative by the step's output, and :math:`\delta` on a gate (or on :math:`q_t`) the
    derivative by its pre-activation:

    .. math::

        \begin{aligned}
        \delta n_t &= \delta h_t \odot (1 - z_t) \odot (1 - n_t^2), \\
        \delta z_t &= \delta h_t \odot (h_{t-1} - n_t) \odot z_t (1 - z_t), \\
        \delta r_t &= \delta n_t \odot q_t \odot r_t (1 - r_t), \\
        \delta q_t &= r_t \odot \delta n_t, \\
        \frac{\partial \mathcal{L}}{\partial h_{t-1}} &= \delta h_t \odot z_t
          + [\,\delta r_t,\ \delta z_t,\ \delta q_t\,]\, W_{hh}
        \end{aligned}

    The last line is the derivative by :math:`h_{t-1}` through step t only; the caller adds
    :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}` to make :math:`\delta h_{t-1}`
    (at t = 1 it is :math:`\partial \mathcal{L}/\partial h_0`). :math:`\delta q_t` is
    :math:`\delta n_t` scaled by :math:`r_t`: so are the gradients of :math:`W_{hn}` and
    :math:`b_{hn}`, which the caller sums after the loop (:eq:`eq-gru-weights`, :eq:`eq-gru-bhn`).

    Parameters
    ----------
    dh_next : Tensor, shape (N, H)
        :math:`\delta h_t`, the total derivative by this step's output :math:`h_t` (from
        :math:`\mathrm{output}_t` and from step t + 1); the book's :math:`\lambda_t`.
    saved : tuple (h, r, z, n, hh_n) of Tensor, each (N, H)
        :math:`(h_{t-1}, r_t, z_t, n_t, q_t)`, as :func:`gru_step` returned it.
    weight_hh : Tensor, shape (3H, H)
        :math:`W_{hh}`, blocks r, z, n.
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta : Tensor, shape (N, 3H)
        :math:`[\delta r_t, \delta z_t, \delta n_t]`, the derivative by ``x_part``.
    delta_hh_n : Tensor, shape (N, H)
        :math:`\delta q_t = \partial \mathcal{L}/\partial q_t`.
    dh : Tensor, shape (N, H)
        :math:`\partial \mathcal{L}/\partial h_{t-1}` through step t (the last line above).

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation for the forward; the gated-gradients chapter
    derives the r-scaling of :math:`b_{hn}`'s gradient symbolically.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.gru import gru_step, gru_step_backward
    >>> w_hh = torch.zeros(6, 2)
    >>> _, saved = gru_step(torch.zeros(1, 6), torch.ones(1, 2), w_hh, None)
    >>> _, _, dh = gru_step_backward(torch.ones(1, 2), saved, w_hh)
    >>> dh  # only the direct path delta h_t * z_t remains when W_hh = 0: z_t = 1/2
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        _check_saved(saved, ("h", "r", "z", "n", "hh_n"), "gru_step")
        check_shapes(
            dh_next=(dh_next, "N,H"),
            weight_hh=(weight_hh, "3H,H"),
            **_saved_labels(saved, ("h", "r", "z", "n", "hh_n")),
        )
    h, r, z, n, hh_n = saved
    delta_n = dh_next * (1 - z) * (1 - n * n)  # (N, H): delta n_t
    delta_z = dh_next * (h - n) * z * (1 - z)  # (N, H): delta z_t
    delta_r = delta_n * hh_n * r * (1 - r)  # (N, H): delta r_t = delta n_t * q_t * r_t (1 - r_t)
    delta_hh_n = r * delta_n  # (N, H): delta q_t; b_hn and W_hn see delta n_t through r_t
    delta = torch.cat([delta_r, delta_z, delta_n], dim=1)  # (N, 3H)
    dh = matmul(torch.cat([delta_r, delta_z, delta_hh_n], dim=1), weight_hh, add=dh_next * z)  # (N, H)
    return delta, delta_hh_n, dh
