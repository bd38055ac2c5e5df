"""Figures the chapters draw, from the package's own numbers (matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

__all__ = ["draw_unrolled", "plot_finite_difference_error"]


def _node(ax, xy, text, color):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch(
            (x - 0.42, y - 0.28), 0.84, 0.56, boxstyle="round,pad=0.02", facecolor=color, edgecolor="0.25"
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=11)


def _arrow(ax, start, end, label="", offset=(0.0, 0.0)):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color="0.25", lw=1.3))
    if label:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, label, ha="center", va="center", fontsize=10, color="0.15")


def draw_unrolled(
    tokens: Sequence[str], hidden: Sequence[Sequence[float]] | None = None
) -> matplotlib.figure.Figure:
    r"""Draw the RNN unrolled over time: inputs, hidden states, loss terms and shared weights.

    Column t holds :math:`x_t` (bottom), :math:`h_t` (middle) and :math:`\ell_t` (top);
    every arrow into :math:`h_t` carries the same :math:`W_{ih}` and :math:`W_{hh}`.

    Parameters
    ----------
    tokens : sequence of str, length L
        Token names, one per step (e.g. ``"ABC"``).
    hidden : sequence of sequences of float, shape (L, H), optional
        Hidden-state values to print under each :math:`h_t` (rounded to 3 places).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``hidden`` does not have one row per token.

    Examples
    --------
    >>> from rnndoc.plots import draw_unrolled
    >>> fig = draw_unrolled("ABC")
    >>> len(fig.axes)
    1
    """
    if hidden is not None and len(hidden) != len(tokens):
        raise ValueError(f"hidden must have shape (L, H) with L = {len(tokens)}, got {len(hidden)} rows")
    length = len(tokens)
    fig = matplotlib.figure.Figure(figsize=(1.9 * (length + 1), 3.6), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(-0.6, 1.9 * length + 0.5)
    ax.set_ylim(-0.55, 3.45)
    _node(ax, (0, 1.5), "$h_0$", "#e8e8e8")
    for t in range(1, length + 1):
        x = 1.9 * t
        _node(ax, (x, 0), f"$x_{t}$ = {tokens[t - 1]}", "#cfe3f6")
        _node(ax, (x, 1.5), f"$h_{t}$", "#fde2c4")
        _node(ax, (x, 3.0), rf"$\ell_{t}$", "#d9f2d9")
        _arrow(ax, (x, 0.3), (x, 1.2), "$W_{ih}$", offset=(0.32, 0))
        _arrow(ax, (x - 1.45, 1.5), (x - 0.44, 1.5), "$W_{hh}$", offset=(0, 0.22))
        _arrow(ax, (x, 1.8), (x, 2.7))
        if hidden is not None:
            values = ", ".join(f"{v:.3f}" for v in hidden[t - 1])
            ax.text(x, 0.93, f"({values})", ha="center", va="center", fontsize=8, color="0.3")
    return fig


def plot_finite_difference_error(
    eps: Sequence[float], error: Sequence[float], chosen: float | None = None
) -> matplotlib.figure.Figure:
    r"""Plot the central-difference error against the step on log-log axes.

    Parameters
    ----------
    eps : sequence of float, length K
        Steps :math:`\varepsilon`.
    error : sequence of float, length K
        Largest absolute error of the finite-difference gradient at each step.
    chosen : float, optional
        A step to mark with a vertical line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``eps`` and ``error`` differ in length.

    Examples
    --------
    >>> from rnndoc.plots import plot_finite_difference_error
    >>> fig = plot_finite_difference_error([1e-6, 1e-3], [1e-10, 1e-7], chosen=1e-6)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    if len(eps) != len(error):
        raise ValueError(f"error must have length {len(eps)} (one per eps), got {len(error)}")
    fig = matplotlib.figure.Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    ax.loglog(eps, error, "o-", color="#1f77b4", label="max |finite difference - sympy|")
    if chosen is not None:
        ax.axvline(chosen, color="#d62728", ls="--", lw=1, label=rf"chosen $\varepsilon$ = {chosen:g}")
    ax.set_xlabel(r"step $\varepsilon$")
    ax.set_ylabel("largest absolute error")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    return fig
