r"""``forward(module, input, hx)`` and ``backward(module, input, hx, grad_output, grad_hx)``.

What a PyTorch recurrent module returns, and the gradients autograd would give through it,
computed from scratch: ``rnndoc.layers.modules.read_call`` reads the module and checks
the arguments, :func:`rnndoc.layers.stack.run_layers` and
:func:`~rnndoc.layers.stack_backward.run_layers_backward` do the work. No recurrent kernel and no
autograd is called: only tensor algebra, plus the ``torch.nn.utils.rnn`` helpers that take
a ``PackedSequence`` apart and build one.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from .effective import check_no_backward_hooks
from .modules import Call, caller_gradients, caller_output, read_call
from .stack import run_layers
from .stack_backward import run_layers_backward

__all__ = ["backward", "forward"]


def _run(call: Call, tape: list | None = None):
    return run_layers(
        call.x, call.h_0, call.c_0, call.params, mode=call.mode, num_layers=call.num_layers,
        bidirectional=call.bidirectional, lengths=call.lengths, tape=tape,
    )  # fmt: skip  # (L, N, D*H_out), (lD, N, H_out), (lD, N, H)


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
    ``forward``) is refused.

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
        state is not a floating tensor of the module's dtype, an LSTM state is not a pair,
        or the module has forward hooks or overrides ``forward``.
    ValueError
        If a shape disagrees (the message names the argument, the expected shape with its
        axis names, and the actual one), a tensor is on another device than ``input`` (the
        message names both devices), a packed input is empty or malformed (the message names
        its field), ``mode``/``nonlinearity`` is unknown, or dropout would be applied in
        training mode.

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
    call = read_call(module, input, hx)
    return caller_output(call, *_run(call))


def _check_like(name: str, value: object, like: torch.Tensor) -> torch.Tensor:
    """``value`` must be a tensor shaped, typed and placed like ``like`` (what forward returned)."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor shaped like what it is the gradient of, got "
                        f"{type(value).__name__}")  # fmt: skip
    if value.shape != like.shape:
        raise ValueError(f"{name} must have shape {tuple(like.shape)}, got {tuple(value.shape)}")
    if value.dtype != like.dtype:
        raise TypeError(f"{name} must have dtype {like.dtype}, got {value.dtype}")
    if value.device != like.device:
        raise ValueError(f"{name} is on device {value.device}, but the output is on device {like.device}")
    return value


def _gradient(name: str, value, like):
    """A gradient shaped like ``like`` (a tensor or a pair, as forward returned it); None is zero."""
    if isinstance(like, PackedSequence):
        if value is None:
            return like.data.new_zeros(like.data.shape)  # (sum len, D*H_out)
        if not isinstance(value, PackedSequence):
            raise TypeError(
                f"{name} must be a PackedSequence packed like the input, got {type(value).__name__}"
            )
        if not torch.equal(value.batch_sizes, like.batch_sizes):
            raise ValueError(
                f"{name}.batch_sizes must be {like.batch_sizes.tolist()} (the input's), "
                f"got {value.batch_sizes.tolist()}"
            )
        return _check_like(f"{name}.data", value.data, like.data)
    if isinstance(like, tuple):
        if value is not None and not (isinstance(value, tuple | list) and len(value) == 2):
            raise TypeError(
                f"{name} must be a pair (like the LSTM's state) or None, got {type(value).__name__}"
            )
        parts = (None, None) if value is None else value
        return tuple(
            _gradient(f"{name}[{k}]", v, part) for k, (v, part) in enumerate(zip(parts, like, strict=True))
        )
    return torch.zeros_like(like) if value is None else _check_like(name, value, like)


def backward(module: nn.Module, input, hx=None, grad_output=None, grad_hx=None) -> dict:
    r"""The gradients autograd would give through ``module(input, hx)``, by BPTT from scratch.

    For a loss :math:`\mathcal{L}` with :math:`\partial \mathcal{L}/\partial\,\text{output}` =
    ``grad_output`` and :math:`\partial \mathcal{L}/\partial h_n` (and
    :math:`\partial \mathcal{L}/\partial c_n`) = ``grad_hx``, returns what
    ``torch.autograd.grad((output, h_n[, c_n]), (input, h_0[, c_0], *parameters),
    (grad_output, grad_hx...))`` returns, for every configuration :func:`forward` runs. Each
    step's backward is :func:`~rnndoc.layers.rnn_step_backward`,
    :func:`~rnndoc.layers.lstm_step_backward` or
    :func:`~rnndoc.layers.gru_step_backward`; the stack
    (:func:`~rnndoc.layers.stack_backward.run_layers_backward`) carries the deltas back in time, down
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
    call = read_call(module, input, hx)
    check_no_backward_hooks(module)
    cell = call.form in ("cell", "unbatched_cell")
    if grad_output is None and grad_hx is None:
        raise ValueError("grad_output and grad_hx are both None: give the gradient of at least one")
    if cell and grad_hx is not None:
        raise ValueError("grad_hx must be None for a cell: pass the gradient of its return as grad_output")
    with torch.no_grad():  # tensor algebra only: nothing for autograd to record
        return _backward(call, grad_output, grad_hx)


def _backward(call: Call, grad_output, grad_hx) -> dict:
    cell = call.form in ("cell", "unbatched_cell")
    tape: list = []
    output, h_n, c_n = _run(call, tape)  # (L, N, D*H_out), (lD, N, H_out), (lD, N, H)
    returned = caller_output(call, output, h_n, c_n)
    if cell:  # the cell's return is its final state
        returned, grad_hx, grad_output = (None, returned), grad_output, None
    d_state = _gradient("grad_output" if cell else "grad_hx", grad_hx, returned[1])
    d_h_n, d_c_n = d_state if call.mode == "LSTM" else (d_state, None)
    if cell:
        d_output = torch.zeros_like(output)  # (1, N, H): the state is the only output
        d_h_n, d_c_n = d_h_n.reshape(h_n.shape), None if d_c_n is None else d_c_n.reshape(c_n.shape)
    else:
        d_output = _gradient("grad_output", grad_output, returned[0])
        if call.form == "packed":
            d_output, _ = pad_packed_sequence(returned[0]._replace(data=d_output))  # (L, N, D*H_out)
        elif call.form == "batch_first":
            d_output = d_output.transpose(0, 1)  # (L, N, D*H_out)
        elif call.form == "unbatched":
            d_output, d_h_n = d_output.unsqueeze(1), d_h_n.unsqueeze(1)  # (L, 1, D*H_out), (lD, 1, H_out)
            d_c_n = None if d_c_n is None else d_c_n.unsqueeze(1)  # (lD, 1, H)
    found = run_layers_backward(
        tape, d_output, d_h_n, d_c_n, call.params, mode=call.mode, num_layers=call.num_layers,
        bidirectional=call.bidirectional, lengths=call.lengths,
    )  # fmt: skip
    return caller_gradients(call, *found)
