r"""From-scratch forward and backward passes of PyTorch's recurrent layers (tensor algebra only).

:func:`forward` and :func:`backward` are the front door: ``forward(module, input, hx)``
returns what ``module(input, hx)`` returns, ``backward(module, input, hx, grad_output,
grad_hx)`` the gradients autograd gives through it. Behind them, in the order a call
travels: :mod:`~rnndoc.layers.boundary` reads the module and its arguments into time-first
tensors (its checks are :mod:`~rnndoc.layers.checks`) and writes the results back in the
caller's layout; :mod:`~rnndoc.layers.sweep` runs the loops over time, directions and layers
and back; :mod:`~rnndoc.layers.steps` holds each cell kind's step and its backward, the
maths, and the table of kinds both sweeps read; :mod:`~rnndoc.layers.products` multiplies by
a weight (plain, or through oneDNN where measurement chooses it). The single steps and the
three ``torch.nn`` cells, checked, are :mod:`~rnndoc.layers.cells`; what a layer costs,
:mod:`~rnndoc.layers.costs`.
"""

from __future__ import annotations

import torch
from torch import nn

from . import boundary, checks
from .cells import (
    gru_bias_hn,
    gru_cell,
    gru_step,
    gru_step_backward,
    input_projection,
    lstm_cell,
    lstm_step,
    lstm_step_backward,
    rnn_cell,
    rnn_step,
    rnn_step_backward,
)
from .sweep import gate_values, rnn_tanh_layer, run_layers, run_layers_backward

__all__ = [
    "backward",
    "forward",
    "gates",
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
    "rnn_tanh_layer",
]


def _run(call: boundary.Call, tape: list | None = None):
    """The forward sweep over a call: (L, N, D*H_out), (lD, N, H_out), (lD, N, H) or None."""
    return run_layers(call.x, call.h_0, call.c_0, call.params, mode=call.mode, num_layers=call.num_layers,
                      bidirectional=call.bidirectional, lengths=call.lengths, tape=tape)  # fmt: skip


