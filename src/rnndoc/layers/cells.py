r"""One step, from the caller's tensors, checked: the three ``torch.nn`` cells, and the steps.

The cells (:func:`rnndoc.layers.rnn_cell`, :func:`~rnndoc.layers.lstm_cell`,
:func:`~rnndoc.layers.gru_cell`) take one step from the input, batched (N, H_in) or
unbatched (H_in,), as ``nn.RNNCell``, ``nn.LSTMCell`` and ``nn.GRUCell`` do. The steps
(:func:`rnndoc.layers.rnn_step`, :func:`~rnndoc.layers.lstm_step`,
:func:`~rnndoc.layers.gru_step`, their backward, :func:`~rnndoc.layers.input_projection`,
:func:`~rnndoc.layers.gru_bias_hn`) are the front door to the maths of
:mod:`rnndoc.layers.steps` for a chapter's own loop: each checks its arguments
(:mod:`rnndoc.layers.checks`), then runs the function of the same name there, which the
sweeps call unchecked. ``gru_cell(reset_after=False)`` computes the candidate of Cho et al.
(2014), which no torch module computes.
"""

from __future__ import annotations

import torch

from .._validate import check_bool, check_choice, check_same_device, check_same_dtype
from . import checks, steps

__all__ = [
    "gru_bias_hn",
    "gru_cell",
    "gru_step",
    "gru_step_backward",
    "input_projection",
    "lstm_cell",
    "lstm_step",
    "lstm_step_backward",
    "rnn_cell",
    "rnn_step",
    "rnn_step_backward",
]

_LSTM_SAVED = ("i", "f", "g", "o", "c_prev", "tanh_c")  # c_prev: c_(t-1), as lstm_step saves it
_GRU_SAVED = ("h", "r", "z", "n", "q")


def input_projection(x: torch.Tensor, weight_ih: torch.Tensor, bias_ih, bias_hh, mode: str) -> torch.Tensor:
    r"""The part of every gate that does not depend on h: :math:`x W_{ih}^\top + b_{ih} + b_{hh}`.

    The :math:`x_t` part of :eq:`eq-lstm-rows` and :eq:`eq-gru-rows`, checked, then computed by
    :func:`rnndoc.layers.steps.input_projection`. Both biases are folded in, except the GRU's
    :math:`b_{hn}`, which sits inside :math:`r \odot (h W_{hn}^\top + b_{hn})` and stays in
    :func:`gru_step`. For a whole sequence this is one matrix product.

    Parameters
    ----------
    x : Tensor, shape (..., H_in)
    weight_ih : Tensor, shape (G*H, H_in)
        G gate blocks: 1 (RNN), 4 (LSTM), 3 (GRU).
    bias_ih, bias_hh : Tensor, shape (G*H,), or None
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
        Only ``"GRU"`` changes the result (its :math:`b_{hn}` is left out).

    Returns
    -------
    Tensor, shape (..., G*H)
        Dtype as the matrix product gives it (``x``'s, or the autocast dtype).

    Raises
    ------
    TypeError, ValueError
        If ``mode`` is unknown, an argument is not a floating tensor, or a shape disagrees
        (the message names the argument).

    Notes
    -----
    PyTorch's recurrent-layer documentation (``torch.nn.RNN``, ``torch.nn.LSTM``, ``torch.nn.GRU``).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import input_projection
    >>> input_projection(torch.ones(5, 2, 3), torch.ones(6, 3), None, torch.ones(6), "GRU")[0, 0]
    tensor([4., 4., 4., 4., 3., 3.])
    """
    checks.check_projection_input(x, weight_ih, bias_ih, bias_hh, mode)
    return steps.input_projection(x, weight_ih, bias_ih, bias_hh, mode)  # (..., G*H)


