"""The LSTM and GRU cell diagrams (matplotlib), in PyTorch's gate order, and the tanh RNN's backward step; :mod:`rnndoc.plots` re-exports them."""

from __future__ import annotations

import matplotlib.figure
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .colors import NETWORK_COLORS, NODE_COLORS

__all__ = [
    "draw_gru_cell",
    "draw_gru_deltas",
    "draw_gru_gates",
    "draw_lstm_cell",
    "draw_lstm_deltas",
    "draw_lstm_gates",
    "draw_rnn_deltas",
]

#: The size, in points, of a label with a subscript or superscript ($c_{t-1}$): matplotlib sets
#: the script smaller (mathtext's shrink factor); the gate diagrams are shown at about three quarters
#: of their width on a phone (rnndoc.plots.smallest_text_px), so the script stays at 10 px or more
#: there, and the two cell diagrams at 0.85 or more, so it stays at 11 px.
_MATH = 14
#: Inches per data unit in the two cell diagrams (draw_lstm_cell, draw_gru_cell).
_CELL_UNIT = 0.42


def _op(ax, xy, text, radius=0.22, fontsize=12):
    from matplotlib.patches import Circle  # noqa: PLC0415 (only the cell diagrams use it)

    ax.add_patch(Circle(xy, radius, facecolor="white", edgecolor="0.25", lw=1.2))
    ax.text(*xy, text, ha="center", va="center", fontsize=fontsize)


def _gate(ax, xy, text, color, width=1.0):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - 0.28),
            width,
            0.56,
            boxstyle="round,pad=0.02",
            facecolor=color,
            edgecolor="0.25",
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=12)  # 12: legible on a phone


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
        ax.text(points[-1][0] + offset[0], points[-1][1] + offset[1], label, ha="center",
                fontsize=_MATH if "_" in label else 11)  # fmt: skip


def _diagram_figure(
    xlim: tuple[float, float], ylim: tuple[float, float], unit: float = 1.0
) -> tuple[matplotlib.figure.Figure, Axes]:
    """A figure of ``unit`` inches per data unit, its one axes filling it, no axis drawn: the
    set-up of every diagram (cell, gate, delta and layer diagrams, the unrolled networks)."""
    fig = matplotlib.figure.Figure(figsize=((xlim[1] - xlim[0]) * unit, (ylim[1] - ylim[0]) * unit))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    return fig, ax


def _cell_figure(
    xlim: tuple[float, float], ylim: tuple[float, float]
) -> tuple[matplotlib.figure.Figure, Axes]:
    # _CELL_UNIT inches per data unit, gate labels at 12 points and labels with scripts at _MATH:
    # under 4 inches wide, shown at a phone's width (rnndoc.plots.PHONE_FIGURE_PX) at 0.85 of its
    # size or more, so that a script stays at 11 px and a gate's label at 14 px there
    return _diagram_figure(xlim, ylim, _CELL_UNIT)


def draw_lstm_cell() -> matplotlib.figure.Figure:
    r"""Draw the data flow of one LSTM step, gates left to right in PyTorch's order i, f, g, o.

    The cell state runs along the top: :math:`c_t = f_t \odot c_{t-1} + i_t \odot g_t`;
    the hidden state leaves on the right: :math:`h_t = o_t \odot \tanh(c_t)`. Every gate reads
    :math:`[x_t;\ h_{t-1}]`, the two vectors stacked into one (so that a gate's block row
    :math:`[W_{ix}\ W_{hx}]` times it is :math:`W_{ix} x_t + W_{hx} h_{t-1}`). In this order
    the wire from i to its product with g must pass the wire from f to the cell state: it
    hops over it (the two are not connected).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_lstm_cell
    >>> ax = draw_lstm_cell().axes[0]
    >>> gates = [t for t in ax.texts if t.get_text().endswith(")")]
    >>> [t.get_text()[-2] for t in sorted(gates, key=lambda t: t.get_position()[0])]
    ['i', 'f', 'g', 'o']
    """
    from matplotlib.patches import Arc  # noqa: PLC0415 (only this diagram hops a wire)

    fig, ax = _cell_figure((-0.65, 7.6), (-1.0, 3.3))
    x_i, x_f, x_g, x_o, x_h = 0.7, 1.95, 3.55, 5.15, 6.35
    row, top, mix = 0.9, 2.6, 1.75
    gates = {"i": x_i, "f": x_f, "g": x_g, "o": x_o}
    for name, x in gates.items():
        if name == "g":
            _gate(ax, (x, row), f"tanh ({name})", NODE_COLORS["tanh"], width=1.8)
        else:
            _gate(ax, (x, row), rf"$\sigma$ ({name})", NODE_COLORS["gate"])
    # inputs: x_t and h_(t-1), stacked into one vector, feed every gate from below
    ax.text(-0.6, -0.5, r"$[x_t;\ h_{t-1}]$", ha="left", va="top", fontsize=_MATH)
    ax.plot([0.0, x_o], [-0.35, -0.35], color="0.25", lw=1.3)
    for x in gates.values():
        _line(ax, [(x, -0.35), (x, row - 0.3)])
    # the cell state along the top: times f, then plus i * g
    x_sum = 2.75
    _op(ax, (x_f, top), r"$\times$")
    _op(ax, (x_sum, top), "+")
    _op(ax, (x_sum, mix), r"$\times$")
    _line(ax, [(-0.6, top), (x_f - 0.22, top)], r"$c_{t-1}$", offset=(-x_f + 0.4, 0.14))
    _line(ax, [(x_f, row + 0.3), (x_f, top - 0.22)])  # f_t
    _line(ax, [(x_f + 0.22, top), (x_sum - 0.22, top)])
    # i_t to the product with g_t, hopping over the f wire at x_f
    _line(ax, [(x_i, row + 0.3), (x_i, mix), (x_f - 0.12, mix)], arrow=False)
    ax.add_patch(Arc((x_f, mix), 0.24, 0.24, theta1=0, theta2=180, color="0.25", lw=1.3))
    _line(ax, [(x_f + 0.12, mix), (x_sum - 0.22, mix)])
    _line(ax, [(x_g, row + 0.3), (x_g, mix), (x_sum + 0.22, mix)])  # g_t
    _line(ax, [(x_sum, mix + 0.22), (x_sum, top - 0.22)])
    _line(ax, [(x_sum + 0.22, top), (7.55, top)], r"$c_t$", offset=(-0.15, 0.14))
    # the hidden state
    _gate(ax, (x_h, mix), "tanh", NODE_COLORS["tanh"], width=1.05)
    _op(ax, (x_h, row), r"$\times$")
    _line(ax, [(x_h, top), (x_h, mix + 0.3)])
    _line(ax, [(x_h, mix - 0.3), (x_h, row + 0.22)])
    _line(ax, [(x_o + 0.53, row), (x_h - 0.22, row)])
    _line(ax, [(x_h + 0.22, row), (7.55, row)], r"$h_t$", offset=(-0.15, 0.14))
    return fig


