"""Figures the chapters draw, from the package's own numbers (matplotlib).

Drawn here: the unrolled network, the many-to-one network's paths through :math:`W_{hh}` and
the finite-difference error. The LSTM and GRU cell diagrams (what each gate decides, and the
deltas of one LSTM or GRU step backward) and the deltas of one tanh-RNN step backward are in
:mod:`rnndoc.cell_diagrams`, the layouts of bidirectional, stacked and packed layers in
:mod:`rnndoc.layer_diagrams`, the gradient norms and the truncation gaps in
:mod:`rnndoc.gradient_plots`, the cost of the symbolic derivation in
:mod:`rnndoc.derivation_cost_plot`; all are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ._validate import check_float, check_instance, check_numbers, check_sequence, check_str
from .cell_diagrams import (
    _diagram_figure,
    draw_gru_cell,
    draw_gru_deltas,
    draw_gru_gates,
    draw_lstm_cell,
    draw_lstm_deltas,
    draw_lstm_gates,
    draw_rnn_deltas,
)
from .colors import NETWORK_COLORS, PATH_COLORS, STEP_FILL, _light
from .derivation_cost_plot import plot_derivation_costs
from .gradient_plots import _PHONE_WIDTH, plot_gradient_norms, plot_step_gradients, plot_truncation
from .layer_diagrams import draw_bidirectional, draw_h_n_rows, draw_packed

__all__ = [
    "PHONE_FIGURE_PX",
    "draw_bidirectional",
    "draw_gru_cell",
    "draw_gru_deltas",
    "draw_gru_gates",
    "draw_h_n_rows",
    "draw_lstm_cell",
    "draw_lstm_deltas",
    "draw_lstm_gates",
    "draw_many_to_one",
    "draw_packed",
    "draw_rnn_deltas",
    "draw_unrolled",
    "plot_derivation_costs",
    "plot_finite_difference_error",
    "plot_gradient_norms",
    "plot_step_gradients",
    "plot_truncation",
    "smallest_text_px",
]

#: How wide the HTML book shows a figure on a 390 px phone screen, in CSS px: the text column
#: less its padding (measured in Chromium with the book's theme).
PHONE_FIGURE_PX = 342


# The unrolled network is drawn in inches (one data unit = one inch), a column per step 1.15 inch
# wide and no text below 10 points: for three steps it is under 4.7 inches wide, so that shown at a
# phone's width (PHONE_FIGURE_PX, 342 px of a 390 px screen) its smallest letters stay above 9 px.
_BOX_WIDTH, _BOX_HEIGHT, _STEP = 0.78, 0.5, 1.15
# A label with a subscript ($h_1$, $W_{hh}$) is larger: its script, smaller than the label, stays at 9 px
# on a phone (rnndoc.plots.smallest_text_px).
_MATH = 13


def _node(ax, xy, text, color, value=None, width=_BOX_WIDTH):
    x, y = xy
    height = _BOX_HEIGHT if value is None else _BOX_HEIGHT + 0.32
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.02",
            facecolor=color,
            edgecolor="0.25",
        )
    )
    size = _MATH if "_" in text else 11
    if value is None:
        ax.text(x, y, text, ha="center", va="center", fontsize=size)
    else:
        ax.text(x, y + 0.22, text, ha="center", va="center", fontsize=size)
        ax.text(x, y - 0.1, value, ha="center", va="center", fontsize=10, color="0.15", linespacing=1.1)


def _arrow(ax, start, end, label="", offset=(0.0, 0.0)):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color="0.25", lw=1.3,
                                 shrinkA=0, shrinkB=0))  # fmt: skip
    if label:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, label, ha="center", va="center", fontsize=_MATH if "_" in label else 10, color="0.15")


def _state_row(ax, inputs, y_h, step, width, values=None):
    """Draw the unrolled columns' input and state boxes; yield each column's step t and x.

    :math:`h_0` at x = 0, then per step t (x = ``step`` t) the input box ``inputs[t - 1]`` at
    y = 0 (:data:`rnndoc.colors.STEP_FILL`) and :math:`h_t` at ``y_h`` (the tanh RNN's colour,
    lightened), ``values[t]`` printed in it (``values[0]`` in :math:`h_0`). The caller draws
    the rest of a column (its arrows, a loss box) when the column is yielded.
    """
    state = _light(NETWORK_COLORS["tanh RNN"])
    values = values or [None] * (len(inputs) + 1)
    _node(ax, (0, y_h), "$h_0$", state, values[0], width=width)
    for t, text in enumerate(inputs, start=1):
        x = step * t
        _node(ax, (x, 0), text, STEP_FILL, width=width)
        _node(ax, (x, y_h), f"$h_{t}$", state, values[t], width=width)
        yield t, x


def draw_unrolled(
    tokens: Sequence[str],
    hidden: Sequence[Sequence[float]] | None = None,
    h_0: Sequence[float] | None = None,
) -> matplotlib.figure.Figure:
    r"""Draw the RNN unrolled over time: inputs, hidden states, loss terms and shared weights.

    Column t holds :math:`x_t` (bottom), :math:`h_t` (middle) and :math:`\ell_t` (top);
    every arrow into :math:`h_t` carries the same :math:`W_{ih}` and :math:`W_{hh}`. The states
    are filled in the tanh RNN's colour (:data:`rnndoc.colors.NETWORK_COLORS`, lightened), the
    inputs as a time step of data (:data:`rnndoc.colors.STEP_FILL`).

    Parameters
    ----------
    tokens : sequence of str, length L
        Token names, one per step (e.g. ``"ABC"``).
    hidden : sequence of sequences of float, shape (L, H), optional
        Hidden-state values to print in each :math:`h_t` box (4 decimals, one per line).
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

    def show(values):  # one value per line, so that a box stays narrow
        return None if values is None else "\n".join(f"{v:.4f}" for v in values)

    length = len(tokens)
    # Boxes narrower and columns wider than the shared _BOX_WIDTH and _STEP, so that the W_hh label
    # between two state boxes clears both (a box still holds "-0.0749" and "x_1 = A"), and margins
    # trimmed to the boxes and the W_ih labels, so the figure stays under 4.5 inches for 3 steps.
    width, step = 0.7, 1.2
    values_height = 0.32 * max(0, max(len(v) for v in [h_0 or [], *(hidden or [])]) - 2)
    xlim, ylim = (-0.42, step * length + 0.47), (-0.35, 3.05 + values_height)
    fig, ax = _diagram_figure(xlim, ylim)  # one data unit = one inch
    y_h, y_loss = 1.4, 2.75 + values_height
    half = width / 2
    inputs = [f"$x_{t}$ = {token}" for t, token in enumerate(tokens, start=1)]
    rows: list[Sequence[float] | None] = list(hidden) if hidden is not None else [None] * length
    values = [show(h_0), *(show(row) for row in rows)]
    for t, x in _state_row(ax, inputs, y_h, step, width, values):
        _node(ax, (x, y_loss), rf"$\ell_{t}$", "white", width=width)
        _arrow(ax, (x, 0.27), (x, y_h - 0.44), "$W_{ih}$", offset=(0.3, 0))
        _arrow(ax, (x - step + half + 0.02, y_h), (x - half - 0.02, y_h), "$W_{hh}$", offset=(0, 0.16))
        _arrow(ax, (x, y_h + 0.44), (x, y_loss - 0.27))
    return fig


