r"""The GRU: one step and its backward; the cell is :func:`rnndoc.layers.gru_cell`.

Gate blocks in PyTorch's order ``r, z, n``. PyTorch's candidate keeps :math:`b_{hn}` inside
the product with the reset gate, :math:`n = \tanh(x_n + r \odot (h W_{hn}^\top + b_{hn}))`;
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
    r"""One GRU step from the precomputed input projection (PyTorch's form, gate blocks r, z, n).

    .. math::

        \begin{aligned}
        (r, z) &= \sigma(x_{rz} + h W_{h\{r,z\}}^\top), \\
        n &= \tanh(x_n + r \odot (h W_{hn}^\top + b_{hn})), \\
        h' &= (1 - z) \odot n + z \odot h
        \end{aligned}

    Parameters
    ----------
    x_part : Tensor, shape (N, 3H)
        :math:`x W_{ih}^\top + b_{ih} + (b_{hr}, b_{hz}, 0)` from
        :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H)
    weight_hh : Tensor, shape (3H, H)
    bias_hn : Tensor, shape (H,), or None
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    h_next : Tensor, shape (N, H)
    saved : tuple (h, r, z, n, hh_n) of Tensor, each (N, H)
        What :func:`gru_step_backward` reads; ``hh_n`` is :math:`h W_{hn}^\top + b_{hn}`.

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes are checked (a ``ValueError`` names the argument). PyTorch's ``torch.nn.GRU``
    documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.gru import gru_step
    >>> h, _ = gru_step(torch.zeros(1, 6), torch.ones(1, 2), torch.zeros(6, 2), None)  # z = 1/2, n = 0
    >>> h
    tensor([[0.5000, 0.5000]])
    """
    if check_bool("check", check):
        check_shapes(
            x_part=(x_part, "N,3H"), h=(h, "N,H"), weight_hh=(weight_hh, "3H,H"), bias_hn=(bias_hn, "H")
        )
    hidden_size = h.shape[1]
    hh = linear(h, weight_hh)  # (N, 3H): h W_hh^T
    hh_n = hh[:, 2 * hidden_size :] if bias_hn is None else hh[:, 2 * hidden_size :] + bias_hn  # (N, H)
    r, z = torch.sigmoid(x_part[:, : 2 * hidden_size] + hh[:, : 2 * hidden_size]).chunk(2, dim=1)  # (N, H)
    n = torch.tanh(torch.addcmul(x_part[:, 2 * hidden_size :], r, hh_n))  # (N, H): tanh(x_n + r * hh_n)
    h_next = torch.addcmul(n, z, h - n)  # (N, H): (1 - z) * n + z * h
    return h_next, (h, r, z, n, hh_n)


def gru_step_backward(
    dh_next: torch.Tensor, saved: tuple[torch.Tensor, ...], weight_hh: Weight, *, check: bool = True
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`gru_step`, with the reset gate visible on :math:`b_{hn}`'s path.

    .. math::

        \begin{aligned}
        \delta n &= \delta h' \odot (1 - z) \odot (1 - n^2), \\
        \delta z &= \delta h' \odot (h - n) \odot z(1 - z), \\
        \delta hh_n &= r \odot \delta n, \\
        \delta r &= \delta n \odot (h W_{hn}^\top + b_{hn}) \odot r(1 - r), \\
        \frac{\partial L}{\partial x_{part}} &= (\delta r, \delta z, \delta n), \\
        \frac{\partial L}{\partial h} &= \delta h' \odot z + (\delta r, \delta z, \delta hh_n)\, W_{hh}
        \end{aligned}

    :math:`\delta hh_n` (the gradient at :math:`h W_{hn}^\top + b_{hn}`) is :math:`\delta n`
    scaled by :math:`r`: so are the gradients of :math:`W_{hn}` and :math:`b_{hn}`, which the
    caller sums after the loop (:math:`\sum_t \delta hh_{n,t}^\top h_{t-1}`).

    Parameters
    ----------
    dh_next : Tensor, shape (N, H)
        :math:`\partial L/\partial h'`.
    saved : tuple (h, r, z, n, hh_n) of Tensor, each (N, H)
        As :func:`gru_step` returned it.
    weight_hh : Tensor, shape (3H, H)
    check : bool, default True
        False skips the argument checks (the stack checks its arguments once, not per step).

    Returns
    -------
    delta : Tensor, shape (N, 3H)
        :math:`\partial L/\partial x_{part}`, blocks r, z, n.
    delta_hh_n : Tensor, shape (N, H)
        :math:`\partial L/\partial (h W_{hn}^\top + b_{hn})`.
    dh : Tensor, shape (N, H)

    Raises
    ------
    TypeError, ValueError
        With ``check``: a non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Shapes are checked, as in :func:`gru_step`. PyTorch's ``torch.nn.GRU`` documentation for the forward; the
    gated-gradients chapter derives the r-scaling of :math:`b_{hn}`'s gradient symbolically.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.gru import gru_step, gru_step_backward
    >>> w_hh = torch.zeros(6, 2)
    >>> _, saved = gru_step(torch.zeros(1, 6), torch.ones(1, 2), w_hh, None)
    >>> _, _, dh = gru_step_backward(torch.ones(1, 2), saved, w_hh)
    >>> dh  # only the direct path z * dh' remains when W_hh = 0: z = 1/2
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
    delta_n = dh_next * (1 - z) * (1 - n * n)  # (N, H)
    delta_z = dh_next * (h - n) * z * (1 - z)  # (N, H)
    delta_r = delta_n * hh_n * r * (1 - r)  # (N, H)
    delta_hh_n = r * delta_n  # (N, H): b_hn and W_hn see delta_n through r
    delta = torch.cat([delta_r, delta_z, delta_n], dim=1)  # (N, 3H)
    dh = matmul(torch.cat([delta_r, delta_z, delta_hh_n], dim=1), weight_hh, add=dh_next * z)  # (N, H)
    return delta, delta_hh_n, dh