def rnn_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, nonlinearity: str
) -> torch.Tensor:
    r"""One Elman step from the precomputed input projection: :math:`h_t = \phi(a_t)`.

    :math:`a_t = x_{part} + h_{t-1} W_{hh}^\top`, the recurrence of :eq:`eq-rnn-forward` in
    row form, checked, then computed by :func:`rnndoc.layers.steps.rnn_step`.

    Parameters
    ----------
    x_part : Tensor, shape (N, H)
        :math:`x_t W_{ih}^\top + b_{ih} + b_{hh}` from :func:`rnndoc.layers.input_projection`.
    h : Tensor, shape (N, H)
        :math:`h_{t-1}`.
    weight_hh : Tensor, shape (H, H)
    nonlinearity : {"tanh", "relu"}
        :math:`\phi`.

    Returns
    -------
    Tensor, shape (N, H)
        :math:`h_t`; it is also all that :func:`rnn_step_backward` needs.

    Raises
    ------
    TypeError, ValueError
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Dtypes may mix only under ``torch.autocast``, which casts them. PyTorch's
    ``torch.nn.RNNCell`` documentation; Elman (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import rnn_step
    >>> rnn_step(torch.zeros(1, 2), torch.ones(1, 2), torch.eye(2), "relu")
    tensor([[1., 1.]])
    """
    check_choice("nonlinearity", nonlinearity, steps.ACTIVATIONS)
    checks.check_shapes(x_part=(x_part, "N,H"), h=(h, "N,H"), weight_hh=(weight_hh, "H,H"))
    return steps.rnn_step(x_part, h, weight_hh, nonlinearity)  # (N, H)


