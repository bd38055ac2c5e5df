r"""One time step of each PyTorch recurrent cell, in PyTorch's row form.

Batched tensors are (N, features); the gate blocks of the stacked weights are in
PyTorch's order: LSTM ``i, f, g, o`` and GRU ``r, z, n``. Each public function is one
cell's equations (``torch.nn.RNNCell``, ``torch.nn.LSTMCell``, ``torch.nn.GRUCell``
documentation). Each is built from two pieces that :mod:`rnndoc.layers.stack` also uses for
a whole sequence: :func:`rnndoc.layers.cells.input_part` (everything that does not depend on
h, one matrix product for all steps) and a ``*_step`` helper (the recurrent product and the
gates).
"""

from __future__ import annotations

import torch

from .._validate import check_same_dtype, check_tensor

__all__ = [
    "gru_bias_hn",
    "gru_cell",
    "gru_step",
    "input_part",
    "lstm_cell",
    "lstm_step",
    "rnn_cell",
    "rnn_step",
]

_ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}


def input_part(x: torch.Tensor, weight_ih: torch.Tensor, bias_ih, bias_hh, mode: str) -> torch.Tensor:
    r"""The part of every gate that does not depend on h: :math:`x W_{ih}^\top` plus the biases.

    ``x`` is (..., H_in); the result is (..., G*H). Both biases are folded in, except the GRU's
    :math:`b_{hn}`, which sits inside :math:`r \odot (h W_{hn}^\top + b_{hn})` and stays in
    :func:`gru_step`. For a whole sequence this is one matrix product.

    Parameters
    ----------
    x : Tensor, shape (..., H_in)
    weight_ih : Tensor, shape (G*H, H_in)
    bias_ih, bias_hh : Tensor, shape (G*H,), or None
    mode : {"RNN_TANH", "RNN_RELU", "RNN", "LSTM", "GRU"}

    Returns
    -------
    Tensor, shape (..., G*H)

    Notes
    -----
    Unchecked (called after validation). PyTorch's recurrent-layer documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.cells import input_part
    >>> input_part(torch.ones(5, 2, 3), torch.ones(6, 3), None, torch.ones(6), "GRU")[0, 0]
    tensor([4., 4., 4., 4., 3., 3.])
    """
    bias = None
    for b in (bias_ih, bias_hh if mode != "GRU" else _gru_rz(bias_hh)):
        if b is not None:
            bias = b if bias is None else bias + b  # (G*H,)
    flat = x.reshape(-1, x.shape[-1])  # (L*N, H_in)
    part = flat @ weight_ih.T if bias is None else torch.addmm(bias, flat, weight_ih.T)  # (L*N, G*H)
    return part.view(*x.shape[:-1], weight_ih.shape[0])  # (..., G*H)


def _gru_rz(bias_hh: torch.Tensor | None) -> torch.Tensor | None:
    """b_hh with its n block zeroed: b_hr and b_hz can be added to the input part, b_hn cannot."""
    if bias_hh is None:
        return None
    hidden_size = bias_hh.shape[0] // 3
    return torch.cat([bias_hh[: 2 * hidden_size], bias_hh.new_zeros(hidden_size)])  # (3H,)


