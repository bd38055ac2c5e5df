r"""A plain-Python forward pass of the Elman RNN: lists and ``math.tanh``, no torch.

This is the book's first, independent witness: it shares no code with PyTorch, so when
it agrees with ``torch.nn.RNN`` both are right about the equation below. It reads the
hand-set numbers as plain floats (:func:`rnndoc.handset.floats`): nothing on its path
imports torch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import handset

__all__ = ["handset_forward", "rnn_forward"]

Vector = Sequence[float]
Matrix = Sequence[Sequence[float]]


def _shape_error(name: str, expected: str, actual: str) -> ValueError:
    return ValueError(f"{name} must have shape {expected}, got {actual}")


def _check_matrix(name: str, value: Matrix, rows: int, cols: int) -> None:
    if len(value) != rows:
        raise _shape_error(name, f"({rows}, {cols})", f"{len(value)} rows")
    for i, row in enumerate(value):
        if len(row) != cols:
            raise _shape_error(name, f"({rows}, {cols})", f"row {i} of length {len(row)}")


def rnn_forward(
    inputs: Matrix,
    h_0: Vector,
    weight_ih: Matrix,
    weight_hh: Matrix,
    bias_ih: Vector,
    bias_hh: Vector,
) -> tuple[list[list[float]], list[list[float]]]:
    r"""Run a one-layer tanh RNN over one sequence, in plain Python floats.

    .. math::

        a_t = W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}, \qquad h_t = \tanh(a_t)

    Parameters
    ----------
    inputs : sequence of sequences of float, shape (L, H_in)
        One input vector :math:`x_t` per time step; L is the sequence length.
    h_0 : sequence of float, shape (H,)
        The initial hidden state.
    weight_ih : sequence of sequences of float, shape (H, H_in)
        PyTorch's ``weight_ih_l0``: row ``i`` feeds hidden unit ``i``.
    weight_hh : sequence of sequences of float, shape (H, H)
        PyTorch's ``weight_hh_l0``.
    bias_ih, bias_hh : sequence of float, shape (H,)

    Returns
    -------
    preactivations : list of list of float, shape (L, H)
        :math:`a_t` for t = 1 ... L.
    hidden : list of list of float, shape (L, H)
        :math:`h_t` for t = 1 ... L; ``hidden[-1]`` is ``h_n``.

    Raises
    ------
    ValueError
        If ``weight_ih`` is empty or a shape disagrees with it; the message names the
        argument, the expected shape and what was found.

    Notes
    -----
    Equation and orientation as in PyTorch's ``torch.nn.RNN`` documentation; the
    network is Elman's (1990).

    Examples
    --------
    >>> from rnndoc.reference import rnn_forward
    >>> a, h = rnn_forward([[1.0, 0.0]], [0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]],
    ...                    [[0.0, 0.0], [0.0, 0.0]], [0.0, 0.0], [0.0, 0.0])
    >>> a, [round(v, 6) for v in h[0]]
    ([[1.0, 0.0]], [0.761594, 0.0])
    """
    hidden_size = len(weight_ih)
    if hidden_size == 0 or len(weight_ih[0]) == 0:
        raise ValueError("weight_ih must have shape (H, H_in) with H, H_in >= 1, got an empty matrix")
    input_size = len(weight_ih[0])
    _check_matrix("weight_ih", weight_ih, hidden_size, input_size)
    _check_matrix("weight_hh", weight_hh, hidden_size, hidden_size)
    _check_matrix("inputs", inputs, len(inputs), input_size)
    for name, vector in (("h_0", h_0), ("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if len(vector) != hidden_size:
            raise _shape_error(name, f"({hidden_size},)", f"({len(vector)},)")

    h = list(h_0)
    preactivations, hidden = [], []
    for x in inputs:
        # a_t[i] = sum_j W_ih[i][j] x_t[j] + b_ih[i] + sum_j W_hh[i][j] h_{t-1}[j] + b_hh[i]
        a = [
            math.fsum(w * v for w, v in zip(weight_ih[i], x, strict=True))
            + bias_ih[i]
            + math.fsum(w * v for w, v in zip(weight_hh[i], h, strict=True))
            + bias_hh[i]
            for i in range(hidden_size)
        ]
        h = [math.tanh(v) for v in a]  # h_t = tanh(a_t)
        preactivations.append(a)
        hidden.append(h)
    return preactivations, hidden


def handset_forward(order: str = handset.SEQUENCE) -> tuple[list[list[float]], list[list[float]]]:
    """:func:`rnn_forward` on the hand-set network and one sequence, torch-free.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order.

    Returns
    -------
    preactivations, hidden : list of list of float, shape (L, H)
        As :func:`rnn_forward`.

    Raises
    ------
    TypeError, ValueError
        If ``order`` is not a non-empty string over A, B, C.

    Examples
    --------
    >>> from rnndoc.reference import handset_forward
    >>> _, hidden = handset_forward()
    >>> round(hidden[-1][0], 12)
    0.25336085289
    """
    v = handset.floats(order)
    (sequence,), (((*h_0,),),) = v["inputs"], v["h_0"]  # one sequence, one layer: (L, H_in), (H,)
    return rnn_forward(sequence, h_0, v["weight_ih_l0"], v["weight_hh_l0"], v["bias_ih_l0"], v["bias_hh_l0"])
