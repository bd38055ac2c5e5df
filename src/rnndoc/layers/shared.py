r"""What every cell kind shares: the input projection and the argument checks.

The lowest module of :mod:`rnndoc.layers`: :mod:`~rnndoc.layers.rnn`,
:mod:`~rnndoc.layers.lstm` and :mod:`~rnndoc.layers.gru` import it; it imports none of them.
"""

from __future__ import annotations

import functools
import re

import torch

from .._validate import check_choice, check_same_device, check_same_dtype, check_tensor
from .products import Packed, Weight, linear

__all__ = ["input_projection"]

#: The modes torch's recurrent layers dispatch on.
MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


def input_projection(x: torch.Tensor, weight_ih: Weight, bias_ih, bias_hh, mode: str) -> torch.Tensor:
    r"""The part of every gate that does not depend on h: :math:`x W_{ih}^\top + b_{ih} + b_{hh}`.

    Both biases are folded in, except the GRU's :math:`b_{hn}`, which sits inside
    :math:`r \odot (h W_{hn}^\top + b_{hn})` and stays in :func:`rnndoc.layers.gru_step`.
    For a whole sequence this is one matrix product.

    Parameters
    ----------
    x : Tensor, shape (..., H_in)
    weight_ih : Tensor, shape (G*H, H_in)
        G gate blocks: 1 (RNN), 4 (LSTM), 3 (GRU). The stack passes it packed
        (:mod:`rnndoc.layers.products`).
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
    >>> from rnndoc.layers.shared import input_projection
    >>> input_projection(torch.ones(5, 2, 3), torch.ones(6, 3), None, torch.ones(6), "GRU")[0, 0]
    tensor([4., 4., 4., 4., 3., 3.])
    """
    check_choice("mode", mode, MODES)
    if not isinstance(x, torch.Tensor) or x.dim() < 1:
        raise TypeError(f"x must be a torch.Tensor of shape (..., H_in), got {type(x).__name__}")
    h_in = x.shape[-1]
    if (
        isinstance(weight_ih, torch.Tensor | Packed)
        and len(weight_ih.shape) == 2
        and weight_ih.shape[1] != h_in
    ):
        raise ValueError(
            f"x must have shape (..., H_in) with H_in = {weight_ih.shape[1]} (weight_ih's), got {tuple(x.shape)}"
        )
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)  # the gate blocks of weight_ih
    check_shapes(
        x=(x.reshape(-1, h_in) if x.numel() else x.new_zeros(0, h_in), "M,H_in"),
        weight_ih=(weight_ih, f"{gates}H,H_in"),
        bias_ih=(bias_ih, f"{gates}H"),
        bias_hh=(bias_hh, f"{gates}H"),
    )
    if mode == "GRU" and bias_hh is not None:  # b_hn stays inside r * (h W_hn^T + b_hn)
        bias_hh = torch.cat(
            [bias_hh[: 2 * (bias_hh.shape[0] // 3)], bias_hh.new_zeros(bias_hh.shape[0] // 3)]
        )
    biases = [b for b in (bias_ih, bias_hh) if b is not None]
    bias = biases[0] + biases[1] if len(biases) == 2 else (biases[0] if biases else None)  # (G*H,)
    flat = x.reshape(-1, x.shape[-1])  # (L*N, H_in)
    part = linear(flat, weight_ih, add=bias)  # (L*N, G*H): x W_ih^T + b
    return part.view(*x.shape[:-1], weight_ih.shape[0])  # (..., G*H)


def check_shapes(**named: tuple[object, str]) -> dict[str, int]:
    """Check tensors against axis labels that must agree across them; return the axis sizes.

    ``check_shapes(x_part=(x_part, "N,4H"), h=(h, "N,H"))`` requires two floating 2-D
    tensors whose first axes agree and whose second sizes are 4H and H for one H. A value of
    None is skipped (an optional weight); a packed weight is checked as the tensor it was made
    from. Raises ``TypeError`` for a non-tensor or a
    non-floating one and ``ValueError`` for a shape, each naming the argument, the expected
    shape with its axis names and the actual one.
    """
    sizes: dict[str, int] = {}
    named = {name: (v.weight if isinstance(v, Packed) else v, labels) for name, (v, labels) in named.items()}
    for name, (value, labels) in named.items():
        if value is None:
            continue
        axes = _axes(labels)
        tensor = check_tensor(name, value, (None,) * len(axes), f"({labels.replace(',', ', ')})")
        for (factor, symbol), size in zip(axes, tensor.shape, strict=True):
            expected = sizes.setdefault(symbol, size // factor)
            if size != factor * expected:
                known = {symbol: sizes[symbol] for _, symbol in axes if symbol in sizes}
                raise ValueError(
                    f"{name} must have shape ({labels.replace(',', ', ')}) with {known}, got {tuple(tensor.shape)}"
                )
    _check_alike({name: value for name, (value, _) in named.items() if isinstance(value, torch.Tensor)})
    return sizes


def _check_alike(tensors: dict[str, torch.Tensor]) -> None:
    """One device (else ``ValueError``) and one dtype (else ``TypeError``), unless autocast mixes dtypes."""
    (first, reference), *_ = tensors.items()
    check_same_device(first, reference, **tensors)
    device = reference.device.type
    if not (torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)):
        check_same_dtype(**tensors)


@functools.cache
def _axes(labels: str) -> tuple[tuple[int, str], ...]:
    """``"N,4H"`` -> ((1, "N"), (4, "H")): each axis's multiple of its symbol."""
    pairs = [re.fullmatch(r"(\d*)(\w+)", axis.strip()) for axis in labels.split(",")]
    return tuple((int(pair[1] or 1), pair[2]) for pair in pairs if pair is not None)


def _check_saved(saved: object, names: tuple[str, ...], step: str) -> None:
    expected = f"the tuple ({', '.join(names)}) {step} returned"
    if not isinstance(saved, tuple | list):
        raise TypeError(f"saved must be {expected}, got {type(saved).__name__}")
    if len(saved) != len(names):
        raise ValueError(f"saved must be {expected}, got {len(saved)} entries")


def _saved_labels(saved, names: tuple[str, ...]) -> dict:
    """``saved[k] (name)`` -> (tensor, "N,H"), for :func:`check_shapes`."""
    return {
        f"saved[{k}] ({name})": (value, "N,H")
        for k, (name, value) in enumerate(zip(names, saved, strict=True))
    }


def check_real(name: str, value: torch.Tensor) -> None:
    """Refuse a complex tensor with a clear ``TypeError`` (rnndoc does not run complex modules)."""
    if value.is_complex():
        raise TypeError(
            f"{name} is {value.dtype}: complex recurrent modules are not supported by rnndoc.layers "
            "(its equations and gradients are written for real tensors)"
        )


def _as_batch(name: str, value: object, size: int, unbatched: bool, what: str) -> torch.Tensor:
    """A cell argument in the caller's layout ((N, size), or (size,) unbatched), returned as (N, size)."""
    if unbatched:
        return check_tensor(name, value, (size,), f"({what},) for unbatched input").unsqueeze(0)  # (1, size)
    return check_tensor(name, value, (None, size), f"(N, {what})")  # (N, size)


def check_cell_arguments(input, hx, weight_ih, weight_hh, bias_ih, bias_hh, gates: int, out_size=None):
    """Check one cell step's arguments; return ``x`` (N, H_in), ``h`` (N, H_out), unbatched, H.

    Every message names the argument, the expected shape with its axis names and the actual one;
    dtypes must agree (``TypeError``), devices too (``ValueError``).
    """
    check_tensor("weight_ih", weight_ih, (None, None), "(G*H, H_in)")
    rows, input_size = weight_ih.shape
    if rows % gates:
        raise ValueError(f"weight_ih must have a multiple of {gates} rows (the gate blocks), got {rows}")
    hidden_size = rows // gates
    h_size = hidden_size if out_size is None else out_size
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor, got {type(input).__name__}")
    if input.dim() not in (1, 2):
        shape = tuple(input.shape)
        raise ValueError(f"input must have shape (N, H_in) or (H_in,) with H_in = {input_size}, got {shape}")
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
    check_same_device("input", x, **tensors)
    return x, h, unbatched, hidden_size
