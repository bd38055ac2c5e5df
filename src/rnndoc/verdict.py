r"""Comparison helpers: the book's tolerance policy and central finite differences.

Tolerances are a statement, so they have names:

========================  ========  ==================================================
comparison                atol      why
========================  ========  ==================================================
``FLOAT64_ATOL``          1e-12     two float64 computations of one formula: round-off
``FORWARD_ATOL``          1e-14     the same, for the short hand-set forward pass
``EXACT_ATOL``            1e-13     exact / 50-digit sympy value against float64
``FINITE_DIFF_ATOL``      1e-7      central difference: O(eps^2) truncation plus
                                    O(1e-16 / eps) round-off, eps = 1e-6
========================  ========  ==================================================

Every comparison uses ``rtol=0``: the error is bounded in absolute terms.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = [
    "EXACT_ATOL",
    "FINITE_DIFF_ATOL",
    "FINITE_DIFF_EPS",
    "FLOAT64_ATOL",
    "FORWARD_ATOL",
    "assert_close",
    "central_difference",
    "max_abs_difference",
]

#: Two float64 computations of the same formula: round-off only.
FLOAT64_ATOL = 1e-12
#: The plain-Python forward pass against ``nn.RNN`` on the hand-set example (3 steps, 2 units).
FORWARD_ATOL = 1e-14
#: An exact (or 50-digit) sympy value against a float64 computation: one rounding chain.
EXACT_ATOL = 1e-13
#: Central differences at ``FINITE_DIFF_EPS``: truncation O(eps^2) plus round-off O(1e-16/eps).
FINITE_DIFF_ATOL = 1e-7
#: The finite-difference step that balances truncation and round-off in float64.
FINITE_DIFF_EPS = 1e-6


def _as_tensor(name: str, value: object) -> torch.Tensor:
    try:
        tensor = torch.as_tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"{name} must be a tensor or nested list of numbers: {error}") from None
    return tensor.detach()


def max_abs_difference(actual: object, expected: object) -> float:
    """The largest absolute entry-wise difference, as a Python float.

    Parameters
    ----------
    actual, expected : Tensor or nested sequence of float, same shape (any)
        Compared in float64.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If an argument cannot be read as numbers.
    ValueError
        If the shapes differ, naming both.

    Examples
    --------
    >>> from rnndoc.verdict import max_abs_difference
    >>> max_abs_difference([1.0, 2.0], [1.0, 2.5])
    0.5
    """
    a, b = _as_tensor("actual", actual), _as_tensor("expected", expected)
    if a.shape != b.shape:
        raise ValueError(
            f"actual and expected must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}"
        )
    return float((a - b).abs().max()) if a.numel() else 0.0


def assert_close(actual: object, expected: object, atol: float, what: str = "values") -> float:
    """Assert ``|actual - expected| <= atol`` entry-wise (``rtol=0``) and return the largest gap.

    Parameters
    ----------
    actual, expected : Tensor or nested sequence of float, same shape (any)
    atol : float
        One of :data:`rnndoc.verdict.FLOAT64_ATOL`, :data:`rnndoc.verdict.EXACT_ATOL`,
        :data:`rnndoc.verdict.FINITE_DIFF_ATOL`, or tighter.
    what : str
        Named in the failure message.

    Returns
    -------
    float
        :func:`max_abs_difference` of the two, for the book to glue.

    Raises
    ------
    AssertionError
        If a difference exceeds ``atol``; the message names ``what``, the gap and ``atol``.
    ValueError
        If the shapes differ, or ``atol`` is negative or not a number.

    Examples
    --------
    >>> from rnndoc.verdict import assert_close
    >>> assert_close([0.1 + 0.2], [0.3], atol=1e-15)
    5.551115123125783e-17
    >>> assert_close([1.0], [1.1], atol=1e-12, what="h_n")
    Traceback (most recent call last):
    ...
    AssertionError: h_n: max |difference| 0.10000000000000009 exceeds atol 1e-12
    """
    if isinstance(atol, bool) or not isinstance(atol, int | float) or not 0 <= atol < float("inf"):
        raise ValueError(f"atol must be a non-negative finite number, got {atol!r}")
    gap = max_abs_difference(actual, expected)
    if not gap <= atol:  # also catches NaN
        raise AssertionError(f"{what}: max |difference| {gap!r} exceeds atol {atol!r}")
    return gap


def central_difference(
    function: Callable[[torch.Tensor], torch.Tensor | float],
    point: torch.Tensor,
    eps: float = FINITE_DIFF_EPS,
) -> torch.Tensor:
    r"""Gradient of a scalar function by central differences, entry by entry.

    .. math:: \frac{\partial f}{\partial \theta_k} \approx
              \frac{f(\theta + \varepsilon e_k) - f(\theta - \varepsilon e_k)}{2 \varepsilon}

    The truncation error is :math:`O(\varepsilon^2)`; the round-off error is about
    :math:`10^{-16} |f| / \varepsilon`, so :math:`\varepsilon \approx 10^{-6}` balances
    them near :math:`10^{-10}` in float64.

    Parameters
    ----------
    function : callable
        Takes a tensor shaped like ``point`` and returns a scalar (tensor or float).
        It is called ``2 * point.numel()`` times under ``torch.no_grad()``.
    point : Tensor, any shape, floating dtype
        Where to differentiate; it is not modified.
    eps : float, default 1e-6
        The step, positive.

    Returns
    -------
    Tensor, same shape and dtype as ``point``

    Raises
    ------
    TypeError
        If ``point`` is not a floating tensor.
    ValueError
        If ``eps`` is not positive and finite, or ``function`` does not return a scalar.

    Notes
    -----
    The standard central difference; see e.g. Nocedal and Wright, *Numerical
    Optimization* (2006), section 8.1.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.verdict import central_difference
    >>> g = central_difference(lambda v: (v**3).sum(), torch.tensor([1.0, 2.0], dtype=torch.float64))
    >>> [round(x, 6) for x in g.tolist()]
    [3.0, 12.0]
    """
    if not isinstance(point, torch.Tensor) or not point.is_floating_point():
        raise TypeError(f"point must be a floating torch.Tensor, got {type(point).__name__}")
    if not (isinstance(eps, float | int) and 0 < eps < float("inf")):
        raise ValueError(f"eps must be a positive finite number, got {eps!r}")
    base = point.detach().clone()
    grad = torch.empty_like(base)
    with torch.no_grad():
        for k in range(base.numel()):
            values = []
            for sign in (1.0, -1.0):
                shifted = base.clone()
                shifted.view(-1)[k] += sign * eps
                value = function(shifted)
                if isinstance(value, torch.Tensor) and value.numel() != 1:
                    raise ValueError(
                        f"function must return a scalar, got a tensor of shape {tuple(value.shape)}"
                    )
                values.append(float(value))
            grad.view(-1)[k] = (values[0] - values[1]) / (2 * eps)
    return grad
