"""Experiments on the hand-set network: what changes when the order, the chunking or the step changes.

Each returns what it measured (final states, the largest differences); the book's
chapters and :mod:`rnndoc.report` read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from . import handset, witnesses
from ._validate import check_int, check_numbers, check_str
from .compare import max_abs_difference
from .finite_differences import finite_difference_gradients

__all__ = ["Chunks", "Order", "chunked_forward", "finite_difference_error", "order_sensitivity"]


@dataclass(frozen=True)
class Order:
    """Final states for two orders of the same tokens.

    Attributes
    ----------
    order, reordered : str
        Token orders, e.g. ``"ABC"`` and ``"CAB"``.
    h_n, reordered_h_n : Tensor, shape (1, 1, H)
    max_abs_difference : float

    Examples
    --------
    >>> from rnndoc.experiments import order_sensitivity
    >>> o = order_sensitivity("BCA")
    >>> o.order, o.reordered, o.h_n.shape
    ('ABC', 'BCA', torch.Size([1, 1, 2]))
    """

    order: str
    reordered: str
    h_n: torch.Tensor
    reordered_h_n: torch.Tensor
    max_abs_difference: float


def order_sensitivity(reordered: str = "CAB") -> Order:
    """Read the same tokens in another order with unchanged weights and ``h_0``.

    Parameters
    ----------
    reordered : str, default ``"CAB"``
        A permutation of ``"ABC"``.

    Returns
    -------
    Order

    Raises
    ------
    TypeError
        If ``reordered`` is not a str.
    ValueError
        If ``reordered`` is not a permutation of ``"ABC"``.

    Examples
    --------
    >>> from rnndoc.experiments import order_sensitivity
    >>> o = order_sensitivity("CAB")
    >>> o.reordered_h_n.shape, o.max_abs_difference > 0.1
    (torch.Size([1, 1, 2]), True)
    """
    reordered = check_str("reordered", reordered)
    if sorted(reordered) != sorted(handset.SEQUENCE):
        raise ValueError(f"reordered must be a permutation of {handset.SEQUENCE!r}, got {reordered!r}")
    rnn, h_0 = handset.make_rnn()
    with torch.no_grad():
        _, h_n = rnn(handset.inputs(), h_0)  # (1, 1, H)
        _, other = rnn(handset.inputs(reordered), h_0)  # (1, 1, H)
    return Order(handset.SEQUENCE, reordered, h_n, other, max_abs_difference(other, h_n))


@dataclass(frozen=True)
class Chunks:
    """The sequence read in two chunks, with the state carried and with it reset.

    Attributes
    ----------
    split : int
        Length of the first chunk.
    carried_output : Tensor, shape (1, L, H)
        Both chunks' outputs concatenated along time, state carried.
    carried_h_n, reset_h_n, h_n : Tensor, shape (1, 1, H)
        Final state with the state carried, with it reset to zeros, and of the full
        sequence.
    carry_max_abs_error : float
        Largest gap between the carried run (outputs and h_n) and the full sequence.
    reset_max_abs_difference : float
        Largest gap between the reset run's h_n and the full sequence's.

    Examples
    --------
    >>> from rnndoc.experiments import chunked_forward
    >>> c = chunked_forward(1)
    >>> c.split, c.carried_output.shape, bool(c.carried_h_n.sub(c.h_n).abs().max() < 1e-14)
    (1, torch.Size([1, 3, 2]), True)
    """

    split: int
    carried_output: torch.Tensor
    carried_h_n: torch.Tensor
    reset_h_n: torch.Tensor
    h_n: torch.Tensor
    carry_max_abs_error: float
    reset_max_abs_difference: float


def chunked_forward(split: int = 2) -> Chunks:
    """Run A, B, C as two chunks ``[:split]`` and ``[split:]``, carrying h_n or resetting it.

    Parameters
    ----------
    split : int, default 2
        Between 1 and L - 1 = 2.

    Returns
    -------
    Chunks

    Raises
    ------
    TypeError, ValueError
        If ``split`` is not an int in [1, L - 1].

    Examples
    --------
    >>> from rnndoc.experiments import chunked_forward
    >>> c = chunked_forward(2)
    >>> c.carry_max_abs_error < 1e-14, c.reset_max_abs_difference > 0.01
    (True, True)
    """
    x = handset.inputs()  # (1, L, H_in)
    length = x.shape[1]
    split = check_int("split", split, minimum=1, maximum=length - 1)
    rnn, h_0 = handset.make_rnn()
    with torch.no_grad():
        output, h_n = rnn(x, h_0)  # (1, L, H), (1, 1, H)
        first, state = rnn(x[:, :split], h_0)  # (1, split, H), (1, 1, H)
        second, carried_h_n = rnn(x[:, split:], state)  # (1, L - split, H), (1, 1, H)
        _, reset_h_n = rnn(x[:, split:], torch.zeros_like(state))  # (1, 1, H)
    carried = torch.cat([first, second], dim=1)  # (1, L, H)
    gap = max(max_abs_difference(carried, output), max_abs_difference(carried_h_n, h_n))
    return Chunks(split, carried, carried_h_n, reset_h_n, h_n, gap, max_abs_difference(reset_h_n, h_n))


def finite_difference_error(eps_values: Sequence[float]) -> list[float]:
    """Largest error of the finite-difference gradients against sympy, per step.

    Parameters
    ----------
    eps_values : list of float, length K
        Positive steps.

    Returns
    -------
    list of float, length K
        For each step, the largest absolute gap over all 14 gradient entries.

    Raises
    ------
    TypeError, ValueError
        If ``eps_values`` is not a non-empty sequence of positive finite numbers.

    Examples
    --------
    >>> from rnndoc.experiments import finite_difference_error
    >>> big, good = finite_difference_error([1e-2, 1e-6])
    >>> big > 1e-6 > 1e-8 > good
    True
    """
    steps = check_numbers("eps_values", eps_values, positive=True)
    exact = witnesses.sympy_gradients()
    errors = []
    for eps in steps:
        approx = finite_difference_gradients(eps)
        errors.append(max(max_abs_difference(approx[name], exact[name]) for name in exact))
    return errors