def draw_gru_cell() -> matplotlib.figure.Figure:
    r"""Draw the data flow of one GRU step in PyTorch's form (gates r, z; candidate n).

    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn}))` and
    :math:`h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}`. The :math:`h_{t-1}` of
    :math:`W_{hn} h_{t-1} + b_{hn}` is a branch of the state line: it leaves it on the left and
    runs along the bottom to that term. No two wires cross.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_gru_cell
    >>> texts = [t.get_text() for t in draw_gru_cell().axes[0].texts]
    >>> r"$\sigma$ (r)" in texts and r"$\sigma$ (z)" in texts and "tanh (n)" in texts
    True
    """
    fig, ax = _cell_figure((-1.05, 7.75), (-1.65, 3.45))
    x_z, x_r, x_n, x_sum, x_one = 0.9, 2.12, 4.05, 4.8, 2.2
    row, top, mix, reset = 0.9, 2.75, 1.9, 0.0
    # z on the left, r on the right: the z wires run above the r gate, the r wire below, so
    # no two wires cross.
    _gate(ax, (x_z, row), r"$\sigma$ (z)", NODE_COLORS["gate"])
    _gate(ax, (x_r, row), r"$\sigma$ (r)", NODE_COLORS["gate"])
    _gate(ax, (x_n, row), "tanh (n)", NODE_COLORS["tanh"], width=1.9)
    ax.text(-0.45, -0.5, r"$[x_t;\ h_{t-1}]$", ha="left", va="top", fontsize=_MATH)
    ax.plot([-0.1, x_r], [-0.35, -0.35], color="0.25", lw=1.3)
    for x in (x_z, x_r):
        _line(ax, [(x, -0.35), (x, row - 0.3)])
    # the candidate: r multiplies W_hn h_(t-1) + b_hn, whose h_(t-1) branches off the state
    # line on the left and runs along the bottom; x's part is added inside the tanh
    _op(ax, (x_n, reset), r"$\times$")
    ax.add_patch(FancyBboxPatch((x_n - 1.7, -1.0), 3.4, 0.5, boxstyle="round,pad=0.02",
                                facecolor="white", edgecolor="0.25"))  # fmt: skip
    ax.text(x_n, -0.75, r"$W_{hn}h_{t-1}+b_{hn}$", ha="center", va="center", fontsize=_MATH)
    _line(ax, [(x_n, -0.48), (x_n, reset - 0.22)])
    ax.plot([-0.75], [top], "o", ms=4, color="0.25")  # h_(t-1) branches here
    _line(ax, [(-0.75, top), (-0.75, -1.4), (x_n, -1.4), (x_n, -1.02)])
    _line(ax, [(x_r + 0.5, row), (2.85, row), (2.85, reset), (x_n - 0.22, reset)])
    ax.text(2.75, 0.3, "$r_t$", fontsize=_MATH, ha="right", va="center")
    _line(ax, [(x_n, reset + 0.22), (x_n, row - 0.3)])
    _line(ax, [(x_n + 1.4, row), (x_n + 0.97, row)])
    ax.text(x_n + 1.45, row, r"$W_{in}x_t+b_{in}$", ha="left", va="center", fontsize=_MATH)
    # the state along the top: h_t = z * h_(t-1) + (1 - z) * n
    _op(ax, (x_z, top), r"$\times$")
    _op(ax, (x_sum, top), "+")
    _op(ax, (x_n, mix), r"$\times$")
    _op(ax, (x_one, mix), r"$1-$", radius=0.4, fontsize=11)
    _line(ax, [(-1.0, top), (x_z - 0.22, top)], r"$h_{t-1}$", offset=(-0.8, 0.14))
    _line(ax, [(x_z, row + 0.3), (x_z, top - 0.22)])
    ax.text(x_z - 0.15, 1.45, "$z_t$", fontsize=_MATH, ha="right", va="center")
    ax.plot([x_z], [mix], "o", ms=4, color="0.25")  # the z wire branches here
    _line(ax, [(x_z, mix), (x_one - 0.4, mix)])
    _line(ax, [(x_one + 0.4, mix), (x_n - 0.22, mix)])
    ax.text(3.15, mix + 0.12, "$1 - z_t$", fontsize=_MATH, ha="center", va="bottom")
    _line(ax, [(x_n, row + 0.3), (x_n, mix - 0.22)])
    ax.text(x_n + 0.15, 1.44, "$n_t$", fontsize=_MATH, ha="left", va="center")
    _line(ax, [(x_z + 0.22, top), (x_sum - 0.22, top)])
    _line(ax, [(x_n + 0.22, mix), (x_sum, mix), (x_sum, top - 0.22)])
    _line(ax, [(x_sum + 0.22, top), (6.3, top)], r"$h_t$", offset=(-0.15, 0.14))
    return fig


