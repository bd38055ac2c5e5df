r"""What the symbolic derivation costs: time and expression size, direct versus recursive.

Differentiating the unrolled loss directly writes every derivative as a tree in which each
earlier state appears again and again: each entry of h_t holds all H entries of h_{t-1}, so
for H >= 2 the trees grow at least geometrically with the number of steps T, with base H
(for H = 1, as a cubic in T). Common-subexpression elimination (``sympy.cse``) shares the repeated pieces again;
after it, both methods grow by a fixed amount per step, the δ recursion by less.
"""

from __future__ import annotations

import time

import sympy

from .._validate import check_choice, check_float, check_int
from .gradients import bptt, direct_gradients
from .network import symbolic_parameters, symbolic_sequence, unroll

__all__ = ["derivation_costs"]


def _size(expressions) -> int:
    return sum(sympy.count_ops(e) for e in expressions)


def derivation_costs(
    hidden_size: int,
    method: str,
    budget_seconds: float,
    max_length: int = 12,
    input_size: int = 2,
    min_length: int = 3,
) -> list[dict]:
    r"""Time and size of all gradients of the unrolled loss, for T = 1, 2, ... until over budget.

    Parameters, inputs and targets are all symbols. ``method="direct"``: ``sympy.diff`` of the
    unrolled loss by each of the parameter entries (:func:`rnndoc.symbolic.direct_gradients`);
    ``method="recursion"``: :func:`rnndoc.symbolic.bptt`. Both results then go through
    ``sympy.cse``.

    Parameters
    ----------
    hidden_size : int
        H, at least 1.
    method : {"direct", "recursion"}
    budget_seconds : float
        After ``min_length``, the curve ends at the first T whose measurement takes longer
        (that point is included).
    max_length : int, default 12
        Largest T tried.
    input_size : int, default 2
    min_length : int, default 3
        Always measured, whatever the budget: a slow machine shortens the curves, it does not
        remove the points the claims are checked on.

    Returns
    -------
    list of dict
        One per T: ``length``, ``seconds`` (wall clock, ``time.perf_counter``, derivation and
        ``cse`` together; the counting of operations is not timed), ``size`` (``sympy.count_ops`` of the gradients as trees; only for
        ``"direct"``, None for the recursion, whose trees share subexpressions by
        construction), ``size_cse`` (operations after ``cse``, shared pieces counted once) and
        ``over_budget`` (bool).

    Raises
    ------
    TypeError, ValueError
        If ``method`` is unknown, ``budget_seconds`` is not a positive number, or a size or
        length is not a positive int.

    Examples
    --------
    >>> from rnndoc.symbolic.derivation_cost import derivation_costs
    >>> [point["size_cse"] for point in derivation_costs(1, "recursion", budget_seconds=60, max_length=3)]
    [16, 36, 56]
    """
    hidden_size = check_int("hidden_size", hidden_size, minimum=1)
    method = check_choice("method", method, ("direct", "recursion"))
    budget_seconds = check_float("budget_seconds", budget_seconds, positive=True)
    max_length = check_int("max_length", max_length, minimum=1)
    input_size = check_int("input_size", input_size, minimum=1)
    min_length = check_int("min_length", min_length, minimum=1)
    points = []
    for length in range(1, max_length + 1):
        net = unroll(
            symbolic_parameters(input_size, hidden_size), *symbolic_sequence(length, input_size, hidden_size)
        )
        start = time.perf_counter()  # the derivation and cse only; the counting is not timed
        gradients = direct_gradients(net) if method == "direct" else bptt(net).gradients
        entries = [e for grad in gradients.values() for e in grad]
        replacements, reduced = sympy.cse(entries)
        seconds = time.perf_counter() - start
        size = _size(entries) if method == "direct" else None
        size_cse = _size(e for _, e in replacements) + _size(reduced)
        points.append(
            {
                "length": length,
                "seconds": seconds,
                "size": size,
                "size_cse": size_cse,
                "over_budget": seconds > budget_seconds,
            }
        )
        if seconds > budget_seconds and length >= min_length:
            break
    return points