def rnn_step_backward(
    dh_next: torch.Tensor, h_next: torch.Tensor, weight_hh: torch.Tensor, nonlinearity: str
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`rnn_step`: from :math:`\delta h_t` to the step's inputs.

    The book's BPTT recursion, one step, batched (:eq:`eq-delta`; :eq:`eq-h0-grad` at t = 1),
    checked, then computed by :func:`rnndoc.layers.steps.rnn_step_backward`:
    :math:`\delta h_t = \partial \mathcal{L}/\partial h_t` is the total derivative by the
    step's output, :math:`\delta_t = \delta h_t \odot \phi'(a_t)` the derivative by its
    pre-activation, and :math:`\delta_t W_{hh}` the derivative by :math:`h_{t-1}` through
    step t. The caller adds :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}` to the second
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

    Returns
    -------
    delta : Tensor, shape (N, H)
        :math:`\delta_t = \partial \mathcal{L}/\partial a_t`, also the derivative by ``x_part``.
    dh : Tensor, shape (N, H)
        :math:`\delta_t W_{hh}`, the derivative by :math:`h_{t-1}` through step t.

    Raises
    ------
    TypeError, ValueError
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    The BPTT recursion of the book's BPTT chapter (:eq:`eq-delta`), batched; Werbos (1990).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import rnn_step_backward
    >>> delta, dh = rnn_step_backward(torch.ones(1, 2), torch.zeros(1, 2), 2 * torch.eye(2), "tanh")
    >>> delta, dh  # tanh'(0) = 1, then through W_hh = 2 I
    (tensor([[1., 1.]]), tensor([[2., 2.]]))
    """
    check_choice("nonlinearity", nonlinearity, steps.ACTIVATIONS)
    checks.check_shapes(dh_next=(dh_next, "N,H"), h_next=(h_next, "N,H"), weight_hh=(weight_hh, "H,H"))
    return steps.rnn_step_backward(dh_next, h_next, weight_hh, nonlinearity)  # (N, H), (N, H)


def lstm_step(
    x_part: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    weight_hh: torch.Tensor,
    weight_hr: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, ...]]:
    r"""One LSTM step from the precomputed input projection (:eq:`eq-lstm-rows`).

    Checked, then computed by :func:`rnndoc.layers.steps.lstm_step`: the gates from
    :math:`a_t = x_{part} + h_{t-1} W_{hh}^\top`, the cell :math:`c_t`, and :math:`h_t`, through
    the projection :math:`W_p` where one is given.

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
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    The sigmoid is taken of all four blocks at once and the g block's is discarded, which is
    cheaper than slicing first. PyTorch's ``torch.nn.LSTM`` documentation; Hochreiter and
    Schmidhuber (1997), forget gate of Gers et al. (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import lstm_step
    >>> h, c, _ = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), torch.zeros(8, 2), None)
    >>> c  # f_t = sigmoid(0) = 1/2 keeps half of c_(t-1); g_t = tanh(0) = 0 adds nothing
    tensor([[0.5000, 0.5000]])
    """
    checks.check_lstm_shapes(x_part=(x_part, "N,4H"), h=(h, "N,H_out"), c=(c, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
                             weight_hr=(weight_hr, "H_out,H?"))  # fmt: skip
    return steps.lstm_step(x_part, h, c, weight_hh, weight_hr)  # (N, H_out), (N, H), 6 x (N, H)


def lstm_step_backward(
    dh_next: torch.Tensor,
    dc_next: torch.Tensor,
    saved: tuple[torch.Tensor, ...],
    weight_hh: torch.Tensor,
    weight_hr: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`lstm_step`: the two deltas, for h and for c, through the gates.

    Step t of :eq:`eq-lstm-deltas` and :eq:`eq-lstm-gate-deltas`, checked, then computed by
    :func:`rnndoc.layers.steps.lstm_step_backward`. With the book's symbols,
    :math:`\delta X = \partial \mathcal{L}/\partial X` is the total derivative through every path
    to the loss; on a gate, :math:`\delta i_t` is the derivative by the gate's pre-activation
    (its block of :math:`a_t`), not by its value :math:`i_t`.

    What step t sends back to step t - 1 are the terms of :math:`\delta h_{t-1}` and
    :math:`\delta c_{t-1}` that pass through step t: :math:`\delta a_t W_{hh}` (in rows; the
    chapter's column form writes :math:`W_{hh}^\top \delta a_t`) and :math:`\delta c_t \odot f_t`. The caller adds :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}`
    to the first to make :math:`\delta h_{t-1}`, and passes the second on as ``dc_next`` of step
    t - 1; at t = 1 they are :math:`\partial \mathcal{L}/\partial h_0` and
    :math:`\partial \mathcal{L}/\partial c_0`. The weight gradients :math:`\sum_t \delta a_t^\top h_{t-1}`
    (:eq:`eq-lstm-weights`, in rows) and :math:`\sum_t \delta h_t^\top m_t` (the chapter's LSTMP
    section) are summed by the caller after the loop. The pair (``dh_next``, ``dc_next``) is the
    pair that arrives at step t in :eq:`eq-lstm-vjp`.

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
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    Graves (2012), *Supervised Sequence Labelling with Recurrent Neural Networks*, ch. 4,
    without peepholes; the gated-gradients chapter derives the same step Jacobians.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import lstm_step, lstm_step_backward
    >>> w_hh = torch.zeros(8, 2)
    >>> _, _, saved = lstm_step(torch.zeros(1, 8), torch.zeros(1, 2), torch.ones(1, 2), w_hh, None)
    >>> _, _, dc = lstm_step_backward(torch.zeros(1, 2), torch.ones(1, 2), saved, w_hh, None)
    >>> dc  # delta c_t * f_t, with delta c_t = dc_next = 1 and f_t = 1/2
    tensor([[0.5000, 0.5000]])
    """
    labels = checks.saved_labels(saved, _LSTM_SAVED, "lstm_step")
    checks.check_lstm_shapes(dh_next=(dh_next, "N,H_out"), dc_next=(dc_next, "N,H"), weight_hh=(weight_hh, "4H,H_out"),
                             weight_hr=(weight_hr, "H_out,H?"), **labels)  # fmt: skip
    return steps.lstm_step_backward(
        dh_next, dc_next, saved, weight_hh, weight_hr
    )  # (N, 4H), (N, H_out), (N, H)


def gru_bias_hn(bias_hh: torch.Tensor | None) -> torch.Tensor | None:
    r"""The GRU's :math:`b_{hn}`, the last third of ``bias_hh``.

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
    >>> from rnndoc.layers import gru_bias_hn
    >>> gru_bias_hn(torch.arange(6.0))
    tensor([4., 5.])
    """
    checks.check_gru_bias_hh(bias_hh)
    return steps.gru_bias_hn(bias_hh)  # (H,)