# --- What each gate decides: small diagrams for a phone's width --------------------------------
# Drawn at 0.45 inch per unit, no font below 10 points and labels with scripts at _MATH, so that a
# figure shown at a phone's text width (rnndoc.plots.PHONE_FIGURE_PX) keeps every glyph at 10 px or more.

_UNIT = 0.45  # inches per data unit
_SMALL = 10  # the smallest plain text (a gate's job, a path's note): 10 px or more on a phone
_BIG = 16  # the delta diagram's labels with scripts: their scripts at 11 points or more
_WIRE = "0.25"


def _phone_figure(
    xlim: tuple[float, float], ylim: tuple[float, float]
) -> tuple[matplotlib.figure.Figure, Axes]:
    return _diagram_figure(xlim, ylim, _UNIT)


def _box(ax, xy, name, job, color, width=1.6, fontsize=None):
    x, y = xy
    corner = (x - width / 2, y - 0.5)
    ax.add_patch(
        FancyBboxPatch(corner, width, 1.0, boxstyle="round,pad=0.04", facecolor=color, edgecolor=_WIRE)
    )
    if not job:  # a node that names itself (tanh) has no job line
        size = fontsize or (_MATH if "_" in name else 11)
        ax.text(x, y, name, ha="center", va="center", fontsize=size)
        return
    ax.text(x, y + 0.2, name, ha="center", va="center", fontsize=11)
    ax.text(x, y - 0.22, job, ha="center", va="center", fontsize=_SMALL)


def _node(ax, xy, text, radius=0.3, fontsize=None):
    from matplotlib.patches import Circle  # noqa: PLC0415 (only the cell diagrams use it)

    ax.add_patch(Circle(xy, radius, facecolor="white", edgecolor=_WIRE, lw=1.2, zorder=3))
    size = fontsize or (_MATH if "_" in text else 11)
    ax.text(*xy, text, ha="center", va="center", fontsize=size, zorder=4)


def _wire(ax, points, color=_WIRE, lw=1.3, arrow=True):
    xs, ys = zip(*points, strict=True)
    ax.plot(xs[:-1], ys[:-1], color=color, lw=lw, solid_capstyle="butt", zorder=1)
    style = "-|>" if arrow else "-"
    ax.add_patch(FancyArrowPatch(points[-2], points[-1], arrowstyle=style, mutation_scale=11, color=color,
                                 lw=lw, shrinkA=0, shrinkB=0, zorder=1))  # fmt: skip


def _bus(ax, xs, y=0.55):
    """The stacked input [x_t; h_(t-1)], drawn once along the bottom, feeding the boxes above it."""
    ax.plot([xs[0] - 1.0, xs[-1]], [y, y], color=_WIRE, lw=1.3)
    ax.text(xs[0] - 1.0, y - 0.2, r"$[x_t;\ h_{t-1}]$", ha="left", va="top", fontsize=_MATH)
    for x in xs:
        _wire(ax, [(x, y), (x, 1.7)])


def _deltas_figure(ylim: tuple[float, float]) -> tuple[matplotlib.figure.Figure, Axes]:
    """A backward-step diagram's figure (draw_*_deltas), headed by the two directions: the
    step before on the left, the step after on the right (a delta flows right to left)."""
    fig, ax = _phone_figure((-0.4, 9.4), ylim)
    ax.text(-0.3, ylim[1] - 0.1, "to step $t-1$", ha="left", va="top", fontsize=12)
    ax.text(9.3, ylim[1] - 0.1, "from step $t+1$", ha="right", va="top", fontsize=12)
    return fig, ax


def _delta(ax, xy, text, into=(), out=(), labels=(), *, radius=0.3, width=None, fill="white", lines=None,
           fontsize=13):  # fmt: skip
    """One node of a backward-step diagram with its wires and labels, drawn in that order: the
    wires into it, the node, the wires out of it, the labels.

    A wire is a list of points (a plain wire) or a tuple of them and :func:`_wire`'s colour,
    line width and arrow (``(points, colour, 3)``: a path in the network's colour). The node is
    a circle of ``radius`` (a sum, a product, :math:`W_{hh}^\top`), or with ``width`` a box
    filled ``fill`` (with ``lines``, a delta's box and its factors: :func:`_box3`). A label is
    ``(x, y, text, ha, va)``, or that and a dict of more ``ax.text`` arguments (at _BIG points
    unless the dict says otherwise).
    """
    for wire in into:
        _wire(ax, *(wire if isinstance(wire, tuple) else (wire,)))
    if lines is not None:
        _box3(ax, xy, text, lines, fill, width)
    elif width is not None:
        _box(ax, xy, text, "", fill, width=width, fontsize=fontsize)
    else:
        _node(ax, xy, text, radius=radius, fontsize=fontsize)
    for wire in out:
        _wire(ax, *(wire if isinstance(wire, tuple) else (wire,)))
    for x, y, label, ha, va, *more in labels:
        ax.text(x, y, label, ha=ha, va=va, **{"fontsize": _BIG, **(more[0] if more else {})})


