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
from ._validate import check_numbers, check_sequence

__all__ = ["handset_forward", "rnn_forward"]

Vector = Sequence[float]
Matrix = Sequence[Sequence[float]]


def _check_vector(name: str, value: object, size: int) -> list[float]:
    """``value`` as a list of ``size`` floats."""
    value = check_sequence(name, value, "a sequence of numbers", non_empty=False)
    if len(value) != size:
        raise ValueError(f"{name} must have shape ({size},), got ({len(value)},)")
    return check_numbers(name, value)


def _check_matrix(name: str, value: object, rows: int | None, cols: int) -> list[list[float]]:
    """``value`` as a list of ``rows`` (any number if None) rows of ``cols`` floats."""
    value = check_sequence(name, value, "a sequence of rows of numbers", non_empty=False)
    shape = f"({'L' if rows is None else rows}, {cols})"
    if rows is not None and len(value) != rows:
        raise ValueError(f"{name} must have shape {shape}, got {len(value)} rows")
    checked = []
    for i, row in enumerate(value):
        if isinstance(row, Sequence) and not isinstance(row, str | bytes) and len(row) != cols:
            raise ValueError(f"{name} must have shape {shape}, got row {i} of length {len(row)}")
        checked.append(_check_vector(f"{name}[{i}]", row, cols))
    return checked


def rnn_forward(
    inputs: Matrix,
    h_0: Vector,
    weight_ih: Matrix,
    weight_hh: Matrix,
    bias_ih: Vector,
    bias_hh: Vector,
) -> tuple[list[list[float]], list[list[float]]]:
    r"""Run a one-layer tanh RNN over one sequence, in plain Python floats (:eq:`eq-rnn-forward`).

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
    TypeError
        If an argument is not a (nested) sequence of numbers; the message names it.
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
    weight_ih = check_sequence("weight_ih", weight_ih, "a sequence of rows of numbers", non_empty=False)
    if not weight_ih or isinstance(weight_ih[0], str | bytes) or not isinstance(weight_ih[0], Sequence):
        raise ValueError("weight_ih must have shape (H, H_in) with H, H_in >= 1")
    hidden_size, input_size = len(weight_ih), len(weight_ih[0])
    weight_ih = _check_matrix("weight_ih", weight_ih, hidden_size, input_size)
    weight_hh = _check_matrix("weight_hh", weight_hh, hidden_size, hidden_size)
    inputs = _check_matrix("inputs", inputs, None, input_size)
    h_0, bias_ih, bias_hh = (
        _check_vector(name, vector, hidden_size)
        for name, vector in (("h_0", h_0), ("bias_ih", bias_ih), ("bias_hh", bias_hh))
    )

    h = h_0
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
