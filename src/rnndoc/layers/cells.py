r"""The three ``torch.nn`` cells as functions: ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Each checks a cell's arguments (batched (N, H_in) or unbatched (H_in,)), computes the input
projection with :func:`~rnndoc.layers.input_projection`, and takes one step of its kind
(:func:`~rnndoc.layers.rnn_step`, :func:`~rnndoc.layers.lstm_step`,
:func:`~rnndoc.layers.gru_step`). ``gru_cell(reset_after=False)`` also computes the candidate
of Cho et al. (2014), which no torch module computes.
"""

from __future__ import annotations

import torch

from .._validate import check_choice, check_same_device, check_same_dtype, check_tensor
from .gru import gru_bias_hn, gru_step
from .lstm import check_lstm_shapes, lstm_step
from .rnn import rnn_step
from .shared import _as_batch, check_cell_arguments, input_projection

__all__ = ["gru_cell", "lstm_cell", "rnn_cell"]


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
    check_choice("nonlinearity", nonlinearity, ("tanh", "relu"))
    x, h, unbatched, _ = check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates=1)
    x_part = input_projection(x, weight_ih, bias_ih, bias_hh, "RNN_TANH")  # (N, H)
    h_next = rnn_step(x_part, h, weight_hh, nonlinearity)  # (N, H)
    return h_next.squeeze(0) if unbatched else h_next