def draw_lstm_gates() -> matplotlib.figure.Figure:
    r"""Draw what each LSTM gate decides: the cell path along the top, the four gates below it.

    The gates stand left to right in PyTorch's order i, f, g, o, as in :func:`draw_lstm_cell`.
    The cell state runs along the top in the LSTM's colour, through one product and one sum
    only: f scales :math:`c_{t-1}` (keep or erase), i scales the candidate g (how much of it is
    written), and o scales :math:`\tanh(c_t)` into :math:`h_t` (how much is shown). The wire from
    i to its product with g hops over the wire from f (they do not connect). Sigmoid gates and
    tanh nodes are filled as in :func:`draw_lstm_cell` (:data:`rnndoc.colors.NODE_COLORS`).
    Sized for a phone: no text below 9 points on a figure under 4.5 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_lstm_gates
    >>> fig = draw_lstm_gates()
    >>> gates = [t for t in fig.axes[0].texts if t.get_text() in "fgio"]
    >>> [t.get_text() for t in sorted(gates, key=lambda t: t.get_position()[0])]
    ['i', 'f', 'g', 'o']
    >>> min(t.get_fontsize() for t in fig.axes[0].texts) >= 9
    True
    """
    from matplotlib.patches import Arc  # noqa: PLC0415 (only the hop uses it)

    fig, ax = _phone_figure((-0.4, 9.4), (-0.45, 6.3))
    cell = NETWORK_COLORS["LSTM"]
    top, row, mix = 5.0, 2.2, 3.65
    x_i, x_f, x_g, x_o = 1.3, 3.1, 4.9, 7.7
    # the cell path: c_(t-1) -> x f -> + i g -> c_t
    ax.text(-0.3, top + 0.25, r"$c_{t-1}$", ha="left", va="bottom", fontsize=_MATH, color=cell)
    _wire(ax, [(-0.3, top), (x_f - 0.3, top)], color=cell, lw=3)
    _node(ax, (x_f, top), r"$\times$")
    _wire(ax, [(x_f + 0.3, top), (x_g - 0.3, top)], color=cell, lw=3)
    _node(ax, (x_g, top), "+")
    _wire(ax, [(x_g + 0.3, top), (9.3, top)], color=cell, lw=3)
    ax.text(9.3, top + 0.25, r"$c_t$", ha="right", va="bottom", fontsize=_MATH, color=cell)
    ax.text(x_f, top + 0.4, "keep or erase", ha="center", va="bottom", fontsize=_SMALL)
    ax.text(x_g + 0.1, top + 0.4, "write", ha="center", va="bottom", fontsize=_SMALL)
    ax.text(8.65, 3.6, "show", ha="center", va="top", fontsize=_SMALL)
    # the gates, in PyTorch's order
    _box(ax, (x_i, row), "i", "input", NODE_COLORS["gate"])
    _box(ax, (x_f, row), "f", "forget", NODE_COLORS["gate"])
    _box(ax, (x_g, row), "g", "candidate", NODE_COLORS["tanh"])
    _box(ax, (x_o, row), "o", "output", NODE_COLORS["gate"])
    _wire(ax, [(x_f, row + 0.55), (x_f, top - 0.3)])
    # i times g, then up into the sum; the i wire hops over the f wire at x_f
    _node(ax, (x_g, mix), r"$\times$")
    hop = 0.16
    ax.plot([x_i, x_i, x_f - hop], [row + 0.55, mix, mix], color=_WIRE, lw=1.3, zorder=1)
    ax.add_patch(Arc((x_f, mix), 2 * hop, 2 * hop, theta1=0, theta2=180, color=_WIRE, lw=1.3, zorder=1))
    _wire(ax, [(x_f + hop, mix), (x_g - 0.3, mix)])
    _wire(ax, [(x_g, row + 0.55), (x_g, mix - 0.3)])
    _wire(ax, [(x_g, mix + 0.3), (x_g, top - 0.3)])
    # the hidden state: tanh(c_t) times o, out to the right
    _box(ax, (6.5, 3.75), "tanh", "", NODE_COLORS["tanh"], width=1.1)
    _wire(ax, [(6.5, top), (6.5, 4.3)])
    _node(ax, (x_o, 3.75), r"$\times$")
    _wire(ax, [(7.05, 3.75), (x_o - 0.3, 3.75)])
    _wire(ax, [(x_o, row + 0.55), (x_o, 3.45)])
    _wire(ax, [(x_o + 0.3, 3.75), (9.3, 3.75)])
    ax.text(9.3, 3.95, r"$h_t$", ha="right", va="bottom", fontsize=_MATH)
    _bus(ax, [x_i, x_f, x_g, x_o])
    return fig