def forward(module: nn.Module, input, hx=None):
    r"""Return what ``module(input, hx)`` returns, computed from scratch.

    Supports ``nn.RNN`` (tanh and relu), ``nn.LSTM`` (with and without ``proj_size``),
    ``nn.GRU`` with any ``num_layers``, ``bidirectional``, ``bias``, ``batch_first``,
    unbatched 2-D input and ``PackedSequence`` input; and ``nn.RNNCell``, ``nn.LSTMCell``,
    ``nn.GRUCell``, batched or not. Inter-layer dropout: none in eval mode; in training
    mode with ``dropout > 0`` it refuses (it cannot reproduce torch's random masks). It reads
    what torch reads: ``nn.RNN``'s ``mode`` (not ``nonlinearity``), ``nn.RNNCell``'s
    ``nonlinearity``, the weights as the module computes with them (parametrized, or pruned:
    ``weight_orig * weight_mask``, as the pruning hook recomputes it on every call). A module
    whose call would run more than its class's equations (forward hooks, an overridden
    ``forward``) is refused, and so is, in training mode, a parametrization whose value is
    random or changes on each read: ``spectral_norm``, or one holding a dropout module
    (``nn.Dropout`` and its family, anywhere inside: AWD-LSTM's weight drop). Other
    parametrizations (``weight_norm``, ``orthogonal``, any function of the weight) are taken to
    be deterministic and followed in either mode. Under ``torch.autocast`` each step runs in
    the order of operations of torch's CPU cells, so that on the CPU the results are torch's
    bit for bit (but for the LSTM without projection, where torch runs oneDNN's fused kernel,
    whose roundings are its own); outside autocast, in the order the book's numbers were
    checked with. As ``module(input, hx)``
    does, the results carry autograd's graph where a parameter or ``input`` requires grad.

    Parameters
    ----------
    module : nn.RNN, nn.LSTM, nn.GRU, nn.RNNCell, nn.LSTMCell or nn.GRUCell
        Real floating dtypes (float16, bfloat16, float32, float64), any device.
    input : Tensor or PackedSequence
        Layers: (L, N, H_in), or (N, L, H_in) with ``batch_first``, or unbatched (L, H_in),
        or a ``PackedSequence``. Cells: (N, H_in) or (H_in,). The module's dtype and device.
    hx : Tensor, or tuple (h_0, c_0) for LSTMs, optional
        Layers: h_0 of shape (D * num_layers, N, H_out) (unbatched: no N), where D is 2 if
        ``bidirectional`` else 1 and H_out is ``proj_size`` if set, else ``hidden_size``;
        c_0 of shape (D * num_layers, N, H). Batch in the caller's order, also for packed
        input. Cells: (N, H) or (H,), a pair for ``nn.LSTMCell``. Default: zeros.

    Returns
    -------
    output, h_n (or output, (h_n, c_n))
        As the module returns them, with the dtypes it returns (under ``torch.autocast`` too):
        ``output`` (L, N, D * H_out) laid out like the input (batch-first, unbatched or
        packed alike); ``h_n`` (D * num_layers, N, H_out); ``c_n`` (D * num_layers, N, H).
        Cells return ``h'`` or ``(h', c')``.

    Raises
    ------
    TypeError
        If ``module`` is not one of the recurrent modules above or is complex, the input or
        state is not a dense floating tensor of the module's dtype (under ``torch.autocast``,
        or of autocast's), an LSTM state is not a pair, or the module has forward hooks
        (``torch.nn.utils.spectral_norm``'s hook in training mode is named) or overrides
        ``forward``.
    ValueError
        If a shape disagrees (the message names the argument, the expected shape with its
        axis names, and the actual one), a tensor is on another device than ``input`` (the
        message names both devices), a packed input is empty or malformed (the message names
        its field), ``mode``/``nonlinearity`` is unknown, ``hidden_size``, ``proj_size``,
        ``num_layers``, ``bias`` or ``bidirectional`` of a layer no longer matches its weights
        (changed after construction, where torch's call fails too; the message names the
        attribute), dropout would be applied in training mode, or in training mode a
        parametrization is ``spectral_norm`` or holds a dropout module (see above). A cell
        reads its biases from the tensors it holds, as torch's call does, whatever its
        ``bias`` says.
    RuntimeError
        If autograd must save a tensor made under ``torch.inference_mode()`` (outside that
        mode, with something requiring grad), where ``module(input, hx)`` fails too; the
        message names the inference tensors.

    Notes
    -----
    Equations and layouts as in PyTorch's ``torch.nn.RNN``, ``torch.nn.LSTM``,
    ``torch.nn.GRU`` and cell documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import forward
    >>> lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, batch_first=True,
    ...                      dtype=torch.float64)
    >>> x = torch.randn(5, 7, 3, dtype=torch.float64)  # (N, L, H_in)
    >>> output, (h_n, c_n) = forward(lstm, x)
    >>> output.shape, h_n.shape, c_n.shape
    (torch.Size([5, 7, 4]), torch.Size([4, 5, 2]), torch.Size([4, 5, 4]))
    >>> expected, (expected_h, expected_c) = lstm(x)
    >>> bool((output - expected).abs().max() <= 1e-12)
    True
    """
    call = boundary.read_call(module, input, hx)
    try:
        found = _run(call)
    except RuntimeError as error:
        checks.explain_inference_error(error, module, input, hx)
        raise
    return boundary.write_output(call, *found)