def gru_step(
    x_part: torch.Tensor, h: torch.Tensor, weight_hh: torch.Tensor, bias_hn: torch.Tensor | None
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]]:
    r"""One GRU step from the precomputed input projection (PyTorch's form, :eq:`eq-gru-rows`).

    Checked, then computed by :func:`rnndoc.layers.steps.gru_step`, with
    :math:`x_{part} = [x_r, x_z, x_n] = x_t W_{ih}^\top + b_{ih} + [b_{hr}, b_{hz}, 0]` and
    :math:`W_{hr}, W_{hz}, W_{hn}` the blocks of :math:`W_{hh}`; the candidate's recurrent part
    is :math:`q_t = h_{t-1} W_{hn}^\top + b_{hn}`.

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

    Returns
    -------
    h_next : Tensor, shape (N, H)
        :math:`h_t`.
    saved : tuple (h, r, z, n, q) of Tensor, each (N, H)
        :math:`(h_{t-1}, r_t, z_t, n_t, q_t)`, what :func:`gru_step_backward` reads.

    Raises
    ------
    TypeError, ValueError
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import gru_step
    >>> h, _ = gru_step(torch.zeros(1, 6), torch.ones(1, 2), torch.zeros(6, 2), None)  # z_t = 1/2, n_t = 0
    >>> h
    tensor([[0.5000, 0.5000]])
    """
    checks.check_shapes(
        x_part=(x_part, "N,3H"), h=(h, "N,H"), weight_hh=(weight_hh, "3H,H"), bias_hn=(bias_hn, "H?")
    )
    return steps.gru_step(x_part, h, weight_hh, bias_hn)  # (N, H), 5 x (N, H)


