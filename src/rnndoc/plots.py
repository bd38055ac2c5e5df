"""Figures the chapters draw, from the package's own numbers (matplotlib).

Drawn here: the unrolled network and the finite-difference error. The LSTM and GRU cell
diagrams (and what each gate decides) are in :mod:`rnndoc.cell_diagrams`, the gradient norms and the truncation gaps in
:mod:`rnndoc.gradient_plots`, the cost of the symbolic derivation in
:mod:`rnndoc.derivation_cost_plot`; all are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ._validate import check_float, check_numbers, check_sequence, check_str
from .cell_diagrams import draw_gru_cell, draw_gru_gates, draw_lstm_cell, draw_lstm_gates
from .derivation_cost_plot import plot_derivation_costs
from .gradient_plots import plot_gradient_norms, plot_step_gradients, plot_truncation

__all__ = [
    "draw_gru_cell",
    "draw_gru_gates",
    "draw_lstm_cell",
    "draw_lstm_gates",
    "draw_unrolled",
    "plot_derivation_costs",
    "plot_finite_difference_error",
    "plot_gradient_norms",
    "plot_step_gradients",
    "plot_truncation",
]


_BOX_WIDTH, _BOX_HEIGHT = 1.3, 0.62


def _node(ax, xy, text, color, value=None):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch(
            (x - _BOX_WIDTH / 2, y - _BOX_HEIGHT / 2),
            _BOX_WIDTH,
            _BOX_HEIGHT,
            boxstyle="round,pad=0.02",
            facecolor=color,
            edgecolor="0.25",
        )
    )
    if value is None:
        ax.text(x, y, text, ha="center", va="center", fontsize=11)
    else:
        ax.text(x, y + 0.12, text, ha="center", va="center", fontsize=11)
        ax.text(x, y - 0.15, value, ha="center", va="center", fontsize=8, color="0.2")


def _arrow(ax, start, end, label="", offset=(0.0, 0.0)):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color="0.25", lw=1.3))
    if label:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, label, ha="center", va="center", fontsize=10, color="0.15")


def draw_unrolled(
    tokens: Sequence[str],
    hidden: Sequence[Sequence[float]] | None = None,
    h_0: Sequence[float] | None = None,
) -> matplotlib.figure.Figure:
    r"""Draw the RNN unrolled over time: inputs, hidden states, loss terms and shared weights.

    Column t holds :math:`x_t` (bottom), :math:`h_t` (middle) and :math:`\ell_t` (top);
    every arrow into :math:`h_t` carries the same :math:`W_{ih}` and :math:`W_{hh}`.

    Parameters
    ----------
    tokens : sequence of str, length L
        Token names, one per step (e.g. ``"ABC"``).
    hidden : sequence of sequences of float, shape (L, H), optional
        Hidden-state values to print in each :math:`h_t` box (4 decimals).
    h_0 : sequence of float, shape (H,), optional
        Initial-state values to print in the :math:`h_0` box.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        If ``tokens`` is not a non-empty sequence of str, or ``hidden`` or ``h_0`` not
        numbers of the shape above (``hidden`` needs one row per token).

    Examples
    --------
    >>> from rnndoc.plots import draw_unrolled
    >>> fig = draw_unrolled("ABC")
    >>> len(fig.axes)
    1
    """
    tokens = list(tokens) if isinstance(tokens, str) else tokens  # a str: one-letter tokens
    tokens = [
        check_str(f"tokens[{t}]", token)
        for t, token in enumerate(check_sequence("tokens", tokens, "a str or a sequence of str"))
    ]
    if hidden is not None:
        hidden = check_sequence("hidden", hidden, "a sequence of rows of numbers")
        if len(hidden) != len(tokens):
            raise ValueError(f"hidden must have shape (L, H) with L = {len(tokens)}, got {len(hidden)} rows")
        hidden = [check_numbers(f"hidden[{t}]", row) for t, row in enumerate(hidden)]
    h_0 = None if h_0 is None else check_numbers("h_0", h_0)

    def show(values):
        return None if values is None else "(" + ", ".join(f"{v:.4f}" for v in values) + ")"

    length, step = len(tokens), 2.2
    fig = matplotlib.figure.Figure(figsize=(1.9 * (length + 1), 3.6), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_xlim(-0.8, step * length + 0.8)
    ax.set_ylim(-0.55, 3.45)
    _node(ax, (0, 1.5), "$h_0$", "#e8e8e8", show(h_0))
    half = _BOX_WIDTH / 2
    for t in range(1, length + 1):
        x = step * t
        _node(ax, (x, 0), f"$x_{t}$ = {tokens[t - 1]}", "#cfe3f6")
        _node(ax, (x, 1.5), f"$h_{t}$", "#fde2c4", show(None if hidden is None else hidden[t - 1]))
        _node(ax, (x, 3.0), rf"$\ell_{t}$", "#d9f2d9")
        _arrow(ax, (x, 0.33), (x, 1.17), "$W_{ih}$", offset=(0.3, 0))
        _arrow(ax, (x - step + half, 1.5), (x - half, 1.5), "$W_{hh}$", offset=(0, 0.2))
        _arrow(ax, (x, 1.83), (x, 2.67))
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
    TypeError, ValueError
        If ``eps`` is not a sequence of positive numbers, ``error`` not one of numbers, they
        differ in length, or ``chosen`` is not a positive number.

    Examples
    --------
    >>> from rnndoc.plots import plot_finite_difference_error
    >>> fig = plot_finite_difference_error([1e-6, 1e-3], [1e-10, 1e-7], chosen=1e-6)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    eps = check_numbers("eps", eps, positive=True)
    error = check_numbers("error", error, len(eps))
    chosen = None if chosen is None else check_float("chosen", chosen, positive=True)
    fig = matplotlib.figure.Figure(figsize=(6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    ax.loglog(eps, error, "o-", color="#1f77b4", label="max |finite difference - sympy|")
    if chosen is not None:
        ax.axvline(chosen, color="#d62728", ls="--", lw=1, label=rf"chosen $\varepsilon$ = {chosen:g}")
    ax.set_xlabel(r"step $\varepsilon$")
    ax.set_ylabel("largest absolute error")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=9, frameon=False)
    return fig
