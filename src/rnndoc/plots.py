"""Figures the chapters draw, from the package's own numbers (matplotlib).

The LSTM and GRU cell diagrams are drawn in :mod:`rnndoc.cell_diagrams` and re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ._validate import check_choice, check_float, check_int, check_mapping, check_numbers, check_str
from .cell_diagrams import draw_gru_cell, draw_lstm_cell

__all__ = [
    "draw_gru_cell",
    "draw_lstm_cell",
    "draw_unrolled",
    "plot_derivation_costs",
    "plot_finite_difference_error",
    "plot_gradient_norms",
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
    if isinstance(tokens, str | bytes) or not isinstance(tokens, Sequence):
        tokens = check_str("tokens", tokens)  # a str is a sequence of one-letter tokens
    if not tokens:
        raise ValueError("tokens must not be empty")
    tokens = [check_str(f"tokens[{t}]", token) for t, token in enumerate(tokens)]
    if hidden is not None:
        if isinstance(hidden, str | bytes) or not isinstance(hidden, Sequence):
            raise TypeError(f"hidden must be a sequence of rows of numbers, got {type(hidden).__name__}")
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


def plot_gradient_norms(
    curves: dict[str, Sequence[float]], bounds: dict[str, float] | None = None
) -> matplotlib.figure.Figure:
    r"""Plot :math:`\lVert \partial h_T / \partial h_t \rVert_2` against the distance T - t, log scale.

    Parameters
    ----------
    curves : dict of str to sequence of float
        A label and the norms at distances 0, 1, 2, ... (a list, or a 1-d tensor as from
        :func:`rnndoc.vanishing.state_gradient_norms`).
    bounds : dict of str to float, optional
        A curve's label and its :math:`\sigma_{\max}`: the bound :math:`\sigma_{\max}^{T-t}` is
        drawn dashed, in that curve's colour.

    Returns
    -------
    matplotlib.figure.Figure
        The legend sits below the axes, clear of the data.

    Raises
    ------
    TypeError, ValueError
        If ``curves`` is not a mapping of labels to non-empty sequences of numbers, ``bounds``
        not a mapping of labels to positive numbers, or a key of ``bounds`` is not a key of
        ``curves``.

    Examples
    --------
    >>> from rnndoc.plots import plot_gradient_norms
    >>> fig = plot_gradient_norms({"a": [1.0, 0.5, 0.25]}, {"a": 0.5})
    >>> ax = fig.axes[0]
    >>> ax.get_yscale(), len(ax.lines), ax.lines[0].get_color() == ax.lines[1].get_color()
    ('log', 2, True)
    """
    curves = {
        label: check_numbers(f"curves[{label!r}]", norms)
        for label, norms in check_mapping("curves", curves).items()
    }
    bounds = {
        label: check_float(f"bounds[{label!r}]", sigma, positive=True)
        for label, sigma in check_mapping("bounds", {} if bounds is None else bounds).items()
    }
    unknown = sorted(set(bounds) - set(curves))
    if unknown:
        raise ValueError(f"bounds must be keyed by curve labels {sorted(curves)}, got {unknown}")
    fig = matplotlib.figure.Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    for label, norms in curves.items():
        (line,) = ax.semilogy(range(len(norms)), norms, "o-", ms=3, label=label)
        if label in bounds:
            sigma = bounds[label]
            distances = range(len(norms))
            ax.semilogy(distances, [sigma**d for d in distances], "--", lw=1, color=line.get_color(),
                        label=f"bound {sigma:g}$^{{T-t}}$")  # fmt: skip
    ax.set_xlabel("distance T - t (steps)")
    ax.set_ylabel(r"$\|\partial h_T / \partial h_t\|_2$")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    return fig


def _check_costs(costs: object) -> dict[tuple[int, str], list[dict]]:
    checked = {}
    for key, points in check_mapping("costs", costs).items():
        if not isinstance(key, tuple) or len(key) != 2:  # (H, method)
            raise TypeError(f"costs must be keyed by (H, method) tuples, got {key!r}")
        check_int(f"costs key {key!r}: H", key[0], minimum=1)
        check_choice(f"costs key {key!r}: method", key[1], ("direct", "recursion"))
        if isinstance(points, str | bytes) or not isinstance(points, Sequence):
            raise TypeError(f"costs[{key!r}] must be a sequence of points, got {type(points).__name__}")
        for k, point in enumerate(points):
            fields = ("length", "size_cse", *(("size",) if key[1] == "direct" else ()))
            check_mapping(f"costs[{key!r}][{k}]", point, fields)
            for field in fields:
                check_float(f"costs[{key!r}][{k}][{field!r}]", point[field])
        checked[key] = list(points)
    return checked


def plot_derivation_costs(costs: dict[tuple[int, str], Sequence[dict]]) -> matplotlib.figure.Figure:
    r"""Plot the size of the derived gradients against T: one colour per H, one style per method.

    Parameters
    ----------
    costs : dict of (int, str) to sequence of dict
        Keyed by (H, method), method ``"direct"`` or ``"recursion"``; each point has the keys
        ``length``, ``size`` (operations as plain trees) and ``size_cse`` (after ``sympy.cse``),
        as from :func:`rnndoc.symbolic.derivation_cost.derivation_costs`. The recursion is drawn after
        ``cse`` only.

    Returns
    -------
    matplotlib.figure.Figure
        Log-scale operation counts; the legend (colours: H, styles: method) sits below the axes.

    Raises
    ------
    TypeError, ValueError
        If ``costs`` is not a mapping keyed by (H, method) with H a positive int and method
        ``"direct"`` or ``"recursion"``, or a point lacks a key or holds no number there.

    Examples
    --------
    >>> from rnndoc.plots import plot_derivation_costs
    >>> point = lambda t, n: {"length": t, "size": 10 * n, "size_cse": n}
    >>> fig = plot_derivation_costs({(2, "direct"): [point(1, 5), point(2, 9)],
    ...                              (2, "recursion"): [point(1, 4), point(2, 6)]})
    >>> ax = fig.axes[0]
    >>> len(ax.lines), len({line.get_color() for line in ax.lines})  # three series, one colour for H = 2
    (3, 1)
    """
    from matplotlib.lines import Line2D  # noqa: PLC0415 (only this figure needs it)
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415

    styles = {  # (method, what is counted): marker and line style
        ("direct", "size"): ("o", "-", "direct, plain trees"),
        ("direct", "size_cse"): ("^", ":", "direct + cse"),
        ("recursion", "size_cse"): ("s", "--", "recursion + cse"),
    }
    costs = _check_costs(costs)
    hidden_sizes = sorted({h for h, _ in costs})
    colors = dict(zip(hidden_sizes, ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"], strict=False))
    fig = matplotlib.figure.Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for (h, method), points in costs.items():
        lengths = [p["length"] for p in points]
        for (kind, key), (marker, linestyle, _) in styles.items():
            if kind == method:
                ax.semilogy(lengths, [p[key] for p in points], marker=marker, ls=linestyle, ms=5,
                            color=colors.get(h, "0.3"))  # fmt: skip
    ax.set_xlabel("steps T")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # T is a count of steps
    ax.set_ylabel("operations in all gradients")
    ax.grid(True, alpha=0.3)
    by_size = [Line2D([], [], color=colors.get(h, "0.3"), lw=2, label=f"H = {h}") for h in hidden_sizes]
    by_method = [Line2D([], [], color="0.3", marker=m, ls=ls, label=text) for m, ls, text in styles.values()]
    columns = max(len(by_size), len(by_method))
    by_size += [Line2D([], [], alpha=0, label=" ")] * (columns - len(by_size))
    by_method += [Line2D([], [], alpha=0, label=" ")] * (columns - len(by_method))
    # the legend fills column by column: pair them so that row 1 is the colours, row 2 the styles
    handles = [handle for pair in zip(by_size, by_method, strict=True) for handle in pair]
    fig.legend(handles=handles, loc="outside lower center", ncols=columns, fontsize=8, frameon=False,
               handlelength=3)  # fmt: skip
    return fig


def plot_truncation(lengths: Sequence[int], gaps: Sequence[float]) -> matplotlib.figure.Figure:
    r"""Plot how far truncated-BPTT gradients are from full BPTT, against the chunk length.

    Parameters
    ----------
    lengths : sequence of int, length K
        Chunk lengths k.
    gaps : sequence of float, length K
        Largest absolute difference from the full gradients at each k (0 is drawn at the
        bottom of the log axis).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        If ``lengths`` is not a non-empty sequence of positive ints, ``gaps`` not as many
        numbers of at least 0.

    Examples
    --------
    >>> from rnndoc.plots import plot_truncation
    >>> plot_truncation([1, 2, 3], [0.1, 0.01, 0.0]).axes[0].get_yscale()
    'log'
    """
    if isinstance(lengths, str | bytes) or not isinstance(lengths, Sequence):
        raise TypeError(f"lengths must be a sequence of ints, got {type(lengths).__name__}")
    if not lengths:
        raise ValueError("lengths must not be empty")
    lengths = [check_int(f"lengths[{k}]", n, minimum=1) for k, n in enumerate(lengths)]
    gaps = check_numbers("gaps", gaps, len(lengths))
    if min(gaps) < 0:
        raise ValueError(f"gaps must hold distances (at least 0), got {min(gaps)}")
    fig = matplotlib.figure.Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.add_subplot()
    floor = min([g for g in gaps if g > 0], default=1.0) / 10
    ax.semilogy(lengths, [max(g, floor) for g in gaps], "o-", color="#1f77b4")
    ax.set_xlabel("chunk length k (steps between detaches)")
    ax.set_ylabel("max |truncated - full gradient|")
    ax.grid(True, which="major", alpha=0.3)
    return fig