def gru_step_backward(
    dh_next: torch.Tensor, saved: tuple[torch.Tensor, ...], weight_hh: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Backward of :func:`gru_step`, with the reset gate visible on :math:`b_{hn}`'s path.

    Step t of :eq:`eq-gru-deltas` (:math:`\lambda_t` of :eq:`eq-gru-vjp`), checked, then
    computed by :func:`rnndoc.layers.steps.gru_step_backward`. With the book's symbols,
    :math:`\delta h_t` is the total derivative by the step's output, and :math:`\delta` on a
    gate (or on :math:`q_t`) the derivative by its pre-activation. The third return is the
    derivative by :math:`h_{t-1}` through step t only; the caller adds
    :math:`\partial \mathcal{L}/\partial\,\mathrm{output}_{t-1}` to make :math:`\delta h_{t-1}`
    (at t = 1 it is :math:`\partial \mathcal{L}/\partial h_0`). :math:`\delta q_t` is
    :math:`\delta n_t` scaled by :math:`r_t`: so are the gradients of :math:`W_{hn}` and
    :math:`b_{hn}`, which the caller sums after the loop (:eq:`eq-gru-weights`, :eq:`eq-gru-bhn`).

    Parameters
    ----------
    dh_next : Tensor, shape (N, H)
        :math:`\delta h_t`, the total derivative by this step's output :math:`h_t` (from
        :math:`\mathrm{output}_t` and from step t + 1); the book's :math:`\lambda_t`.
    saved : tuple (h, r, z, n, q) of Tensor, each (N, H)
        :math:`(h_{t-1}, r_t, z_t, n_t, q_t)`, as :func:`gru_step` returned it.
    weight_hh : Tensor, shape (3H, H)
        :math:`W_{hh}`, blocks r, z, n.

    Returns
    -------
    delta : Tensor, shape (N, 3H)
        :math:`[\delta r_t, \delta z_t, \delta n_t]`, the derivative by ``x_part``.
    delta_q : Tensor, shape (N, H)
        :math:`\delta q_t = \partial \mathcal{L}/\partial q_t`.
    dh : Tensor, shape (N, H)
        :math:`\partial \mathcal{L}/\partial h_{t-1}` through step t:
        :math:`\delta h_t \odot z_t + [\delta r_t, \delta z_t, \delta q_t]\, W_{hh}`.

    Raises
    ------
    TypeError, ValueError
        A non-tensor or non-floating argument, or a shape that disagrees
        (the message names the argument, the expected shape with its axis names, the actual one).

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation for the forward; the gated-gradients chapter
    derives the r-scaling of :math:`b_{hn}`'s gradient symbolically.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import gru_step, gru_step_backward
    >>> w_hh = torch.zeros(6, 2)
    >>> _, saved = gru_step(torch.zeros(1, 6), torch.ones(1, 2), w_hh, None)
    >>> _, _, dh = gru_step_backward(torch.ones(1, 2), saved, w_hh)
    >>> dh  # only the direct path delta h_t * z_t remains when W_hh = 0: z_t = 1/2
    tensor([[0.5000, 0.5000]])
    """
    labels = checks.saved_labels(saved, _GRU_SAVED, "gru_step")
    checks.check_shapes(dh_next=(dh_next, "N,H"), weight_hh=(weight_hh, "3H,H"), **labels)
    return steps.gru_step_backward(dh_next, saved, weight_hh)  # (N, 3H), (N, H), (N, H)


def rnn_cell(
    input: torch.Tensor,
    hx: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
    nonlinearity: str = "tanh",
) -> torch.Tensor:
    r"""One step of ``torch.nn.RNNCell``: :math:`h' = \tanh(x W_{ih}^\top + b_{ih} + h W_{hh}^\top + b_{hh})` (or ReLU).

    The recurrence of :eq:`eq-rnn-forward` in row form, batched or not: the input projection,
    then :func:`rnndoc.layers.steps.rnn_step`.

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
    x, h, unbatched, _ = checks.check_cell_arguments(
        input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates=1
    )
    x_part = steps.input_projection(x, weight_ih, bias_ih, bias_hh, "RNN_TANH")  # (N, H)
    h_next = steps.rnn_step(x_part, h, weight_hh, nonlinearity)  # (N, H)
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

    The cell of :eq:`eq-lstm` in PyTorch's row form: the gates i, f, g, o from the input and
    h, the cell state :math:`c' = f \odot c + i \odot g`, and :math:`h' = o \odot \tanh c'`,
    projected by :math:`W_p` where given; the input projection, then
    :func:`rnndoc.layers.steps.lstm_step`.

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
    checks.check_pair("hx", hx, "(h, c)", optional=False)
    h, c = hx
    # P, checked before hx is read
    out_size = (
        None if weight_hr is None else checks.check_lstm_cell_projection(weight_hr, weight_ih, weight_hh)
    )
    x, h2, unbatched, hidden_size = checks.check_cell_arguments(
        input, h, weight_ih, weight_hh, bias_ih, bias_hh, 4, out_size
    )
    c2 = checks.as_batch("hx[1] (c)", c, hidden_size, unbatched, "H")  # (N, H)
    check_same_dtype(weight_ih=weight_ih, **({} if weight_hr is None else {"weight_hr": weight_hr}))
    checks.check_activation_dtypes("weight_ih", weight_ih, **{"hx[1] (c)": c2})
    check_same_device("input", x, **{"hx[1] (c)": c2}, weight_hr=weight_hr)
    checks.check_lstm_shapes(
        **{"hx[0] (h)": (h2, "N,H_out"), "hx[1] (c)": (c2, "N,H")},
        weight_hh=(weight_hh, "4H,H_out"),
        weight_hr=(weight_hr, "H_out,H?"),
    )
    x_part = steps.input_projection(x, weight_ih, bias_ih, bias_hh, "LSTM")  # (N, 4H)
    h_next, c_next, _ = steps.lstm_step(x_part, h2, c2, weight_hh, weight_hr)  # (N, H_out), (N, H)
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
    r"""One step of ``torch.nn.GRUCell``: PyTorch's candidate (:eq:`eq-gru`), or Cho et al.'s (:eq:`eq-gru-paper`).

    Computed by :func:`rnndoc.layers.steps.gru_step` (:eq:`eq-gru`) or, with
    ``reset_after=False`` (Keras's name; no torch module computes it), by
    :func:`rnndoc.layers.steps.gru_paper_step` (:eq:`eq-gru-paper`).

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
    check_bool("reset_after", reset_after)
    x, h, unbatched, _ = checks.check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, 3)
    x_part = steps.input_projection(x, weight_ih, bias_ih, bias_hh, "GRU")  # (N, 3H)
    if reset_after:
        h_next, _ = steps.gru_step(x_part, h, weight_hh, steps.gru_bias_hn(bias_hh))  # (N, H)
    else:
        h_next = steps.gru_paper_step(x_part, h, weight_hh, steps.gru_bias_hn(bias_hh))  # (N, H)
    return h_next.squeeze(0) if unbatched else h_next
