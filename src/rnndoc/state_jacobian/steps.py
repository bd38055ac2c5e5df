r"""One step's Jacobian :math:`J_t = \partial s_t / \partial s_{t-1}`, per cell kind.

Each is written out from the cell's equations, one unbatched step in PyTorch's layout:
:func:`~rnndoc.state_jacobian.rnn_step_jacobian` (the tanh RNN),
:func:`~rnndoc.state_jacobian.lstm_step_jacobian` (over the whole state :math:`(h_t, c_t)`),
:func:`~rnndoc.state_jacobian.gru_step_jacobian`.
"""

from __future__ import annotations

import torch

from ..layers.steps import gru_bias_hn, gru_step, input_projection, lstm_step, rnn_step
from ._arguments import check_step

__all__ = ["gru_step_jacobian", "lstm_step_jacobian", "rnn_step_jacobian"]

# The gates come from the layers' own steps (rnndoc.layers.steps, which trust their callers: the
# arguments are checked here, once), on a batch of one.


def _unbatched_lstm_step(x_t, h_prev, c_prev, weight_ih, weight_hh, bias_ih, bias_hh):
    """One unbatched LSTM step by :func:`rnndoc.layers.steps.lstm_step`: h_t, c_t and (i, f, g, o, tanh c_t), each (H,)."""
    x_part = input_projection(x_t[None], weight_ih, bias_ih, bias_hh, "LSTM")  # (1, 4H)
    h_t, c_t, saved = lstm_step(x_part, h_prev[None], c_prev[None], weight_hh, None)  # (1, H)
    i, f, g, o, _, tanh_c = (v[0] for v in saved)  # (H,) each
    return h_t[0], c_t[0], (i, f, g, o, tanh_c)


def _unbatched_gru_step(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh):
    """One unbatched GRU step by :func:`rnndoc.layers.steps.gru_step`: h_t and (r, z, n, q_t), each (H,).

    :math:`q_t = W_{hn} h_{t-1} + b_{hn}`, the candidate's recurrent part (``q`` in the layers).
    """
    x_part = input_projection(x_t[None], weight_ih, bias_ih, bias_hh, "GRU")  # (1, 3H)
    h_t, (_, r, z, n, q) = gru_step(x_part, h_prev[None], weight_hh, gru_bias_hn(bias_hh))
    return h_t[0], (r[0], z[0], n[0], q[0])  # (H,), each (H,)


def rnn_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The step Jacobian of the tanh RNN, :math:`\partial h_t / \partial h_{t-1}`.

    .. math:: h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),\qquad
              \frac{\partial h_t}{\partial h_{t-1}} = \operatorname{diag}(1 - h_t^2)\, W_{hh}

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,), optional

    Returns
    -------
    Tensor, shape (H, H)

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    Pascanu, Mikolov and Bengio (2013), section 2; PyTorch's ``torch.nn.RNN`` documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import rnn_step_jacobian
    >>> rnn_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(2, 1), 0.5 * torch.eye(2))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    check_step(1, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)
    x_part = input_projection(x_t[None], weight_ih, bias_ih, bias_hh, "RNN_TANH")  # (1, H)
    h_t = rnn_step(x_part, h_prev[None], weight_hh, "tanh")[0]  # (H,), by rnndoc.layers.steps.rnn_step
    return (1 - h_t**2)[:, None] * weight_hh  # (H, H): diag(1 - h_t^2) W_hh