def draw_gru_gates() -> matplotlib.figure.Figure:
    r"""Draw what each GRU gate decides: the state path along the top, the gates and candidate below.

    The state runs along the top in the GRU's colour: z scales :math:`h_{t-1}` (how much of the
    old state is kept) and :math:`1 - z` scales the candidate n (how much of the new one comes
    in). Only z and r read the stacked :math:`[x_t;\ h_{t-1}]`; the candidate n reads
    :math:`x_t` directly and, through r, the past in PyTorch's reset-after form
    :math:`r \odot (W_{hn} h_{t-1} + b_{hn})` (r scales how much of the past the candidate
    reads). Fills as in :func:`draw_gru_cell` (:data:`rnndoc.colors.NODE_COLORS`). Sized for a
    phone: no text below 9 points on a figure under 4.5 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_gru_gates
    >>> fig = draw_gru_gates()
    >>> sorted(t.get_text() for t in fig.axes[0].texts if t.get_text() in "nrz")
    ['n', 'r', 'z']
    >>> min(t.get_fontsize() for t in fig.axes[0].texts) >= 9
    True
    >>> r"$W_{hn}h_{t-1}+b_{hn}$" in [t.get_text() for t in fig.axes[0].texts]
    True
    """
    fig, ax = _phone_figure((-0.4, 9.4), (-0.45, 6.3))
    state = NETWORK_COLORS["GRU"]
    top, row = 5.0, 2.2
    x_z, x_r, x_reset, x_n = 1.6, 3.6, 5.15, 6.9
    # the state path: h_(t-1) -> x z -> + (1 - z) n -> h_t
    ax.text(-0.3, top + 0.25, r"$h_{t-1}$", ha="left", va="bottom", fontsize=_MATH, color=state)
    _wire(ax, [(-0.3, top), (x_z - 0.3, top)], color=state, lw=3)
    _node(ax, (x_z, top), r"$\times$")
    _wire(ax, [(x_z + 0.3, top), (x_n - 0.3, top)], color=state, lw=3)
    _node(ax, (x_n, top), "+")
    _wire(ax, [(x_n + 0.3, top), (9.3, top)], color=state, lw=3)
    ax.text(9.3, top + 0.25, r"$h_t$", ha="right", va="bottom", fontsize=_MATH, color=state)
    ax.text(x_z + 0.9, top + 0.4, "keep the old", ha="center", va="bottom", fontsize=_SMALL)
    ax.text(x_n, top + 0.4, "mix", ha="center", va="bottom", fontsize=_SMALL)
    # the gates and the candidate
    _box(ax, (x_z, row), "z", "update", NODE_COLORS["gate"])
    _box(ax, (x_r, row), "r", "reset", NODE_COLORS["gate"])
    _box(ax, (x_n, row), "n", "candidate", NODE_COLORS["tanh"])
    # z up into the product with h_(t-1); a branch through 1 - into the product with n
    _wire(ax, [(x_z, row + 0.55), (x_z, top - 0.3)])
    ax.text(x_z - 0.12, 4.35, "$z$", ha="right", va="center", fontsize=10)
    ax.plot([x_z], [3.65], "o", ms=4, color=_WIRE)
    _node(ax, (3.0, 3.65), r"$1-z$", radius=0.42)
    _wire(ax, [(x_z, 3.65), (3.0 - 0.42, 3.65)])
    _node(ax, (x_n, 3.65), r"$\times$")
    _wire(ax, [(3.0 + 0.42, 3.65), (x_n - 0.3, 3.65)])
    ax.text(5.15, 3.8, "take the new", ha="center", va="bottom", fontsize=_SMALL)
    _wire(ax, [(x_n, row + 0.55), (x_n, 3.35)])
    _wire(ax, [(x_n, 3.95), (x_n, top - 0.3)])
    # PyTorch's reset-after form: r scales W_hn h_(t-1) + b_hn, the past's part of the candidate's
    # input; the candidate reads x_t directly, not the stacked vector
    _node(ax, (x_reset, row), r"$\times$")
    _wire(ax, [(x_r + 0.8, row), (x_reset - 0.3, row)])
    _wire(ax, [(x_reset + 0.3, row), (x_n - 0.8, row)])
    _wire(ax, [(x_reset, 0.95), (x_reset, row - 0.3)])
    ax.text(x_reset, 0.8, r"$W_{hn}h_{t-1}+b_{hn}$", ha="center", va="top", fontsize=_MATH)
    _wire(ax, [(x_n, 0.95), (x_n, row - 0.5)])
    ax.text(x_n + 0.15, 1.25, r"$x_t$", ha="left", va="center", fontsize=_MATH)  # beside its wire
    _bus(ax, [x_z, x_r])
    return fig