def gates(module: nn.Module, input, hx=None) -> dict:
    r"""Every gate of ``module(input, hx)`` at every step, which the fused kernels never return.

    Runs :func:`forward`'s sweep (the same arithmetic: what it returns is bitwise what
    :func:`forward` computes) and returns, for each layer and direction, each step's gates by
    PyTorch's names (:eq:`eq-lstm-rows`, :eq:`eq-gru-rows`): for an LSTM the input gate
    ``i``, forget gate ``f``, candidate ``g``, output gate ``o`` and the cell state ``c``
    (:math:`c_t`, after the step); for a GRU the reset gate ``r``, update gate ``z`` and
    candidate ``n``.

    Parameters
    ----------
    module : nn.LSTM, nn.GRU, nn.LSTMCell or nn.GRUCell
        As for :func:`forward` (any ``num_layers``, ``bidirectional``, ``bias``,
        ``batch_first``, ``proj_size``).
    input, hx
        As for :func:`forward`: the same bad input gets the same error.

    Returns
    -------
    dict
        Keys: the gate's name and the layer and direction's suffix, as in the module's weight
        names: ``"i_l0"``, ``"f_l1_reverse"``, ``"c_l0"`` (a cell's: ``"i"``, ``"c"``). Each value is
        laid out like one direction's slice of ``output``: (L, N, H) time first, (N, L, H)
        with ``batch_first``, (L, H) unbatched, a ``PackedSequence`` for packed input (H is
        ``hidden_size``, also with ``proj_size``); a cell's, like its ``h'``: (N, H) or (H,).
        At step t a reverse direction has read :math:`x_T, \dots, x_t`, as its output has.
        Dtypes as torch computes the gates (under ``torch.autocast``, the autocast dtype; an
        LSTM's ``c`` takes its state's dtype there, as torch's does). Where a parameter or
        ``input`` requires grad the gates carry autograd's graph, which keeps every step's
        intermediates alive: to inspect them, call under ``torch.no_grad()``.

    Raises
    ------
    TypeError
        If ``module`` is an ``nn.RNN`` or ``nn.RNNCell`` (no gates), and as :func:`forward`.
    ValueError
        As :func:`forward` (a random parametrization in training mode included).
    RuntimeError
        As :func:`forward` (tensors made under ``torch.inference_mode()``).

    Notes
    -----
    Gate order and equations as in PyTorch's ``torch.nn.LSTM`` and ``torch.nn.GRU``
    documentation; a look inside a trained LSTM's gates as in Karpathy, Johnson and Fei-Fei
    (2015).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import gates
    >>> lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=torch.float64)
    >>> x = torch.randn(5, 2, 3, dtype=torch.float64)  # (L, N, H_in)
    >>> with torch.no_grad():  # to look, not to differentiate: no graph kept
    ...     found = gates(lstm, x)
    >>> sorted(found)[:5], found["f_l1_reverse"].shape
    (['c_l0', 'c_l0_reverse', 'c_l1', 'c_l1_reverse', 'f_l0'], torch.Size([5, 2, 4]))
    >>> output, (h_n, c_n) = lstm(x)
    >>> bool((found["c_l1"][-1] - c_n[2]).abs().max() <= 1e-12)  # the last c_t is c_n
    True
    >>> sorted(gates(torch.nn.GRUCell(3, 4), torch.randn(3)))
    ['n', 'r', 'z']
    """
    checks.check_gated(module)
    call = boundary.read_call(module, input, hx)
    tape: list = []
    try:
        _run(call, tape)
    except RuntimeError as error:
        checks.explain_inference_error(error, module, input, hx)
        raise
    return boundary.write_gates(call, gate_values(tape, call.mode))


