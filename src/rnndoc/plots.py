"""Figures the chapters draw, from the package's own numbers (matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

__all__ = [
    "draw_gru_cell",
    "draw_lstm_cell",
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
    fig.legend(loc="outside lower center", ncols=2, fontsize=9, frameon=False)
    return fig


def _op(ax, xy, text, radius=0.22):
    from matplotlib.patches import Circle  # noqa: PLC0415 (only the cell diagrams use it)

    ax.add_patch(Circle(xy, radius, facecolor="white", edgecolor="0.25", lw=1.2))
    ax.text(*xy, text, ha="center", va="center", fontsize=12)


def _gate(ax, xy, text, color):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch(
            (x - 0.34, y - 0.24), 0.68, 0.48, boxstyle="round,pad=0.02", facecolor=color, edgecolor="0.25"
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=10)


def _line(ax, points, label="", offset=(0.0, 0.18), arrow=True):
    xs, ys = zip(*points, strict=True)
    if len(points) > 2:
        ax.plot(xs[:-1], ys[:-1], color="0.25", lw=1.3)
    start = points[-2]
    if arrow:
        ax.add_patch(
            FancyArrowPatch(start, points[-1], arrowstyle="-|>", mutation_scale=12, color="0.25", lw=1.3)
        )
    else:
        ax.plot([start[0], points[-1][0]], [start[1], points[-1][1]], color="0.25", lw=1.3)
    if label:
        ax.text(points[-1][0] + offset[0], points[-1][1] + offset[1], label, ha="center", fontsize=11)


def _cell_figure(width: float) -> tuple[matplotlib.figure.Figure, object]:
    fig = matplotlib.figure.Figure(figsize=(width, 4.0), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    return fig, ax


def draw_lstm_cell() -> matplotlib.figure.Figure:
    r"""Draw the data flow of one LSTM step (PyTorch's gate order i, f, g, o).

    The cell state runs along the top: :math:`c_t = f_t \odot c_{t-1} + i_t \odot g_t`;
    the hidden state leaves on the right: :math:`h_t = o_t \odot \tanh(c_t)`. Every gate reads
    :math:`x_t` and :math:`h_{t-1}`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.plots import draw_lstm_cell
    >>> texts = [t.get_text() for t in draw_lstm_cell().axes[0].texts]
    >>> [g for g in (r"$\sigma$ (f)", r"$\sigma$ (i)", r"tanh (g)", r"$\sigma$ (o)") if g in texts] == [
    ...     r"$\sigma$ (f)", r"$\sigma$ (i)", r"tanh (g)", r"$\sigma$ (o)"]
    True
    """
    fig, ax = _cell_figure(7.5)
    ax.set_xlim(-0.6, 8.2)
    ax.set_ylim(-0.9, 3.3)
    gates = {"f": (1.5, 0.9), "i": (2.7, 0.9), "g": (3.9, 0.9), "o": (5.3, 0.9)}
    colors = {"f": "#fde2c4", "i": "#fde2c4", "g": "#cfe3f6", "o": "#fde2c4"}
    for name, xy in gates.items():
        _gate(ax, xy, (r"tanh" if name == "g" else r"$\sigma$") + f" ({name})", colors[name])
    # inputs: x_t and h_(t-1) feed every gate from below
    ax.text(0.0, -0.65, r"$[x_t;\ h_{t-1}]$", ha="center", fontsize=11)
    ax.plot([0.0, 5.3], [-0.35, -0.35], color="0.25", lw=1.3)
    ax.plot([0.0, 0.0], [-0.45, -0.35], color="0.25", lw=1.3)
    for xy in gates.values():
        _line(ax, [(xy[0], -0.35), (xy[0], xy[1] - 0.25)])
    # the cell state along the top
    _op(ax, (1.5, 2.6), r"$\times$")
    _op(ax, (3.3, 2.6), "+")
    _op(ax, (3.3, 1.75), r"$\times$")
    _line(ax, [(-0.4, 2.6), (1.28, 2.6)], r"$c_{t-1}$", offset=(-1.3, 0.12))
    _line(ax, [(1.5, 1.15), (1.5, 2.38)])
    _line(ax, [(1.72, 2.6), (3.08, 2.6)])
    _line(ax, [(2.7, 1.15), (2.7, 1.75), (3.08, 1.75)])
    _line(ax, [(3.9, 1.15), (3.9, 1.75), (3.52, 1.75)])
    _line(ax, [(3.3, 1.97), (3.3, 2.38)])
    _line(ax, [(3.52, 2.6), (7.9, 2.6)], r"$c_t$", offset=(0.0, 0.15))
    # the hidden state
    _gate(ax, (6.3, 1.9), "tanh", "#cfe3f6")
    _op(ax, (6.3, 0.9), r"$\times$")
    _line(ax, [(6.3, 2.6), (6.3, 2.15)])
    _line(ax, [(6.3, 1.65), (6.3, 1.12)])
    _line(ax, [(5.64, 0.9), (6.08, 0.9)])
    _line(ax, [(6.52, 0.9), (7.9, 0.9)], r"$h_t$", offset=(0.0, 0.15))
    return fig


def draw_gru_cell() -> matplotlib.figure.Figure:
    r"""Draw the data flow of one GRU step in PyTorch's form (gates r, z; candidate n).

    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn}))` and
    :math:`h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.plots import draw_gru_cell
    >>> texts = [t.get_text() for t in draw_gru_cell().axes[0].texts]
    >>> r"$\sigma$ (r)" in texts and r"$\sigma$ (z)" in texts and "tanh (n)" in texts
    True
    """
    fig, ax = _cell_figure(7.0)
    ax.set_xlim(-0.8, 7.6)
    ax.set_ylim(-0.9, 3.3)
    # z on the left, r on the right: the z wires run above the r gate, the r wire below, so
    # no two wires cross.
    _gate(ax, (1.2, 0.9), r"$\sigma$ (z)", "#fde2c4")
    _gate(ax, (2.4, 0.9), r"$\sigma$ (r)", "#fde2c4")
    _gate(ax, (4.2, 0.9), "tanh (n)", "#cfe3f6")
    ax.text(0.0, -0.65, r"$[x_t;\ h_{t-1}]$", ha="center", fontsize=11)
    ax.plot([0.0, 2.4], [-0.35, -0.35], color="0.25", lw=1.3)
    ax.plot([0.0, 0.0], [-0.45, -0.35], color="0.25", lw=1.3)
    for x in (1.2, 2.4):
        _line(ax, [(x, -0.35), (x, 0.65)])
    # the candidate: r multiplies W_hn h + b_hn; x's part is added inside the tanh
    _op(ax, (4.2, 0.1), r"$\times$")
    ax.text(4.2, -0.62, r"$W_{hn}h_{t-1}+b_{hn}$", ha="center", fontsize=9)
    _line(ax, [(4.2, -0.4), (4.2, -0.12)])
    _line(ax, [(2.74, 0.9), (3.3, 0.9), (3.3, 0.1), (3.98, 0.1)])
    ax.text(3.38, 0.42, "$r_t$", fontsize=10, va="center")
    _line(ax, [(4.2, 0.32), (4.2, 0.65)])
    _line(ax, [(5.3, 0.9), (4.56, 0.9)])
    ax.text(5.35, 0.9, r"$W_{in}x_t+b_{in}$", ha="left", va="center", fontsize=9)
    # the state along the top: h_t = z * h_(t-1) + (1 - z) * n
    _op(ax, (1.2, 2.6), r"$\times$")
    _op(ax, (4.9, 2.6), "+")
    _op(ax, (4.2, 1.75), r"$\times$")
    _op(ax, (2.7, 1.75), r"$1-$", radius=0.25)
    _line(ax, [(-0.6, 2.6), (0.98, 2.6)], r"$h_{t-1}$", offset=(-1.1, 0.12))
    _line(ax, [(1.2, 1.15), (1.2, 2.38)])
    ax.text(1.0, 1.45, "$z_t$", fontsize=10, ha="right", va="center")
    ax.plot([1.2], [1.75], "o", ms=4, color="0.25")  # the z wire branches here
    _line(ax, [(1.2, 1.75), (2.45, 1.75)])
    _line(ax, [(2.95, 1.75), (3.98, 1.75)])
    ax.text(3.45, 1.87, "$1 - z_t$", fontsize=10, ha="center", va="bottom")
    _line(ax, [(4.2, 1.15), (4.2, 1.53)])
    ax.text(4.28, 1.32, "$n_t$", fontsize=10, ha="left", va="center")
    _line(ax, [(1.42, 2.6), (4.68, 2.6)])
    _line(ax, [(4.42, 1.75), (4.9, 1.75), (4.9, 2.38)])
    _line(ax, [(5.12, 2.6), (7.3, 2.6)], r"$h_t$", offset=(0.0, 0.15))
    return fig


def plot_gradient_norms(
    curves: dict[str, Sequence[float]], bounds: dict[str, float] | None = None
) -> matplotlib.figure.Figure:
    r"""Plot :math:`\lVert \partial h_T / \partial h_t \rVert_2` against the distance T - t, log scale.

    Parameters
    ----------
    curves : dict of str to sequence of float
        A label and the norms at distances 0, 1, 2, ... (as from
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
    ValueError
        If a key of ``bounds`` is not a key of ``curves``.

    Examples
    --------
    >>> from rnndoc.plots import plot_gradient_norms
    >>> fig = plot_gradient_norms({"a": [1.0, 0.5, 0.25]}, {"a": 0.5})
    >>> ax = fig.axes[0]
    >>> ax.get_yscale(), len(ax.lines), ax.lines[0].get_color() == ax.lines[1].get_color()
    ('log', 2, True)
    """
    unknown = sorted(set(bounds or {}) - set(curves))
    if unknown:
        raise ValueError(f"bounds must be keyed by curve labels {sorted(curves)}, got {unknown}")
    fig = matplotlib.figure.Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    for label, norms in curves.items():
        (line,) = ax.semilogy(range(len(norms)), norms, "o-", ms=3, label=label)
        if label in (bounds or {}):
            sigma = bounds[label]
            distances = range(len(norms))
            ax.semilogy(distances, [sigma**d for d in distances], "--", lw=1, color=line.get_color(),
                        label=f"bound {sigma:g}$^{{T-t}}$")  # fmt: skip
    ax.set_xlabel("distance T - t (steps)")
    ax.set_ylabel(r"$\|\partial h_T / \partial h_t\|_2$")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    return fig


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
    ValueError
        If a method is neither ``"direct"`` nor ``"recursion"``.

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
    methods = {method for _, method in costs}
    if not methods <= {"direct", "recursion"}:
        raise ValueError(f"methods must be 'direct' or 'recursion', got {sorted(methods)}")
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


def plot_truncation(lengths: Sequence[int], errors: Sequence[float]) -> matplotlib.figure.Figure:
    r"""Plot how far truncated-BPTT gradients are from full BPTT, against the chunk length.

    The error is relative, :math:`\lVert g_k - g \rVert_2 / \lVert g \rVert_2` for the
    gradient :math:`g_k` truncated every k steps and the full gradient g, so the axis has a
    scale. A log axis cannot show 0: exact zeros are drawn as distinct markers on the axis
    floor, a decade below the smallest nonzero error, with their own legend entry.

    Parameters
    ----------
    lengths : sequence of int, length K
        Chunk lengths k.
    errors : sequence of float, length K
        The relative error at each k, each at least 0.

    Returns
    -------
    matplotlib.figure.Figure
        Log y axis; the nonzero errors as one line, the exact zeros (if any) as markers at the
        bottom of the axis, labelled "exactly 0".

    Raises
    ------
    ValueError
        If the two sequences differ in length, or an error is negative.

    Examples
    --------
    >>> from rnndoc.plots import plot_truncation
    >>> ax = plot_truncation([1, 2, 3], [0.1, 0.01, 0.0]).axes[0]
    >>> ax.get_yscale(), float(ax.get_ylim()[0]), [t.get_text() for t in ax.get_legend().get_texts()]
    ('log', 0.001, ['truncated every k steps', 'exactly 0'])
    """
    if len(lengths) != len(errors):
        raise ValueError(f"errors must have length {len(lengths)} (one per chunk length), got {len(errors)}")
    if any(e < 0 for e in errors):
        raise ValueError(f"errors must be at least 0 (they are norms), got {min(errors)}")
    fig = matplotlib.figure.Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.add_subplot()
    points = list(zip(lengths, errors, strict=True))
    nonzero = [k for k, e in points if e > 0], [e for _, e in points if e > 0]
    zeros = [k for k, e in points if e == 0]
    floor = min(nonzero[1], default=1.0) / 10
    ax.semilogy(*nonzero, "o-", color="#1f77b4", label="truncated every k steps")
    if zeros:  # on the axis floor, not clipped by it
        ax.semilogy(zeros, [floor] * len(zeros), "v", ms=8, color="#d62728", ls="none",
                    clip_on=False, label="exactly 0")  # fmt: skip
    ax.set_ylim(bottom=floor)
    ax.set_xlabel("chunk length k (steps between detaches)")
    ax.set_ylabel(r"$\|g_k - g\|_2 \,/\, \|g\|_2$")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9)
    return fig


def plot_step_gradients(
    panels: dict[str, Sequence[Sequence[float]]], labels: Sequence[str]
) -> matplotlib.figure.Figure:
    r"""Plot a gradient's norm at every time step: one panel per key, one line per sequence.

    Parameters
    ----------
    panels : dict of str to sequence of sequence of float, each (N, L)
        A panel's title (e.g. a direction) and, for each of the N sequences, the norm
        :math:`\lVert \partial L / \partial x_t \rVert_2` at steps 1 to L.
    labels : sequence of str, length N
        A legend entry per sequence.

    Returns
    -------
    matplotlib.figure.Figure
        Panels side by side sharing a linear y axis (a norm of exactly 0 shows as 0).

    Raises
    ------
    ValueError
        If a panel does not have one row per label.

    Examples
    --------
    >>> from rnndoc.plots import plot_step_gradients
    >>> fig = plot_step_gradients({"forward": [[1.0, 0.5, 0.0]], "reverse": [[0.2, 0.4, 0.0]]}, ["b = 0"])
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[0].lines)
    (['forward', 'reverse'], 1)
    """
    for title, rows in panels.items():
        if len(rows) != len(labels):
            raise ValueError(
                f"panels[{title!r}] must have {len(labels)} rows (one per label), got {len(rows)}"
            )
    fig = matplotlib.figure.Figure(figsize=(6.4, 3.2), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (title, rows) in zip(axes, panels.items(), strict=True):
        for label, norms in zip(labels, rows, strict=True):
            ax.plot(range(1, len(norms) + 1), norms, "o-", ms=4, label=label)
        ax.set_title(title)
        ax.set_xlabel("step t")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(r"$\|\partial L / \partial x_t\|_2$")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=len(labels),
               fontsize=8, frameon=False)  # fmt: skip
    return fig
