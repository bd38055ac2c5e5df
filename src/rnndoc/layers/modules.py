"""``forward(module, input, hx)``: what a PyTorch recurrent module returns, computed from scratch.

It reads the module's own parameters and flags, checks the arguments (with clearer errors
than PyTorch's own), and runs :func:`rnndoc.layers.stack.run_layers` or one cell step.
No recurrent kernel is called: only tensor algebra, plus the ``torch.nn.utils.rnn``
helpers that take a ``PackedSequence`` apart and build one.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from .._validate import check_same_dtype, check_tensor
from .cells import gru_cell, lstm_cell, rnn_cell
from .stack import run_layers

__all__ = ["forward"]

_LAYERS = (nn.RNN, nn.LSTM, nn.GRU)
_CELLS = (nn.RNNCell, nn.LSTMCell, nn.GRUCell)


def _mode(module: nn.Module) -> str:
    if isinstance(module, nn.LSTM):
        return "LSTM"
    if isinstance(module, nn.GRU):
        return "GRU"
    return "RNN_TANH" if module.nonlinearity == "tanh" else "RNN_RELU"


def _tensor_attribute(module: nn.Module, name: str) -> torch.Tensor:
    """The module's tensor ``name``, read as the module itself reads it (parametrized or pruned too)."""
    value = getattr(module, name, None)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"module has no tensor {name!r} (got {type(value).__name__}); it cannot be run")
    return value


def _layer_weights(module: nn.Module) -> dict[str, torch.Tensor]:
    """Every weight of a recurrent layer by PyTorch's name, e.g. ``weight_hh_l1_reverse``."""
    kinds = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if module.bias else [])
    kinds += ["weight_hr"] if getattr(module, "proj_size", 0) else []
    suffixes = ["", "_reverse"] if module.bidirectional else [""]
    names = [
        f"{kind}_l{k}{suffix}" for k in range(module.num_layers) for suffix in suffixes for kind in kinds
    ]
    return {name: _tensor_attribute(module, name) for name in names}


def _cell_forward(module, input, hx):
    args = tuple(
        _tensor_attribute(module, name) if module.bias or name.startswith("weight") else None
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    )
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor, got {type(input).__name__}")
    batch = () if input.dim() == 1 else input.shape[:1]
    zeros = input.new_zeros(*batch, module.hidden_size)  # (N, H) or (H,)
    if isinstance(module, nn.LSTMCell):
        if hx is not None and isinstance(hx, tuple | list) and any(v is None for v in hx):
            raise TypeError("hx must be a pair (h, c) of tensors, got None in it")
        return lstm_cell(input, (zeros, zeros) if hx is None else hx, *args)
    hx = zeros if hx is None else hx
    if isinstance(module, nn.GRUCell):
        return gru_cell(input, hx, *args)
    return rnn_cell(input, hx, *args, nonlinearity=module.nonlinearity)


def _pack_like(output: torch.Tensor, packed: PackedSequence) -> PackedSequence:
    """Pack time-first ``output`` (L, N, F), in the caller's batch order, as ``packed`` is packed."""
    order = packed.sorted_indices if packed.sorted_indices is not None else torch.arange(output.shape[1])
    by_length = output[:, order.to(output.device)]  # (L, N, F): longest sequence first
    data = torch.cat(
        [by_length[t, :size] for t, size in enumerate(packed.batch_sizes.tolist())]
    )  # (sum len, F)
    return PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)