def draw_many_to_one(path_sizes: Sequence[float] | None = None) -> matplotlib.figure.Figure:
    r"""Draw the many-to-one RNN of three steps unrolled, with its three paths through :math:`W_{hh}`.

    :math:`x_1, x_2, x_3` feed :math:`h_1, h_2, h_3` (from :math:`h_0`); only :math:`h_3` feeds
    the output layer (logits :math:`v`), the softmax (:math:`p`) and the loss. The arrow into
    :math:`h_k` from :math:`h_{k-1}` is the use of :math:`W_{hh}` at step k, drawn in path k's
    colour (:data:`rnndoc.colors.PATH_COLORS`), and a line of the same colour runs from it to
    the loss, through :math:`h_k, \dots, h_3`: the route of that path's term
    :math:`\delta_k h_{k-1}^\top` of :math:`\partial \mathcal{L} / \partial W_{hh}`. Boxes filled
    as in :func:`draw_unrolled`. Sized for a phone: no text below 10 points on a figure
    4.5 inches wide.

    Parameters
    ----------
    path_sizes : sequence of 3 floats, optional
        A size for each path's term, step 1 first (for instance its largest absolute entry),
        printed beside its name with 4 decimals.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        If ``path_sizes`` is not a sequence of three numbers, or one is negative.

    Examples
    --------
    >>> from rnndoc.plots import draw_many_to_one
    >>> texts = [t.get_text() for t in draw_many_to_one([0.5, 0.25, 0.125]).axes[0].texts]
    >>> [t for t in texts if t.startswith("path")]
    ['path 1', 'path 2', 'path 3']
    >>> "0.1250" in texts
    True
    """
    if path_sizes is not None:
        path_sizes = check_numbers("path_sizes", path_sizes, 3)
        if min(path_sizes) < 0:
            raise ValueError(f"path_sizes must be at least 0, got {path_sizes}")
    xlim, ylim = (-0.45, 4.05), (-0.35, 4.55)
    fig, ax = _diagram_figure(xlim, ylim)  # one data unit = one inch
    y_h, x_head, half, math = 1.4, 3 * _STEP, _BOX_WIDTH / 2, 14  # math: scripts at 9.9 px on a phone
    for t, x in _state_row(ax, [f"$x_{t}$" for t in range(1, 4)], y_h, _STEP, _BOX_WIDTH):
        _arrow(ax, (x, 0.27), (x, y_h - 0.27))
        ax.add_patch(FancyArrowPatch((x - _STEP + half + 0.02, y_h), (x - half - 0.02, y_h), arrowstyle="-|>",
                                     mutation_scale=14, color=PATH_COLORS[t - 1], lw=3, shrinkA=0, shrinkB=0,
                                     zorder=3))  # fmt: skip
    for t in range(1, 4):
        ax.text(_STEP * (t - 0.5), y_h - 0.22, "$W_{hh}$", ha="center", va="top", fontsize=math)
    for t in range(1, 4):  # every input arrow carries the same W_ih
        ax.text(_STEP * t + 0.08, 0.62, "$W_{ih}$", ha="left", va="center", fontsize=math)
    # the head, on h_3 alone: the output layer's logits, the softmax, the loss
    heads = ((2.45, "$v$", "logits"), (3.3, "$p$", "softmax"), (4.15, r"$\mathcal{L}$", "loss"))
    for y, name, job in heads:
        ax.add_patch(FancyBboxPatch((x_head - 0.5, y - 0.3), 1.0, 0.6, boxstyle="round,pad=0.02",
                                    facecolor="white", edgecolor="0.25"))  # fmt: skip
        ax.text(x_head, y + 0.12, name, ha="center", va="center", fontsize=math)
        ax.text(x_head, y - 0.15, job, ha="center", va="center", fontsize=10)
    # path k: from the use of W_hh at step k through h_k ... h_3 and the head to the loss, drawn
    # behind the boxes (so seen between them) beside the paths of the other uses
    for k in range(1, 4):
        color, start = PATH_COLORS[k - 1], _STEP * k - _STEP / 2
        row, column = (0.15, -0.15, 0.0)[k - 1], (-0.22, 0.22, 0.0)[k - 1]
        ax.plot([start, _STEP * k, _STEP * k, x_head + column, x_head + column],
                [y_h, y_h, y_h + row, y_h + row, heads[-1][0]], color=color, lw=2.4, zorder=0.5)  # fmt: skip
        ax.plot([start], [y_h], "o", ms=5, color=color, zorder=4)
        label_y = 2.3 + 0.5 * (3 - k)
        ax.plot([-0.4, -0.1], [label_y + 0.08] * 2, color=color, lw=4, solid_capstyle="butt")  # a swatch
        ax.text(-0.03, label_y, f"path {k}", ha="left", va="baseline", fontsize=11)
        ax.text(0.7, label_y, rf"$\delta_{k} h_{k - 1}^\top$", ha="left", va="baseline", fontsize=math)
        if path_sizes is not None:
            ax.text(1.55, label_y, f"{path_sizes[k - 1]:.4f}", ha="left", va="baseline", fontsize=11)
    ax.text(0.7, 3.85, "term", ha="left", va="baseline", fontsize=10, color="0.15")
    if path_sizes is not None:
        ax.text(1.55, 3.85, "largest |entry|", ha="left", va="baseline", fontsize=10, color="0.15")
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
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 3.4), layout="constrained")
    ax = fig.add_subplot()
    ax.loglog(eps, error, "o-", color="#1f77b4", label="max |finite difference - sympy|")
    if chosen is not None:
        ax.axvline(chosen, color="#d62728", ls="--", lw=1, label=rf"chosen $\varepsilon$ = {chosen:g}")
    ax.set_xlabel(r"step $\varepsilon$")
    ax.set_ylabel("largest absolute error")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=1, fontsize=10, frameon=False)
    return fig