def gru_bias_hn(bias_hh: torch.Tensor | None) -> torch.Tensor | None:
    """The GRU's :math:`b_{hn}`, the last third of ``bias_hh``.

    Parameters
    ----------
    bias_hh : Tensor, shape (3H,), or None

    Returns
    -------
    Tensor, shape (H,), or None without biases

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.cells import gru_bias_hn
    >>> gru_bias_hn(torch.arange(6.0))
    tensor([4., 5.])
    """
    return None if bias_hh is None else bias_hh[2 * (bias_hh.shape[0] // 3) :]


def rnn_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, nonlinearity: str
) -> torch.Tensor:
    r"""One Elman step from the precomputed input part: :math:`h' = \phi(x_{part} + h W_{hh}^\top)`.

    Parameters
    ----------
    x_part : Tensor, shape (N, H)
        :math:`x W_{ih}^\top + b_{ih} + b_{hh}` from :func:`input_part`.
    h : Tensor, shape (N, H)
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}

    Returns
    -------
    Tensor, shape (N, H)

    Notes
    -----
    Unchecked (a hot loop): :func:`rnndoc.layers.rnn_cell` and :func:`rnndoc.layers.forward`
    validate their arguments first. PyTorch's ``torch.nn.RNNCell`` documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.cells import rnn_step
    >>> rnn_step(torch.zeros(1, 2), torch.ones(1, 2), torch.eye(2), "relu")
    tensor([[1., 1.]])
    """
    return _ACTIVATIONS[nonlinearity](torch.addmm(x_part, h, weight_hh.T))  # (N, H)


def lstm_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    weight_hh: torch.Tensor,
    weight_hr: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""One LSTM step from the precomputed input part (gate blocks i, f, g, o).

    .. math:: c' = f \odot c + i \odot g,\qquad h' = (o \odot \tanh c')\, W_{hr}^\top\ (\text{with } W_{hr})

    Parameters
    ----------
    x_part : Tensor, shape (N, 4H)
        :math:`x W_{ih}^\top + b_{ih} + b_{hh}` from :func:`input_part`.
    h : Tensor, shape (N, H_out)
    c : Tensor, shape (N, H)
    weight_hh : Tensor, shape (4H, H_out)
    weight_hr : Tensor, shape (P, H), or None

    Returns
    -------
    tuple (h', c') of Tensor, shapes (N, H_out) and (N, H)

    Notes
    -----
    Unchecked (a hot loop); the sigmoid is taken of all four blocks at once and the g block's is
    discarded, which is cheaper than slicing first. PyTorch's ``torch.nn.LSTM`` documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.cells import lstm_step
    >>> h, c = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), torch.zeros(8, 2), None)
    >>> c  # f = sigmoid(0) = 1/2 keeps half of c; g = tanh(0) = 0 adds nothing
    tensor([[0.5000, 0.5000]])
    """
    gates = torch.addmm(x_part, h, weight_hh.T)  # (N, 4H)
    hidden_size = c.shape[1]
    i, f, _, o = torch.sigmoid(gates).chunk(4, dim=1)  # each (N, H); the g block is unused
    g = torch.tanh(gates[:, 2 * hidden_size : 3 * hidden_size])  # (N, H)
    c_next = torch.addcmul(f * c, i, g)  # (N, H): c' = f * c + i * g
    h_next = o * torch.tanh(c_next)  # (N, H): h' = o * tanh(c')
    if weight_hr is not None:
        h_next = h_next @ weight_hr.T  # (N, P): the projection, applied at every step
    return h_next, c_next


def gru_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, bias_hn: torch.Tensor | None
) -> torch.Tensor:
    r"""One GRU step from the precomputed input part (PyTorch's form, gate blocks r, z, n).

    .. math:: n = \tanh(x_n + r \odot (h W_{hn}^\top + b_{hn})),\qquad h' = (1 - z) \odot n + z \odot h

    Parameters
    ----------
    x_part : Tensor, shape (N, 3H)
        :math:`x W_{ih}^\top + b_{ih} + (b_{hr}, b_{hz}, 0)` from :func:`input_part`.
    h : Tensor, shape (N, H)
    weight_hh : Tensor, shape (3H, H)
    bias_hn : Tensor, shape (H,), or None

    Returns
    -------
    Tensor, shape (N, H)

    Notes
    -----
    Unchecked (a hot loop). PyTorch's ``torch.nn.GRU`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.cells import gru_step
    >>> gru_step(torch.zeros(1, 6), torch.ones(1, 2), torch.zeros(6, 2), None)  # z = 1/2, n = 0
    tensor([[0.5000, 0.5000]])
    """
    hidden_size = h.shape[1]
    hh = h @ weight_hh.T  # (N, 3H)
    hh_n = hh[:, 2 * hidden_size :] if bias_hn is None else hh[:, 2 * hidden_size :] + bias_hn  # (N, H)
    rz = torch.sigmoid(x_part[:, : 2 * hidden_size] + hh[:, : 2 * hidden_size])  # (N, 2H)
    r, z = rz[:, :hidden_size], rz[:, hidden_size:]  # each (N, H)
    n = torch.tanh(torch.addcmul(x_part[:, 2 * hidden_size :], r, hh_n))  # (N, H): tanh(x_n + r * hh_n)
    return torch.addcmul(n, z, h - n)  # (N, H): (1 - z) * n + z * h


def _as_batch(name: str, value: object, size: int, unbatched: bool, what: str) -> torch.Tensor:
    """Check a cell argument in the caller's layout ((N, size), or (size,) unbatched); return (N, size)."""
    if unbatched:
        return check_tensor(name, value, (size,), f"({what},) for unbatched input").unsqueeze(0)  # (1, size)
    return check_tensor(name, value, (None, size), f"(N, {what})")  # (N, size)


def _cell_args(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates: int, out_size: int | None = None):
    check_tensor("weight_ih", weight_ih, (None, None), "(G*H, H_in)")
    rows, input_size = weight_ih.shape
    if rows % gates:
        raise ValueError(f"weight_ih must have a multiple of {gates} rows (the gate blocks), got {rows}")
    hidden_size = rows // gates
    h_size = hidden_size if out_size is None else out_size
    if not isinstance(input, torch.Tensor) or input.dim() not in (1, 2):
        got = tuple(input.shape) if isinstance(input, torch.Tensor) else type(input).__name__
        raise ValueError(f"input must have shape (N, H_in) or (H_in,) with H_in = {input_size}, got {got}")
    unbatched = input.dim() == 1
    x = _as_batch("input", input, input_size, unbatched, "H_in")  # (N, H_in)
    h = _as_batch("hx", hx, h_size, unbatched, "H_out")  # (N, H_out)
    if h.shape[0] != x.shape[0]:
        raise ValueError(f"hx must have shape (N, H_out) = ({x.shape[0]}, {h_size}), got {tuple(hx.shape)}")
    check_tensor("weight_hh", weight_hh, (rows, h_size), "(G*H, H_out)")
    tensors = {"input": x, "hx": h, "weight_ih": weight_ih, "weight_hh": weight_hh}
    for name, bias in (("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if bias is not None:
            tensors[name] = check_tensor(name, bias, (rows,), "(G*H,)")
    check_same_dtype(**tensors)
    return x, h, unbatched, hidden_size


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
        shape), or ``nonlinearity`` is unknown.

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
    if nonlinearity not in _ACTIVATIONS:
        raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
    x, h, unbatched, _ = _cell_args(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates=1)
    h_next = rnn_step(input_part(x, weight_ih, bias_ih, bias_hh, "RNN"), h, weight_hh, nonlinearity)  # (N, H)
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

        i &= \sigma(x W_{ii}^\top + b_{ii} + h W_{hi}^\top + b_{hi}),\quad
        f = \sigma(x W_{if}^\top + b_{if} + h W_{hf}^\top + b_{hf}),\\
        g &= \tanh(x W_{ig}^\top + b_{ig} + h W_{hg}^\top + b_{hg}),\quad
        o = \sigma(x W_{io}^\top + b_{io} + h W_{ho}^\top + b_{ho}),\\
        c' &= f \odot c + i \odot g,\qquad h' = (o \odot \tanh c')\, W_{hr}^\top
        \ (\text{projection only with } W_{hr})

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
        The LSTMP projection (Sak et al. 2014).

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
        If a shape disagrees; the message names the argument, the expected and the actual
        shape.

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
    x, h2, unbatched, hidden_size = _cell_args(input, h, weight_ih, weight_hh, bias_ih, bias_hh, 4, out_size)
    c2 = _as_batch("c", c, hidden_size, unbatched, "H")  # (N, H)
    if c2.shape[0] != x.shape[0]:
        raise ValueError(f"c must have shape (N, H) = ({x.shape[0]}, {hidden_size}), got {tuple(c.shape)}")
    if weight_hr is not None:
        check_tensor("weight_hr", weight_hr, (out_size, hidden_size), "(P, H)")
        check_same_dtype(input=x, weight_hr=weight_hr)
    check_same_dtype(input=x, c=c2)
    x_part = input_part(x, weight_ih, bias_ih, bias_hh, "LSTM")  # (N, 4H)
    h_next, c_next = lstm_step(x_part, h2, c2, weight_hh, weight_hr)
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

        r &= \sigma(x W_{ir}^\top + b_{ir} + h W_{hr}^\top + b_{hr}),\quad
        z = \sigma(x W_{iz}^\top + b_{iz} + h W_{hz}^\top + b_{hz}),\\
        n &= \tanh(x W_{in}^\top + b_{in} + r \odot (h W_{hn}^\top + b_{hn})),\qquad
        h' = (1 - z) \odot n + z \odot h

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
        If an argument is not a floating tensor, or the dtypes differ.
    ValueError
        If a shape disagrees; the message names the argument, the expected and the actual
        shape.

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
    x, h, unbatched, hidden_size = _cell_args(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates=3)
    x_part = input_part(x, weight_ih, bias_ih, bias_hh, "GRU")  # (N, 3H)
    if reset_after:
        h_next = gru_step(x_part, h, weight_hh, gru_bias_hn(bias_hh))  # (N, H)
    else:  # Cho et al. (2014): n = tanh(x W_in^T + b_in + (r * h) W_hn^T + b_hn)
        w_rz, w_n = weight_hh[: 2 * hidden_size], weight_hh[2 * hidden_size :]  # (2H, H), (H, H)
        r, z = torch.sigmoid(torch.addmm(x_part[:, : 2 * hidden_size], h, w_rz.T)).chunk(
            2, dim=1
        )  # (N, H) each
        n_part = x_part[:, 2 * hidden_size :] + (r * h) @ w_n.T  # (N, H)
        n = torch.tanh(n_part if bias_hh is None else n_part + gru_bias_hn(bias_hh))  # (N, H)
        h_next = torch.addcmul(n, z, h - n)  # (N, H): (1 - z) * n + z * h
    return h_next.squeeze(0) if unbatched else h_next