def forward(module: nn.Module, input, hx=None):
    r"""Return what ``module(input, hx)`` returns, computed from scratch.

    Supports ``nn.RNN`` (tanh and relu), ``nn.LSTM`` (with and without ``proj_size``),
    ``nn.GRU`` with any ``num_layers``, ``bidirectional``, ``bias``, ``batch_first``,
    unbatched 2-D input and ``PackedSequence`` input; and ``nn.RNNCell``, ``nn.LSTMCell``,
    ``nn.GRUCell``, batched or not. Inter-layer dropout: none in eval mode; in training
    mode with ``dropout > 0`` it refuses (it cannot reproduce torch's random masks).

    Parameters
    ----------
    module : nn.RNN, nn.LSTM, nn.GRU, nn.RNNCell, nn.LSTMCell or nn.GRUCell
        Its parameters and flags are read as they are.
    input : Tensor or PackedSequence
        Layers: (L, N, H_in), or (N, L, H_in) with ``batch_first``, or unbatched (L, H_in),
        or a ``PackedSequence``. Cells: (N, H_in) or (H_in,).
    hx : Tensor, or tuple (h_0, c_0) for LSTMs, optional
        Layers: h_0 of shape (D * num_layers, N, H_out) (unbatched: no N), where D is 2 if
        ``bidirectional`` else 1 and H_out is ``proj_size`` if set, else ``hidden_size``;
        c_0 of shape (D * num_layers, N, H). Batch in the caller's order, also for packed
        input. Default: zeros.

    Returns
    -------
    output, h_n (or output, (h_n, c_n))
        As the module returns them: ``output`` (L, N, D * H_out) laid out like the input
        (batch-first, unbatched or packed alike); ``h_n`` (D * num_layers, N, H_out);
        ``c_n`` (D * num_layers, N, H). Cells return ``h'`` or ``(h', c')``.

    Raises
    ------
    TypeError
        If ``module`` is not one of the recurrent modules above, the input or state is not a
        floating tensor of the module's dtype, or an LSTM state is not a pair (h, c).
    ValueError
        If a shape disagrees (the message names the argument, the expected shape with its
        axis names, and the actual one), or dropout would be applied in training mode.

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
    if isinstance(module, _CELLS):
        return _cell_forward(module, input, hx)
    if not isinstance(module, _LAYERS):
        raise TypeError(
            "module must be a torch.nn.RNN, LSTM, GRU, RNNCell, LSTMCell or GRUCell, "
            f"got {type(module).__name__}"
        )
    mode = _mode(module)
    if module.training and module.dropout > 0 and module.num_layers > 1:
        raise ValueError(
            f"module applies dropout={module.dropout} between layers in training mode, with random masks "
            "this function cannot reproduce: call module.eval() (or set dropout=0) first"
        )
    params = _layer_weights(module)
    directions = 2 if module.bidirectional else 1
    proj_size = getattr(module, "proj_size", 0)
    h_out = proj_size or module.hidden_size
    stacked = module.num_layers * directions

    packed = isinstance(input, PackedSequence)
    lengths = None
    if packed:
        check_tensor("input.data", input.data, (None, module.input_size), "(sum of lengths, H_in)")
        check_same_dtype(weight_ih_l0=params["weight_ih_l0"], input=input.data)
        x, lengths = pad_packed_sequence(input)  # (L, N, H_in), lengths (N,), caller's batch order
        unbatched = False
    else:
        if not isinstance(input, torch.Tensor):
            raise TypeError(f"input must be a torch.Tensor or PackedSequence, got {type(input).__name__}")
        layout = "(N, L, H_in)" if module.batch_first else "(L, N, H_in)"
        if input.dim() not in (2, 3):
            raise ValueError(
                f"input must have shape {layout}, or (L, H_in) unbatched, with H_in = {module.input_size}; "
                f"got {tuple(input.shape)}"
            )
        unbatched = input.dim() == 2
        check_tensor("input", input, (None,) * (input.dim() - 1) + (module.input_size,),
                     "(L, H_in)" if unbatched else layout)  # fmt: skip
        check_same_dtype(weight_ih_l0=params["weight_ih_l0"], input=input)
        if input.shape[1 if module.batch_first and not unbatched else 0] < 1:
            raise ValueError(f"input must hold at least one time step, got shape {tuple(input.shape)}")
        time_first = input.transpose(0, 1) if module.batch_first and not unbatched else input
        x = time_first.unsqueeze(1) if unbatched else time_first  # (L, N, H_in)
    batch = x.shape[1]

    def state(name, value, size, required=False):
        shape = (stacked, size) if unbatched else (stacked, batch, size)
        labels = "(D * num_layers, H)" if unbatched else "(D * num_layers, N, H)"
        if value is None and not required:
            return x.new_zeros(stacked, batch, size)
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
        if tuple(value.shape) != shape:
            hint = ""
            if name == "h_0" and proj_size and value.shape[-1] == module.hidden_size:
                hint = f" (with proj_size={proj_size}, h_0 has proj_size features, not hidden_size)"
            if unbatched and value.dim() != 2:
                hint += " (unbatched input takes an unbatched state)"
            raise ValueError(f"{name} must have shape {labels} = {shape}, got {tuple(value.shape)}{hint}")
        check_tensor(name, value, shape, labels)
        check_same_dtype(weight_ih_l0=params["weight_ih_l0"], **{name: value})
        return value.unsqueeze(1) if unbatched else value  # (D * num_layers, N, H)

    if mode == "LSTM":
        if hx is not None and not (isinstance(hx, tuple | list) and len(hx) == 2):
            raise TypeError(f"hx of an LSTM must be a pair (h_0, c_0), got {type(hx).__name__}")
        h_0 = state("h_0", None if hx is None else hx[0], h_out, required=hx is not None)
        c_0 = state("c_0", None if hx is None else hx[1], module.hidden_size, required=hx is not None)
    else:
        h_0, c_0 = state("h_0", hx, h_out), None

    output, h_n, c_n = run_layers(
        x,
        h_0,
        c_0,
        params,
        mode=mode,
        num_layers=module.num_layers,
        bidirectional=module.bidirectional,
        lengths=lengths,
    )  # (L, N, D*H_out), (lD, N, H_out), (lD, N, H)
    if packed:
        output = _pack_like(output, input)
    elif unbatched:
        output, h_n = output.squeeze(1), h_n.squeeze(1)  # (L, D*H_out), (lD, H_out)
        c_n = None if c_n is None else c_n.squeeze(1)  # (lD, H)
    elif module.batch_first:
        output = output.transpose(0, 1)  # (N, L, D*H_out)
    return (output, (h_n, c_n)) if mode == "LSTM" else (output, h_n)