def smallest_text_px(fig: matplotlib.figure.Figure, shown_px: float = PHONE_FIGURE_PX) -> tuple[float, str]:
    r"""The smallest glyph of ``fig``'s text, in CSS px, when the figure is shown ``shown_px`` wide.

    Every visible text counts: titles, labels, tick labels, legends and annotations. A
    mathtext label counts at its smallest glyph, so a subscript or superscript (matplotlib
    sets them smaller than the label, by mathtext's shrink factor, as in ``$c_{t-1}$`` or a log axis's
    ``$10^{-3}$``) counts at its own size. The figure is saved as the book saves it
    (``bbox_inches="tight"``); its width at ``fig.dpi`` is its width in CSS px (the book's
    retina images are shown at half their pixels), and a figure wider than ``shown_px`` is
    scaled down to it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    shown_px : float, default :data:`PHONE_FIGURE_PX`
        The width the figure is shown at.

    Returns
    -------
    (float, str)
        The size of the smallest glyph's font (its em, as CSS ``font-size``) in px, and the
        text it belongs to.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib figure or ``shown_px`` not a number.
    ValueError
        If ``shown_px`` is not positive, or the figure has no visible text.

    Examples
    --------
    >>> import matplotlib.figure
    >>> from rnndoc.plots import smallest_text_px
    >>> fig = matplotlib.figure.Figure(figsize=(3.0, 2.0), dpi=100)
    >>> _ = fig.text(0.1, 0.5, "plain", fontsize=10)
    >>> _ = fig.text(0.5, 0.5, "$c_{t-1}$", fontsize=10)
    >>> px, text = smallest_text_px(fig)  # 3 inches: shown at its own width
    >>> round(px, 2), text  # the subscript: 0.7 of 10 points, at 100 px per 72 points
    (9.72, '$c_{t-1}$')
    """
    import io  # noqa: PLC0415

    import matplotlib.text  # noqa: PLC0415
    from matplotlib.mathtext import MathTextParser  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415 (matplotlib's own dependency)

    check_instance("fig", fig, matplotlib.figure.Figure, "a matplotlib Figure")
    shown_px = check_float("shown_px", shown_px, positive=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")  # as the notebooks save it; draws the ticks
    width = Image.open(buffer).size[0]
    parser = MathTextParser("path")
    sizes = []
    for text in fig.findobj(matplotlib.text.Text):
        label = text.get_text()
        if not (text.get_visible() and label.strip()):
            continue
        points = float(text.get_fontproperties().get_size_in_points())
        if not text.get_usetex() and label.count("$") >= 2 and label.count("$") % 2 == 0:
            glyphs = parser.parse(label, 72, text.get_fontproperties()).glyphs
            points = min((glyph[1] for glyph in glyphs), default=points)
        sizes.append((points * fig.dpi / 72 * min(1.0, shown_px / width), label))
    if not sizes:
        raise ValueError("fig has no visible text")
    return min(sizes)