def lstm_cell(
    input: torch.Tensor,
    hx: tuple[torch.Tensor, torch.Tensor],
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
    weight_hr: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One step of ``torch.nn.LSTMCell`` (and of an ``nn.LSTM`` layer with ``proj_size``).

    .. math::

        \begin{aligned}
        i &= \sigma(x W_{ii}^\top + b_{ii} + h W_{hi}^\top + b_{hi}), \\
        f &= \sigma(x W_{if}^\top + b_{if} + h W_{hf}^\top + b_{hf}), \\
        g &= \tanh(x W_{ig}^\top + b_{ig} + h W_{hg}^\top + b_{hg}), \\
        o &= \sigma(x W_{io}^\top + b_{io} + h W_{ho}^\top + b_{ho}), \\
        c' &= f \odot c + i \odot g, \\
        h' &= (o \odot \tanh c')\, W_p^\top\ (\text{projection only with } W_p)
        \end{aligned}

    Parameters
    ----------
    input : Tensor, shape (N, H_in) or (H_in,)
    hx : tuple (h, c)
        ``h`` of shape (N, H_out) and ``c`` of shape (N, H) (unbatched: no N); H_out is
        ``proj_size`` with a projection, else H.
    weight_ih : Tensor, shape (4H, H_in)
        Blocks ``i, f, g, o``.
    weight_hh : Tensor, shape (4H, H_out)
    bias_ih, bias_hh : Tensor, shape (4H,), optional
    weight_hr : Tensor, shape (proj_size, H), optional
        The LSTMP projection :math:`W_p` (Sak et al. 2014), PyTorch's ``weight_hr_l{k}``.

    Returns
    -------
    tuple (h', c')
        Shapes as ``hx``.

    Raises
    ------
    TypeError
        If ``hx`` is not a pair of tensors, an argument is not a floating tensor, or the
        dtypes differ.
    ValueError
        If a shape disagrees (the message names the argument, the expected and the actual
        shape), or the tensors are on different devices.

    Notes
    -----
    PyTorch's ``torch.nn.LSTMCell`` and ``torch.nn.LSTM`` documentation; Hochreiter and
    Schmidhuber (1997), with the forget gate of Gers et al. (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import lstm_cell
    >>> h, c = lstm_cell(torch.ones(3), (torch.zeros(2), torch.zeros(2)), torch.ones(8, 3), torch.ones(8, 2))
    >>> h.shape, c.shape
    (torch.Size([2]), torch.Size([2]))
    """
    if not (isinstance(hx, tuple | list) and len(hx) == 2):
        raise TypeError(f"hx must be a pair (h, c) of tensors, got {type(hx).__name__}")
    h, c = hx
    out_size = (
        None if weight_hr is None else check_tensor("weight_hr", weight_hr, (None, None), "(P, H)").shape[0]
    )
    x, h2, unbatched, hidden_size = check_cell_arguments(
        input, h, weight_ih, weight_hh, bias_ih, bias_hh, 4, out_size
    )
    c2 = _as_batch("hx[1] (c)", c, hidden_size, unbatched, "H")  # (N, H)
    check_same_dtype(input=x, **{"hx[1] (c)": c2}, **({} if weight_hr is None else {"weight_hr": weight_hr}))
    check_same_device("input", x, **{"hx[1] (c)": c2}, weight_hr=weight_hr)
    check_lstm_shapes(
        **{"hx[0] (h)": (h2, "N,H_out"), "hx[1] (c)": (c2, "N,H")},
        weight_hh=(weight_hh, "4H,H_out"),
        weight_hr=(weight_hr, "H_out,H"),
    )
    x_part = input_projection(x, weight_ih, bias_ih, bias_hh, "LSTM")  # (N, 4H)
    h_next, c_next, _ = lstm_step(x_part, h2, c2, weight_hh, weight_hr)  # (N, H_out), (N, H)
    return (h_next.squeeze(0), c_next.squeeze(0)) if unbatched else (h_next, c_next)


def gru_cell(
    input: torch.Tensor,
    hx: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
    reset_after: bool = True,
) -> torch.Tensor:
    r"""One step of ``torch.nn.GRUCell``.

    .. math::

        \begin{aligned}
        r &= \sigma(x W_{ir}^\top + b_{ir} + h W_{hr}^\top + b_{hr}), \\
        z &= \sigma(x W_{iz}^\top + b_{iz} + h W_{hz}^\top + b_{hz}), \\
        n &= \tanh(x W_{in}^\top + b_{in} + r \odot (h W_{hn}^\top + b_{hn})), \\
        h' &= (1 - z) \odot n + z \odot h
        \end{aligned}

    Note that :math:`b_{hn}` sits inside the product with :math:`r`, as in PyTorch. With
    ``reset_after=False`` the candidate is the form of Cho et al. (2014), where the reset
    gate acts on :math:`h` before the product (the name is Keras's):

    .. math:: n = \tanh(x W_{in}^\top + b_{in} + (r \odot h) W_{hn}^\top + b_{hn})

    Parameters
    ----------
    input : Tensor, shape (N, H_in) or (H_in,)
    hx : Tensor, shape (N, H) or (H,)
    weight_ih : Tensor, shape (3H, H_in)
        Blocks ``r, z, n``.
    weight_hh : Tensor, shape (3H, H)
    bias_ih, bias_hh : Tensor, shape (3H,), optional
    reset_after : bool, default True
        True: PyTorch's candidate; False: Cho et al.'s.

    Returns
    -------
    Tensor, shape as ``hx``

    Raises
    ------
    TypeError
        If an argument is not a floating tensor, the dtypes differ, or ``reset_after`` is not
        a bool.
    ValueError
        If a shape disagrees (the message names the argument, the expected and the actual
        shape), or the tensors are on different devices.

    Notes
    -----
    PyTorch's ``torch.nn.GRUCell`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import gru_cell
    >>> gru_cell(torch.ones(2, 3), torch.zeros(2, 4), torch.ones(12, 3), torch.ones(12, 4)).shape
    torch.Size([2, 4])
    """
    if not isinstance(reset_after, bool):
        raise TypeError(f"reset_after must be a bool, got {type(reset_after).__name__}")
    x, h, unbatched, hidden_size = check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, 3)
    x_part = input_projection(x, weight_ih, bias_ih, bias_hh, "GRU")  # (N, 3H)
    if reset_after:
        h_next, _ = gru_step(x_part, h, weight_hh, gru_bias_hn(bias_hh))  # (N, H)
    else:  # Cho et al. (2014): n = tanh(x W_in^T + b_in + (r * h) W_hn^T + b_hn)
        w_rz, w_n = weight_hh[: 2 * hidden_size], weight_hh[2 * hidden_size :]  # (2H, H), (H, H)
        r, z = torch.sigmoid(torch.addmm(x_part[:, : 2 * hidden_size], h, w_rz.T)).chunk(2, dim=1)  # (N, H)
        n_part = x_part[:, 2 * hidden_size :] + (r * h) @ w_n.T  # (N, H)
        n = torch.tanh(n_part if bias_hh is None else n_part + gru_bias_hn(bias_hh))  # (N, H)
        h_next = torch.addcmul(n, z, h - n)  # (N, H): (1 - z) * n + z * h
    return h_next.squeeze(0) if unbatched else h_next