def draw_lstm_deltas() -> matplotlib.figure.Figure:
    r"""Draw the two deltas flowing back through one LSTM step (no projection), right to left.

    Top, in the LSTM's colour: the cell path. What step :math:`t+1` sends back,
    :math:`\delta c_{t+1} \odot f_{t+1}`, and what comes from :math:`h_t` through
    :math:`m_t = o_t \odot \tanh c_t`, :math:`\delta h_t \odot o_t \odot (1 - \tanh^2 c_t)`, add up
    to :math:`\delta c_t`; times :math:`f_t` it goes on to step :math:`t - 1`. Bottom: the hidden
    path. :math:`\partial \mathcal{L} / \partial\,\mathrm{output}_t` and what step :math:`t+1` sends
    back, :math:`W_{hh}^\top \delta a_{t+1}`, add up to :math:`\delta h_t`. :math:`\delta c_t` (for i, f, g)
    and :math:`\delta h_t` (for o) give the gate deltas :math:`\delta a_t`, and :math:`W_{hh}^\top \delta a_t`
    goes on to step :math:`t - 1`: equations ``eq-lstm-deltas`` and ``eq-lstm-gate-deltas`` of
    the LSTM-backward chapter. Fills as in :func:`draw_lstm_gates`. Sized for a phone: no text
    below 9 points on a figure under 4.5 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_lstm_deltas
    >>> texts = [t.get_text() for t in draw_lstm_deltas().axes[0].texts]
    >>> r"$\delta c_t$" in texts and r"$\delta h_t$" in texts
    True
    >>> min(t.get_fontsize() for t in draw_lstm_deltas().axes[0].texts) >= 9
    True
    """
    # larger type than the other diagrams (every label at 12 points or more, scripts included at
    # _BIG), as the figure holds more labels: shown at a phone's width they stay near 11 px or more
    fig, ax = _deltas_figure((-1.2, 6.85))
    cell = NETWORK_COLORS["LSTM"]
    path, named = (cell, 3), {"color": cell}  # the cell path's wires and labels
    top, low = 5.0, 1.0
    x_f, x_down, x_join, x_h, x_w = 1.7, 3.7, 6.4, 7.7, 0.9
    # the cell path, right to left: + (the h side joins) -> x f_t -> out
    _delta(ax, (x_join, top), "+", [([(9.3, top), (x_join + 0.3, top)], *path)],
           [([(x_join - 0.3, top), (x_f + 0.3, top)], *path)],
           [(9.3, top + 0.36, r"$\delta c_{t+1} \odot f_{t+1}$", "right", "bottom", named),
            ((x_join + x_down) / 2 - 0.3, top + 0.22, r"$\delta c_t$", "center", "bottom",
             named)])  # fmt: skip
    _delta(ax, (x_f, top), r"$\times$", [[(x_f, 3.9), (x_f, top - 0.3)]],
           [([(x_f - 0.3, top), (-0.3, top)], *path)],
           [(x_f + 0.12, 4.0, "$f_t$", "left", "bottom"),
            (-0.3, top + 0.36, r"$\delta c_t \odot f_t$", "left", "bottom", named)])  # fmt: skip
    # the hidden path, right to left: + (the loss joins) -> branch -> gate deltas -> W_hh -> out
    _delta(ax, (x_h, low), "+", [[(9.3, low), (x_h + 0.3, low)], [(x_h, -0.35), (x_h, low - 0.3)]],
           [[(x_h - 0.3, low), (4.95, low)]],
           [(9.3, low + 0.42, r"$W_{hh}^\top \delta a_{t+1}$", "right", "bottom"),
            (x_h, -0.45, r"$\partial \mathcal{L} / \partial\,\mathrm{output}_t$", "center", "top"),
            ((x_h + x_join) / 2 - 0.05, low - 0.22, r"$\delta h_t$", "center", "top"),
            (5.6, low - 0.22, r"$\delta o$", "center", "top", {"fontsize": 12})])  # fmt: skip
    # delta h_t through m_t = o_t tanh(c_t) into the cell path
    ax.plot([x_join], [low], "o", ms=4, color=_WIRE)
    _delta(ax, (x_join, 3.05), r"$\times\ o_t (1 - \tanh^2 c_t)$", [[(x_join, low), (x_join, 2.55)]],
           [[(x_join, 3.6), (x_join, top - 0.3)]], width=4.2, fill=NODE_COLORS["tanh"],
           fontsize=_BIG)  # fmt: skip
    # delta c_t down into the gate deltas of i, f, g
    ax.plot([x_down], [top], "o", ms=4, color=cell)
    _delta(ax, (3.25, low), r"$\delta a_t$", [([(x_down, top), (x_down, low + 0.55)], cell)],
           labels=[(x_down - 0.12, 3.3, r"$\delta i, \delta f, \delta g$", "right", "center",
                    {"fontsize": 12})],
           width=3.3, fill=NODE_COLORS["gate"], fontsize=_BIG)  # fmt: skip
    _delta(ax, (x_w, low), r"$W_{hh}^\top$", [[(1.6, low), (x_w + 0.5, low)]],
           [[(x_w - 0.5, low), (-0.3, low)]],
           [(-0.3, low - 0.6, r"$W_{hh}^\top \delta a_t$", "left", "top")], radius=0.7,
           fontsize=_BIG)  # fmt: skip
    return fig


