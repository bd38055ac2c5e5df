r"""A stack of recurrent layers, each read forwards and (bidirectional) backwards.

Layer k reads the previous layer's output, the concatenation of its two directions
(width :math:`D \cdot H_{out}`); layer 0 reads the input. Each direction's input projection
is one matrix product over the whole sequence; the loop over time carries only the
recurrent product. With ``lengths`` (variable-length sequences), a sequence's state stops
changing after its last step and its outputs there are zero, so the reverse direction of
each sequence starts at its own end. Its BPTT is :mod:`rnndoc.layers.stack_backward`.
"""

from __future__ import annotations

import torch

from .._validate import check_lengths
from .direction import run_direction
from .stack_arguments import check_stack_arguments

__all__ = ["run_layers"]

_KINDS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")


def _weights(params: dict, layer: int, direction: int) -> tuple[str, dict]:
    """The name suffix of one layer and direction (``_l1_reverse``) and its weights by kind."""
    suffix = f"_l{layer}" + ("_reverse" if direction else "")
    return suffix, {kind: params.get(kind + suffix) for kind in _KINDS}


def _mask(lengths: torch.Tensor | None, x: torch.Tensor) -> torch.Tensor | None:
    if lengths is None:
        return None
    check_lengths("lengths", lengths, x.shape[1], x.shape[0])  # (N,), each in [1, L]
    steps = torch.arange(x.shape[0], device=x.device)  # (L,)
    return (steps[:, None] < lengths.to(x.device)[None, :]).unsqueeze(-1)  # (L, N, 1)


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
    tape: list | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    r"""Run ``num_layers`` recurrent layers over time-first input, as ``nn.RNN/LSTM/GRU`` do.

    The loop of :eq:`eq-cell-loop` for each layer l and direction (:math:`\rightarrow` reads
    :math:`t = 1, \dots, T`, :math:`\leftarrow` reads :math:`t = T, \dots, 1`), stacked as in
    :eq:`eq-stacked` and joined as in :eq:`eq-bidirectional`; the state :math:`s_t` is
    :math:`h_t`, or :math:`(h_t, c_t)` for the LSTM, and each layer and direction has its own
    weights:

    .. math::

        \begin{aligned}
        \overrightarrow{s}^{(l)}_t &= \operatorname{cell}\bigl(x^{(l)}_t, \overrightarrow{s}^{(l)}_{t-1}\bigr),
          \qquad
        \overleftarrow{s}^{(l)}_t = \operatorname{cell}\bigl(x^{(l)}_t, \overleftarrow{s}^{(l)}_{t+1}\bigr), \\
        x^{(0)}_t &= x_t, \qquad
        x^{(l)}_t = \bigl[\overrightarrow{h}^{(l-1)}_t \,;\, \overleftarrow{h}^{(l-1)}_t\bigr]
          \quad (l \ge 1), \\
        \text{output}_t &= \bigl[\overrightarrow{h}_t \,;\, \overleftarrow{h}_t\bigr]
          \quad (\text{the last layer}), \qquad
        h_n = \bigl[\overrightarrow{h}_T,\ \overleftarrow{h}_1\bigr] \quad (\text{each layer})
        \end{aligned}

    The states start from ``h_0`` (and ``c_0``): :math:`\overrightarrow{s}^{(l)}_0` and
    :math:`\overleftarrow{s}^{(l)}_{T+1}`. With one direction only the :math:`\rightarrow` terms
    remain (:math:`\text{output}_t = h_t`, :math:`h_n = h_T`). With ``lengths``, sequence b stops
    at its length :math:`T_b` and its reverse direction starts at :math:`x_{T_b}`; its outputs
    past :math:`T_b` are zero (:eq:`eq-packed`):

    .. math::

        \overrightarrow{h}^{(b)}_n = \overrightarrow{h}^{(b)}_{T_b}, \qquad
        \overleftarrow{h}^{(b)}_n = \overleftarrow{h}^{(b)}_1

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
    tape : list, optional
        If given, each layer and direction appends what :func:`~rnndoc.layers.stack_backward.run_layers_backward` reads:
        its input, the state each step starts from, and each step's saved tensors.

    Returns
    -------
    output : Tensor, shape (L, N, D * H_out)
        The last layer's states, both directions concatenated (forward first).
    h_n : Tensor, shape (num_layers * D, N, H_out)
    c_n : Tensor, shape (num_layers * D, N, H), or None

    Raises
    ------
    TypeError
        If a flag has the wrong type (``mode`` not a str, ``num_layers`` not an int,
        ``bidirectional`` not a bool), ``params`` is not a mapping, a tensor argument is not a
        floating tensor, ``lengths`` is not an integer tensor, ``tape`` is not a list, or the
        dtypes differ.
    ValueError
        If ``mode`` is not one of the four, ``num_layers`` < 1, a shape disagrees (the message
        names the argument or the weight, ``params['weight_hh_l0']``, with the expected shape
        and the actual one), a weight is missing, ``c_0`` is given for a mode other than LSTM
        or missing for an LSTM, ``input`` has no time step, a length lies outside [1, L], or
        the tensors are on different devices.

    Notes
    -----
    The layout of ``h_0``/``h_n`` and of the weights follows PyTorch's ``torch.nn.RNN``,
    ``torch.nn.LSTM`` and ``torch.nn.GRU`` documentation; bidirectional RNNs are Schuster
    and Paliwal (1997). :func:`rnndoc.layers.forward` checks more (the module, the caller's
    layouts, autocast).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.stack import run_layers
    >>> gru = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    >>> out, h_n, _ = run_layers(torch.zeros(5, 2, 3), torch.zeros(4, 2, 4), None, dict(gru.named_parameters()),
    ...                          mode="GRU", num_layers=2, bidirectional=True)
    >>> out.shape, h_n.shape  # (L, N, D * H_out), (D * num_layers, N, H_out)
    (torch.Size([5, 2, 8]), torch.Size([4, 2, 4]))
    """
    check_stack_arguments(input, h_0, c_0, params, mode, num_layers, bidirectional, lengths)
    if tape is not None and not isinstance(tape, list):
        raise TypeError(f"tape must be a list (run_layers fills it) or None, got {type(tape).__name__}")
    directions, mask = 2 if bidirectional else 1, _mask(lengths, input)
    x, h_n, c_n = input, [], []  # x: (L, N, H_in)
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            _, weights = _weights(params, layer, direction)
            index = layer * directions + direction
            c = None if c_0 is None else c_0[index]  # (N, H)
            out, h, c = run_direction(x, h_0[index], c, weights, mode, direction == 1, mask, tape)
            outputs.append(out)  # (L, N, H_out)
            h_n.append(h)
            c_n.append(c)
        x = torch.cat(outputs, dim=2) if directions == 2 else outputs[0]  # (L, N, D*H_out)
    return x, torch.stack(h_n), None if c_0 is None else torch.stack(c_n)  # (L, N, D*H_out), (lD, N, H_out)
