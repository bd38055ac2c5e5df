r"""A stack of recurrent layers, each read forwards and (bidirectional) backwards.

Layer k reads the previous layer's output, the concatenation of its two directions
(width :math:`D \cdot H_{out}`); layer 0 reads the input. Each direction's input
projection :math:`x_t W_{ih}^\top + b_{ih}` is one matrix product over the whole
sequence; the loop over time carries only the recurrent product. With ``lengths``
(variable-length sequences), a sequence's state stops changing after its last step and its
outputs there are zero, so the reverse direction of each sequence starts at its own end.
"""

from __future__ import annotations

import torch

from .cells import gru_bias_hn, gru_step, input_part, lstm_step, rnn_step

__all__ = ["MODES", "run_layers"]

#: PyTorch's modes: number of gate blocks in the stacked weights.
MODES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _direction(
    x: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor | None,
    weights: dict[str, torch.Tensor | None],
    mode: str,
    reverse: bool,
    mask: torch.Tensor | None,
):
    """One layer, one direction. x (L, N, F); h (N, H_out); c (N, H) or None; mask (L, N, 1) or None."""
    w_hh = weights["weight_hh"]
    x_part = input_part(x, weights["weight_ih"], weights["bias_ih"], weights["bias_hh"], mode)  # (L, N, G*H)
    bias_hn = gru_bias_hn(weights["bias_hh"]) if mode == "GRU" else None
    outputs = []
    for t in reversed(range(x.shape[0])) if reverse else range(x.shape[0]):
        if mode == "LSTM":
            h_new, c_new = lstm_step(x_part[t], h, c, w_hh, weights["weight_hr"])  # (N, H_out), (N, H)
        elif mode == "GRU":
            h_new = gru_step(x_part[t], h, w_hh, bias_hn)  # (N, H)
        else:
            h_new = rnn_step(x_part[t], h, w_hh, "tanh" if mode == "RNN_TANH" else "relu")  # (N, H)
        if mask is None:
            h = h_new
            c = c_new if mode == "LSTM" else c
            outputs.append(h)
        else:  # past a sequence's end: keep its state, output zeros
            h = torch.where(mask[t], h_new, h)  # (N, H_out)
            c = torch.where(mask[t], c_new, c) if mode == "LSTM" else c
            outputs.append(h_new * mask[t])
    if reverse:
        outputs.reverse()
    return torch.stack(outputs), h, c  # (L, N, H_out)


def run_layers(
    input: torch.Tensor,
    h_0: torch.Tensor,
    c_0: torch.Tensor | None,
    params: dict[str, torch.Tensor],
    *,
    mode: str,
    num_layers: int,
    bidirectional: bool,
    lengths: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    r"""Run ``num_layers`` recurrent layers over time-first input, as ``nn.RNN/LSTM/GRU`` do.

    Parameters
    ----------
    input : Tensor, shape (L, N, H_in)
    h_0 : Tensor, shape (num_layers * D, N, H_out)
        Ordered [layer 0 forward, layer 0 reverse, layer 1 forward, ...].
    c_0 : Tensor, shape (num_layers * D, N, H), or None
        LSTM only.
    params : dict of str to Tensor
        PyTorch's names: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
        ``bias_hh_l{k}``, ``weight_hr_l{k}`` (LSTM with ``proj_size``), each with the suffix
        ``_reverse`` for the reverse direction; biases may be absent (``bias=False``).
    mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}
    num_layers : int
    bidirectional : bool
    lengths : Tensor of int, shape (N,), optional
        Each sequence's length (at most L); default: all L.

    Returns
    -------
    output : Tensor, shape (L, N, D * H_out)
        The last layer's states, both directions concatenated (forward first).
    h_n : Tensor, shape (num_layers * D, N, H_out)
    c_n : Tensor, shape (num_layers * D, N, H), or None

    Notes
    -----
    The layout of ``h_0``/``h_n`` and of the weights follows PyTorch's ``torch.nn.RNN``,
    ``torch.nn.LSTM`` and ``torch.nn.GRU`` documentation; bidirectional RNNs are Schuster
    and Paliwal (1997). Inputs are not validated here: :func:`rnndoc.layers.forward` does.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.stack import run_layers
    >>> gru = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    >>> out, h_n, _ = run_layers(torch.zeros(5, 2, 3), torch.zeros(4, 2, 4), None, dict(gru.named_parameters()),
    ...                          mode="GRU", num_layers=2, bidirectional=True)
    >>> out.shape, h_n.shape
    (torch.Size([5, 2, 8]), torch.Size([4, 2, 4]))
    """
    directions = 2 if bidirectional else 1
    mask = None
    if lengths is not None:
        steps = torch.arange(input.shape[0], device=input.device)  # (L,)
        mask = (steps[:, None] < lengths.to(input.device)[None, :]).unsqueeze(-1)  # (L, N, 1)
    x = input  # (L, N, H_in)
    h_n, c_n = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            weights = {
                name: params.get(name + suffix)
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
            }
            index = layer * directions + direction
            c = None if c_0 is None else c_0[index]  # (N, H)
            out, h, c = _direction(x, h_0[index], c, weights, mode, reverse=direction == 1, mask=mask)
            outputs.append(out)  # (L, N, H_out)
            h_n.append(h)
            c_n.append(c)
        x = torch.cat(outputs, dim=2) if directions == 2 else outputs[0]  # (L, N, D*H_out)
    return x, torch.stack(h_n), None if c_0 is None else torch.stack(c_n)  # (L, N, D*H_out), (lD, N, H_out)