def draw_gru_deltas() -> matplotlib.figure.Figure:
    r"""Draw the deltas flowing back through one GRU step, right to left.

    Top right: what the loss at step :math:`t` sends to :math:`h_t` and what step :math:`t+1`
    sends back, :math:`\partial \mathcal{L} / \partial h_t|_{\text{step } t+1}`, add up to
    :math:`\delta h_t`. Along the top, in the GRU's colour, the direct path:
    :math:`\delta h_t \odot z_t` goes on to step :math:`t - 1` through no weight. Below it,
    :math:`\delta h_t` splits into :math:`\delta z_t` and :math:`\delta n_t`, and
    :math:`\delta n_t` into :math:`\delta r_t` (through :math:`q_t`, inside :math:`n_t`) and
    :math:`\delta q_t`; :math:`W_{hh}^\top [\delta r_t; \delta z_t; \delta q_t]` goes back too, and
    the two terms add up to :math:`\partial \mathcal{L} / \partial h_{t-1}|_{\text{step } t}`:
    equation ``eq-gru-deltas`` of the GRU-backward chapter, in its symbols. Drawn in the style of
    :func:`draw_lstm_deltas`, fills as in :func:`draw_gru_gates`. Sized for a phone: no text
    below 9 points on a figure under 4.5 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_gru_deltas
    >>> texts = [t.get_text() for t in draw_gru_deltas().axes[0].texts]
    >>> all(rf"$\delta {v}_t$" in texts for v in "hznrq")
    True
    >>> min(t.get_fontsize() for t in draw_gru_deltas().axes[0].texts) >= 9
    True
    """
    fig, ax = _deltas_figure((-1.5, 10.3))
    state = NETWORK_COLORS["GRU"]
    path, named = (state, 3), {"color": state}  # the direct path's wires and labels
    top, low, row, kids = 8.0, 1.2, 6.1, 3.4
    x_plus, x_zgate, x_left, x_w = 8.3, 0.8, 0.15, 1.15
    x_z, x_n, x_r, x_q = 2.3, 5.4, 4.2, 6.55
    # delta h_t: what step t+1 sends back plus the loss at t; then the direct path along the top
    _delta(ax, (x_plus, top), "+",
           [([(9.3, top), (x_plus + 0.3, top)], *path), [(x_plus, top + 1.4), (x_plus, top + 0.3)]],
           [([(x_plus - 0.3, top), (x_zgate + 0.3, top)], *path)],
           [(9.3, top - 0.3, r"$\partial \mathcal{L} / \partial h_t|_{\mathrm{step}\ t+1}$", "right", "top",
             named),
            (x_plus - 0.15, top + 1.05, r"$\partial \mathcal{L} / \partial\,\mathrm{output}_t$", "right",
             "center"),
            ((x_z + x_n) / 2, top + 0.2, r"$\delta h_t$", "center", "bottom", named)])  # fmt: skip
    # times z_t, no weight
    _delta(ax, (x_zgate, top), r"$\times$", [[(x_zgate, top - 0.85), (x_zgate, top - 0.3)]],
           labels=[(x_zgate + 0.12, top - 0.85, "$z_t$", "left", "bottom"),
                   (-0.3, top + 0.3, r"$\delta h_t \odot z_t$", "left", "bottom", named)])  # fmt: skip
    ax.plot([x_zgate - 0.3, x_left], [top, top], color=state, lw=3, solid_capstyle="butt", zorder=1)
    # delta h_t splits into delta n_t and delta z_t
    for x in (x_z, x_n):
        ax.plot([x], [top], "o", ms=4, color=state)
    _delta(ax, (x_z, row), r"$\delta z_t$", [([(x_z, top), (x_z, row + 0.85)], state)],
           lines=[r"$\times (h_{t-1} - n_t)$", r"$\times z_t (1 - z_t)$"], width=2.8,
           fill=NODE_COLORS["gate"])  # fmt: skip
    _delta(ax, (x_n, row), r"$\delta n_t$", [([(x_n, top), (x_n, row + 0.85)], state)],
           lines=[r"$\times (1 - z_t)$", r"$\times (1 - n_t^2)$"], width=2.2,
           fill=NODE_COLORS["tanh"])  # fmt: skip
    # delta n_t splits into delta r_t (through q_t, inside n_t) and delta q_t
    split = row - 1.35
    ax.plot([x_n], [split], "o", ms=4, color=_WIRE)
    _wire(ax, [(x_n, row - 0.85), (x_n, split)], arrow=False)
    _delta(ax, (x_r, kids), r"$\delta r_t$", [[(x_n, split), (x_r, split), (x_r, kids + 0.85)]],
           lines=[r"$\times q_t$", r"$\times r_t (1 - r_t)$"], width=2.2,
           fill=NODE_COLORS["gate"])  # fmt: skip
    _delta(ax, (x_q, kids), r"$\delta q_t$", [[(x_n, split), (x_q, split), (x_q, kids + 0.6)]],
           lines=[r"$\times r_t$"], width=1.5)  # fmt: skip
    # the three deltas, times W_hh, back to h_(t-1)
    _delta(ax, (4.75, low), r"$[\delta r_t;\ \delta z_t;\ \delta q_t]$",
           [[(x, y), (x, low + 0.5)] for x, y in ((x_z, row - 0.85), (x_r, kids - 0.85), (x_q, kids - 0.6))],
           width=5.3, fill=NODE_COLORS["gate"], fontsize=_BIG)  # fmt: skip
    _delta(ax, (x_w, low), r"$W_{hh}^\top$", [[(2.06, low), (x_w + 0.55, low)]],
           [[(x_w - 0.55, low), (x_left + 0.3, low)]],
           [(x_w + 0.75, low - 0.6, r"$W_{hh}^\top [\delta r_t;\ \delta z_t;\ \delta q_t]$", "left", "top")],
           radius=0.55, fontsize=_MATH)  # fmt: skip
    # the two terms add up to what step t sends back to h_(t-1)
    _delta(ax, (x_left, low), "+", [([(x_left, top), (x_left, low + 0.3)], *path)],
           [[(x_left, low - 0.3), (x_left, -0.6)]],
           [(-0.3, -0.7, r"$\partial \mathcal{L} / \partial h_{t-1}|_{\mathrm{step}\ t}$", "left",
             "top")])  # fmt: skip
    return fig


def _box3(ax, xy, name, lines, color, width):
    """A delta's box: its name, then the factors that make it, one a line (as the equation prints them)."""
    x, y = xy
    height = 0.7 + 0.55 * len(lines)
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height, boxstyle="round,pad=0.04",
                                facecolor=color, edgecolor=_WIRE))  # fmt: skip
    top = y + height / 2
    ax.text(x, top - 0.38, name, ha="center", va="center", fontsize=_BIG)
    for index, line in enumerate(lines):
        ax.text(x, top - 0.95 - 0.55 * index, line, ha="center", va="center", fontsize=_MATH)


