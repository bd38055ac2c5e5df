r"""The adding problem's data and scores.

:func:`~rnndoc.adding.adding_batch` draws the batches; an answer is scored by
:func:`~rnndoc.adding.evaluate` against :data:`TOLERANCE`, a run against
:data:`MEAN_BASELINE_MSE` (:data:`SOLVED_FRACTION`, :data:`FAILED_MSE`). These thresholds
judge a training outcome (is an answer close enough, has a run learned), not how closely two
computations of one quantity agree, so they live here and not in
:data:`rnndoc.verdict.TOLERANCES`.

A variant of Hochreiter and Schmidhuber (1997), section 5.4, with the values, target and baseline
of Le, Jaitly and Hinton (2015); the marker rule is this book's own.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .._validate import (
    check_callable,
    check_dtype,
    check_instance,
    check_int,
    check_same_device,
    check_tensor,
)

__all__ = ["FAILED_MSE", "MEAN_BASELINE_MSE", "SOLVED_FRACTION", "TOLERANCE", "adding_batch", "evaluate"]

#: MSE of always answering 1, the mean target: Var(u_1 + u_2) = 2/12 for u uniform on [0, 1).
MEAN_BASELINE_MSE = 1 / 6
#: An answer is right within 0.04 of the target: the threshold of Hochreiter and Schmidhuber (1997),
#: borrowed; their target was half of ours (values in [-1, 1], scored 0.5 + (X1 + X2)/4), so here it is twice as strict.
TOLERANCE = 0.04
#: A run has solved the task when at least this fraction of held-out answers is right.
SOLVED_FRACTION = 0.9
#: A run has failed when its held-out MSE is at least this: 90 % of the mean baseline's.
FAILED_MSE = 0.9 * MEAN_BASELINE_MSE


def _check_lengths(length: object, first_window: object) -> tuple[int, int]:
    """L and the first marker's window, each at least 1, with room for both markers."""
    first_window = check_int("first_window", first_window, minimum=1)
    length = check_int("length", length, minimum=1)
    if length < 2 * first_window + 2:
        raise ValueError(
            f"length must be at least 2 * first_window + 2 = {2 * first_window + 2}, got {length}"
        )
    return length, first_window


def adding_batch(
    batch_size: int,
    length: int = 50,
    first_window: int = 10,
    *,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Draw a batch of the adding problem.

    .. math:: y = \sum_{t=1}^{T} u_t\, \mu_t, \qquad u_t \sim U[0, 1),\quad \mu_t \in \{0, 1\},\quad
              \textstyle\sum_t \mu_t = 2

    Parameters
    ----------
    batch_size : int
        N, at least 1.
    length : int, default 50
        L, the sequence length; at least ``2 * first_window + 2``.
    first_window : int, default 10
        The first marker is at one of the steps 1 ... ``first_window``; the second at one of
        the steps ``first_window + 1`` ... L/2 (L/2 rounded down).
    generator : torch.Generator
        The only source of randomness: the same generator state gives the same batch.
    dtype : torch.dtype, default torch.float32

    Returns
    -------
    inputs : Tensor, shape (N, L, 2)
        Feature 0 is :math:`u_t`, feature 1 the marker :math:`\mu_t` (``batch_first`` layout).
    targets : Tensor, shape (N,)

    Raises
    ------
    TypeError
        If a size is not an int, ``generator`` not a ``torch.Generator`` or ``dtype`` not a
        ``torch.dtype``.
    ValueError
        If a size is below 1, ``length < 2 * first_window + 2`` or ``dtype`` is not floating.

    Notes
    -----
    Values, target and baseline as in Le, Jaitly and Hinton (2015); the marker rule is this book's
    own; the task is a variant of Hochreiter and Schmidhuber (1997), section 5.4.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import adding_batch
    >>> inputs, targets = adding_batch(3, 10, 2, generator=torch.Generator().manual_seed(0))
    >>> inputs.shape, targets.shape, inputs[:, :, 1].sum(dim=1).tolist()
    (torch.Size([3, 10, 2]), torch.Size([3]), [2.0, 2.0, 2.0])
    >>> torch.equal(targets, (inputs[:, :, 0] * inputs[:, :, 1]).sum(dim=1))
    True
    """
    n = check_int("batch_size", batch_size, minimum=1)
    length, first_window = _check_lengths(length, first_window)
    check_instance("generator", generator, torch.Generator, "a torch.Generator")
    check_dtype("dtype", check_instance("dtype", dtype, torch.dtype, "a torch.dtype"))
    values = torch.rand(n, length, generator=generator, dtype=dtype)  # (N, L)
    first = torch.randint(0, first_window, (n,), generator=generator)  # (N,)
    second = torch.randint(first_window, length // 2, (n,), generator=generator)  # (N,)
    markers = torch.zeros(n, length, dtype=dtype)  # (N, L)
    rows = torch.arange(n)
    markers[rows, first] = 1
    markers[rows, second] = 1
    return torch.stack([values, markers], dim=-1), (values * markers).sum(dim=1)  # (N, L, 2), (N,)


def evaluate(
    model: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor
) -> tuple[float, float]:
    r"""Mean squared error and the fraction of answers within :data:`~rnndoc.adding.task.TOLERANCE`.

    .. math:: \mathrm{MSE} = \frac1N \sum_n (\hat y_n - y_n)^2, \qquad
              \text{right} = \frac1N \bigl|\{n : |\hat y_n - y_n| < 0.04\}\bigr|

    Parameters
    ----------
    model : callable
        Maps (N, L, 2) to (N,), as :class:`AddingModel`.
    inputs : Tensor, shape (N, L, F)
        F = 2 for :class:`AddingModel`; any F the model reads.
    targets : Tensor, shape (N,)

    Returns
    -------
    tuple (float, float)
        The MSE and the fraction right, as Python floats.

    Raises
    ------
    TypeError
        If ``model`` is not callable or returns no tensor, or ``inputs`` or ``targets`` is not
        a floating tensor.
    ValueError
        If ``inputs`` is not 3-d, ``targets`` not (N,), the model's answers are not of the
        targets' shape, or they are not all on one device. N = 0 gives NaN for both, as
        ``torch.mean`` of nothing does.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import evaluate
    >>> evaluate(lambda x: x[:, 0, 0], torch.tensor([[[1.0]], [[2.0]]]), torch.tensor([1.0, 1.5]))
    (0.125, 0.5)
    """
    check_callable("model", model)
    check_tensor("inputs", inputs, (None, None, None), "(N, L, F)")
    check_tensor("targets", targets, (inputs.shape[0],), "(N,)")
    check_same_device("inputs", inputs, targets=targets)
    with torch.no_grad():
        answers = model(inputs)  # (N,)
    if not isinstance(answers, torch.Tensor):
        raise TypeError(f"model must return a torch.Tensor, got {type(answers).__name__}")
    check_same_device("targets", targets, **{"model answers": answers})
    if answers.shape != targets.shape:
        raise ValueError(f"model answers must have shape {tuple(targets.shape)}, got {tuple(answers.shape)}")
    error = answers - targets  # (N,)
    return error.square().mean().item(), (error.abs() < TOLERANCE).double().mean().item()