def backward(module: nn.Module, input, hx=None, grad_output=None, grad_hx=None) -> dict:
    r"""The gradients autograd would give through ``module(input, hx)``, by BPTT from scratch.

    For a loss :math:`\mathcal{L}` with :math:`\partial \mathcal{L}/\partial\,\text{output}` =
    ``grad_output`` and :math:`\partial \mathcal{L}/\partial h_n` (and
    :math:`\partial \mathcal{L}/\partial c_n`) = ``grad_hx``, returns what
    ``torch.autograd.grad((output, h_n[, c_n]), (input, h_0[, c_0], *parameters),
    (grad_output, grad_hx...))`` returns, for every configuration :func:`forward` runs. Each
    step's backward is :func:`rnndoc.layers.steps.rnn_step_backward`,
    :func:`~rnndoc.layers.steps.lstm_step_backward` or
    :func:`~rnndoc.layers.steps.gru_step_backward`; the backward sweep
    (:func:`~rnndoc.layers.sweep.run_layers_backward`) carries the deltas back in time, down
    the layers, and splits them between the directions; padded steps of a packed input get no
    gradient and each sequence's reverse pass starts at its own end.

    Parameters
    ----------
    module, input, hx
        As for :func:`forward`; the same bad input gets the same error.
    grad_output : Tensor, PackedSequence or tuple, optional
        Shaped like :func:`forward`'s ``output`` (a ``PackedSequence`` for packed input; for
        the cells, like the cell's return: a pair for ``nn.LSTMCell``). None means zero.
    grad_hx : Tensor or tuple, optional
        The gradient of the final state the module *returns*: :math:`\partial \mathcal{L}/\partial h_n`,
        shaped like ``h_n`` (for an LSTM the pair :math:`(\partial \mathcal{L}/\partial h_n,
        \partial \mathcal{L}/\partial c_n)`, shaped like ``(h_n, c_n)``); not a gradient of the
        given ``hx``, whose gradient is returned under ``"hx"``. The name follows the argument
        ``hx`` it pairs with in the call. None means zero. Must be None for the cells.

    Returns
    -------
    dict
        ``"input"``: :math:`\partial \mathcal{L}/\partial\,\text{input}`, shaped like ``input``
        (for a ``PackedSequence``, like ``input.data``); ``"hx"``: the gradient of the *given*
        initial state ``hx`` = :math:`h_0`, that is :math:`\partial \mathcal{L}/\partial h_0`
        shaped like :math:`h_0` (for an LSTM the pair :math:`(\partial \mathcal{L}/\partial h_0,
        \partial \mathcal{L}/\partial c_0)`), at the default :math:`h_0 = 0` when ``hx`` is
        None; not the ``grad_hx`` passed in (that one is at :math:`h_n`, the end of the
        sequence); and one entry per weight the module computes
        with, by PyTorch's name (``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0``;
        the cells' ``weight_ih``, ...), shaped like it. For a plain module these are the
        names of ``module.named_parameters()``; for a pruned or parametrized module they are
        the effective weights' (``weight_hh_l0``, not ``weight_hh_l0_orig``): chaining
        through the parametrization is left to the caller. A tensor used under two names
        (tied weights) gets, under each, the sum over its uses, as autograd gives it.

    Raises
    ------
    TypeError, ValueError
        As :func:`forward`; and if both gradients are None, a gradient is not shaped, typed
        or placed like what it is the gradient of (the message names ``grad_output`` or
        ``grad_hx``, the expected and the actual shape), a cell is given ``grad_hx``, or
        the module has backward hooks (they change what autograd returns).

    Notes
    -----
    BPTT (Werbos 1990) through PyTorch's layer equations and layouts; the LSTM's as in Graves
    (2012). No autograd and no recurrent kernel is called.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers import backward
    >>> gru = torch.nn.GRU(3, 4, num_layers=2, dtype=torch.float64)
    >>> x = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)  # (L, N, H_in)
    >>> grads = backward(gru, x, grad_output=torch.ones(5, 2, 4, dtype=torch.float64))
    >>> sorted(grads)[:4], grads["input"].shape, grads["hx"].shape
    (['bias_hh_l0', 'bias_hh_l1', 'bias_ih_l0', 'bias_ih_l1'], torch.Size([5, 2, 3]), torch.Size([2, 2, 4]))
    >>> output, h_n = gru(x)
    >>> (expected,) = torch.autograd.grad(output, x, torch.ones_like(output))
    >>> bool((grads["input"] - expected).abs().max() <= 1e-12)
    True
    """
    call = boundary.read_call(module, input, hx)
    checks.check_no_backward_hooks(module)
    checks.check_gradients_given(grad_output, grad_hx, call.layout.cell)
    with torch.no_grad():  # tensor algebra only: nothing for autograd to record
        tape: list = []
        output, h_n, c_n = _run(call, tape)  # (L, N, D*H_out), (lD, N, H_out), (lD, N, H) or None
        returned = boundary.write_output(call, output, h_n, c_n)
        d_output, d_h_n, d_c_n = boundary.read_gradients(call, output, returned, grad_output, grad_hx)
        found = run_layers_backward(tape, d_output, d_h_n, d_c_n, call.params, mode=call.mode,
                                    num_layers=call.num_layers, bidirectional=call.bidirectional,
                                    lengths=call.lengths)  # fmt: skip
        return boundary.write_gradients(call, *found)