def draw_rnn_deltas() -> matplotlib.figure.Figure:
    r"""Draw the delta flowing back through one tanh-RNN step, right to left, in column form.

    Top right: what the loss term :math:`\ell_t` sends to :math:`h_t`, :math:`h_t - y_t`, and
    what step :math:`t+1` sends back, :math:`W_{hh}^\top \delta_{t+1}`, add up to
    :math:`\partial \mathcal{L} / \partial h_t`; times :math:`\tanh'(a_t) = 1 - h_t^2` it is
    :math:`\delta_t` (equation ``eq-delta`` of the BPTT chapter). Along the top, in the tanh
    RNN's colour (:data:`rnndoc.colors.NETWORK_COLORS`), :math:`\delta_t` goes on through
    :math:`W_{hh}^\top` to step :math:`t - 1` as :math:`W_{hh}^\top \delta_t`. Below it,
    :math:`\delta_t` gives step :math:`t`'s terms of the weight and bias gradients,
    :math:`\delta_t h_{t-1}^\top`, :math:`\delta_t x_t^\top` and :math:`\delta_t` (equation
    ``eq-gradients``, summed over the steps). Drawn in the style of :func:`draw_lstm_deltas`
    and :func:`draw_gru_deltas`, the :math:`\tanh'` box filled as the tanh nodes of the cell
    diagrams (:data:`rnndoc.colors.NODE_COLORS`). Sized for a phone: no text below 9 points on
    a figure under 4.5 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.cell_diagrams import draw_rnn_deltas
    >>> texts = [t.get_text() for t in draw_rnn_deltas().axes[0].texts]
    >>> r"$\delta_t$" in texts and r"$W_{hh}^\top \delta_{t+1}$" in texts
    True
    >>> r"$\delta_t h_{t-1}^\top$" in texts and r"$\delta_t x_t^\top$" in texts
    True
    >>> min(t.get_fontsize() for t in draw_rnn_deltas().axes[0].texts) >= 9
    True
    """
    fig, ax = _deltas_figure((-0.8, 7.6))
    color = NETWORK_COLORS["tanh RNN"]
    path = (color, 3)  # the path's wires
    top, row, bus = 5.0, 2.3, 3.4
    x_plus, x_tanh, x_branch, x_w = 8.4, 4.95, 2.9, 0.9
    x_terms = (1.55, 4.75, 7.85)
    # what reaches h_t: step t+1's term plus the loss term's
    _delta(ax, (x_plus, top), "+",
           [([(9.3, top), (x_plus + 0.3, top)], *path), [(x_plus, top + 1.8), (x_plus, top + 0.3)]],
           [([(x_plus - 0.3, top), (x_tanh + 1.3, top)], *path)],
           [(9.3, top - 0.3, r"$W_{hh}^\top \delta_{t+1}$", "right", "top"),
            (x_plus - 0.15, top + 1.35, r"$\partial \ell_t / \partial h_t = h_t - y_t$", "right", "center"),
            ((x_plus + x_tanh + 1.0) / 2, top + 0.2, r"$\partial \mathcal{L} / \partial h_t$", "center",
             "bottom")])  # fmt: skip
    # times tanh'(a_t) = 1 - h_t^2: delta_t
    _delta(ax, (x_tanh, top), r"$\times\,(1 - h_t^2)$",
           out=[([(x_tanh - 1.3, top), (x_w + 0.62, top)], *path)],
           labels=[(2.2, top + 0.2, r"$\delta_t$", "center", "bottom")], width=2.5, fill=NODE_COLORS["tanh"],
           fontsize=_BIG)  # fmt: skip
    # on through W_hh^T to step t - 1
    _delta(ax, (x_w, top), r"$W_{hh}^\top$", out=[([(x_w - 0.62, top), (-0.3, top)], *path)],
           labels=[(-0.3, top + 0.75, r"$W_{hh}^\top \delta_t$", "left", "bottom")], radius=0.62,
           fontsize=_MATH)  # fmt: skip
    # delta_t down to step t's terms of the gradients
    ax.plot([x_branch], [top], "o", ms=5, color=color)
    _wire(ax, [(x_branch, top), (x_branch, bus)], color=color, arrow=False)
    ax.plot([x_terms[0], x_terms[-1]], [bus, bus], color=color, lw=1.3, zorder=1)
    names = (r"$\delta_t h_{t-1}^\top$", r"$\delta_t x_t^\top$", r"$\delta_t$")
    grads = (
        [r"$\partial \mathcal{L} / \partial W_{hh}$"],
        [r"$\partial \mathcal{L} / \partial W_{ih}$"],
        [r"$\partial \mathcal{L} / \partial b_{ih}$,", r"$\partial \mathcal{L} / \partial b_{hh}$"],
    )
    for x, name, lines in zip(x_terms, names, grads, strict=True):
        _delta(ax, (x, row), name, [([(x, bus), (x, row + 0.5)], color)],
               [[(x, row - 0.55), (x, row - 1.05)]],
               [(x, row - 1.15 - 0.75 * index, line, "center", "top", {"fontsize": _MATH})
                for index, line in enumerate(lines)], width=2.7, fontsize=_BIG)  # fmt: skip
    ax.text(3.1, -0.7, "each summed over the steps", ha="center", va="bottom", fontsize=_SMALL)
    return fig