def lstm_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    c_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The LSTM's step Jacobian over its whole state, :math:`\partial (h_t, c_t) / \partial (h_{t-1}, c_{t-1})`.

    With the cell of :eq:`eq-lstm`, :math:`c_t = f_t \odot c_{t-1} + i_t \odot g_t`,
    :math:`h_t = o_t \odot \tanh c_t`, and :math:`W_{hi}, W_{hf}, W_{hg}, W_{ho}` the (H, H)
    blocks of ``weight_hh``; a gate's derivative is written out (:math:`\sigma(a)(1 - \sigma(a))`
    is :math:`f_t (1 - f_t)` for the forget gate, :math:`\tanh` gives :math:`1 - g_t^2`):

    .. math::

        \frac{\partial c_t}{\partial c_{t-1}} &= \operatorname{diag}(f_t),\\
        \frac{\partial c_t}{\partial h_{t-1}} &= \operatorname{diag}\bigl(c_{t-1} \odot f_t (1 - f_t)\bigr) W_{hf}
            + \operatorname{diag}\bigl(g_t \odot i_t (1 - i_t)\bigr) W_{hi}\\
            &\quad + \operatorname{diag}\bigl(i_t \odot (1 - g_t^2)\bigr) W_{hg},\\
        \frac{\partial h_t}{\partial c_{t-1}} &= D_t \operatorname{diag}(f_t),\\
        \frac{\partial h_t}{\partial h_{t-1}} &= \operatorname{diag}\bigl(\tanh c_t \odot o_t (1 - o_t)\bigr) W_{ho}
            + D_t \frac{\partial c_t}{\partial h_{t-1}},\\
        D_t &= \operatorname{diag}\bigl(o_t \odot (1 - \tanh^2 c_t)\bigr)

    These are the blocks of :math:`J_k` in :eq:`eq-full-state-jacobian`; the gates come from
    :func:`rnndoc.layers.steps.lstm_step`.

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev, c_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (4H, H_in)
        Blocks ``i, f, g, o``, as ``weight_ih_l0`` of ``torch.nn.LSTM``.
    weight_hh : Tensor, shape (4H, H)
    bias_ih, bias_hh : Tensor, shape (4H,), optional

    Returns
    -------
    Tensor, shape (2H, 2H)
        The blocks :math:`\begin{bmatrix} \partial h_t/\partial h_{t-1} & \partial h_t/\partial c_{t-1}
        \\ \partial c_t/\partial h_{t-1} & \partial c_t/\partial c_{t-1} \end{bmatrix}`.

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    A NaN or an infinity reaches every entry that depends on it; the zeros off the diagonals
    of the two :math:`c_{t-1}` blocks are structural and stay zero (autograd, multiplying by
    zero there, gives NaN).
    The cell of PyTorch's ``torch.nn.LSTM`` documentation (no projection); the forget gate is
    Gers, Schmidhuber and Cummins (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import lstm_step_jacobian
    >>> J = lstm_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(2),
    ...                        torch.zeros(8, 1), torch.zeros(8, 2))
    >>> J[2:, 2:]  # dc_t/dc_(t-1) = diag(f_t), and f_t = sigmoid(0) = 1/2
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    size = check_step(4, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh, c_prev)
    _, _, (i, f, g, o, tanh_c) = _unbatched_lstm_step(
        x_t, h_prev, c_prev, weight_ih, weight_hh, bias_ih, bias_hh
    )
    w_i, w_f, w_g, w_o = weight_hh.split(size)  # (H, H) each
    dc_dh = (
        (c_prev * f * (1 - f))[:, None] * w_f
        + (g * i * (1 - i))[:, None] * w_i
        + (i * (1 - g**2))[:, None] * w_g
    )  # (H, H)
    dc_dc = torch.diag(f)  # (H, H)
    d = o * (1 - tanh_c**2)  # (H,): the diagonal of D_t = dh_t/dc_t
    dh_dh = (tanh_c * o * (1 - o))[:, None] * w_o + d[:, None] * dc_dh  # (H, H)
    dh_dc = torch.diag(d * f)  # (H, H)
    return torch.cat([torch.cat([dh_dh, dh_dc], dim=1), torch.cat([dc_dh, dc_dc], dim=1)])  # (2H, 2H)


def gru_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The GRU's step Jacobian :math:`\partial h_t / \partial h_{t-1}` (PyTorch's GRU, gates r, z, n).

    With the cell of :eq:`eq-gru`, :math:`h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}`,
    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot q_t)` and
    :math:`q_t = W_{hn} h_{t-1} + b_{hn}` (as in :eq:`eq-gru-rows`), the gates' derivatives
    written out (:math:`z_t (1 - z_t)` for :math:`\sigma`):

    .. math::

        \frac{\partial h_t}{\partial h_{t-1}} &= \operatorname{diag}(z_t)
            + \operatorname{diag}\bigl((h_{t-1} - n_t) \odot z_t (1 - z_t)\bigr) W_{hz}\\
            &\quad + \operatorname{diag}\bigl((1 - z_t) \odot (1 - n_t^2)\bigr)\, M_t,\\
        M_t &= \operatorname{diag}(r_t) W_{hn}
            + \operatorname{diag}\bigl(q_t \odot r_t (1 - r_t)\bigr) W_{hr}

    (:math:`M_t` is the derivative of the candidate's pre-activation; the gates come from
    :func:`rnndoc.layers.steps.gru_step`.)
    The first term is the additive path: :math:`z_t \odot h_{t-1}` passes the old state on,
    scaled by the update gate, as :math:`f_t \odot c_{t-1}` does in the LSTM.

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (3H, H_in)
        Blocks ``r, z, n``, as ``weight_ih_l0`` of ``torch.nn.GRU``.
    weight_hh : Tensor, shape (3H, H)
    bias_ih, bias_hh : Tensor, shape (3H,), optional

    Returns
    -------
    Tensor, shape (H, H)

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import gru_step_jacobian
    >>> gru_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(6, 1), torch.zeros(6, 2))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    size = check_step(3, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)
    _, (r, z, n, q) = _unbatched_gru_step(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)  # (H,) each
    w_r, w_z, w_n = weight_hh.split(size)  # (H, H) each
    m = r[:, None] * w_n + (q * r * (1 - r))[:, None] * w_r  # (H, H): M_t, d(pre-activation of n)/dh
    return (
        torch.diag(z) + ((h_prev - n) * z * (1 - z))[:, None] * w_z + ((1 - z) * (1 - n**2))[:, None] * m
    )  # (H, H)
