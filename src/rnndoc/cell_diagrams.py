"""The LSTM and GRU cell diagrams (matplotlib), in PyTorch's gate order; :mod:`rnndoc.plots` re-exports them."""

from __future__ import annotations

import matplotlib.figure
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

__all__ = ["draw_gru_cell", "draw_lstm_cell"]


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


def _cell_figure(width: float) -> tuple[matplotlib.figure.Figure, Axes]:
    fig = matplotlib.figure.Figure(figsize=(width, 4.0), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    return fig, ax


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

    fig, ax = _cell_figure(7.5)
    ax.set_xlim(-0.6, 8.2)
    ax.set_ylim(-0.9, 3.3)
    gates = {"i": (1.2, 0.9), "f": (2.4, 0.9), "g": (3.9, 0.9), "o": (5.3, 0.9)}
    colors = {"i": "#fde2c4", "f": "#fde2c4", "g": "#cfe3f6", "o": "#fde2c4"}
    for name, xy in gates.items():
        _gate(ax, xy, (r"tanh" if name == "g" else r"$\sigma$") + f" ({name})", colors[name])
    # inputs: x_t and h_(t-1), stacked into one vector, feed every gate from below
    ax.text(0.0, -0.65, r"$[x_t;\ h_{t-1}]$", ha="center", fontsize=11)
    ax.plot([0.0, 5.3], [-0.35, -0.35], color="0.25", lw=1.3)
    ax.plot([0.0, 0.0], [-0.45, -0.35], color="0.25", lw=1.3)
    for xy in gates.values():
        _line(ax, [(xy[0], -0.35), (xy[0], xy[1] - 0.25)])
    # the cell state along the top: times f, then plus i * g
    _op(ax, (2.4, 2.6), r"$\times$")
    _op(ax, (3.15, 2.6), "+")
    _op(ax, (3.15, 1.75), r"$\times$")
    _line(ax, [(-0.4, 2.6), (2.18, 2.6)], r"$c_{t-1}$", offset=(-2.2, 0.12))
    _line(ax, [(2.4, 1.15), (2.4, 2.38)])  # f_t
    _line(ax, [(2.62, 2.6), (2.93, 2.6)])
    # i_t to the product with g_t, hopping over the f wire at x = 2.4
    _line(ax, [(1.2, 1.15), (1.2, 1.75), (2.28, 1.75)], arrow=False)
    ax.add_patch(Arc((2.4, 1.75), 0.24, 0.24, theta1=0, theta2=180, color="0.25", lw=1.3))
    _line(ax, [(2.52, 1.75), (2.93, 1.75)])
    _line(ax, [(3.9, 1.15), (3.9, 1.75), (3.37, 1.75)])  # g_t
    _line(ax, [(3.15, 1.97), (3.15, 2.38)])
    _line(ax, [(3.37, 2.6), (7.9, 2.6)], r"$c_t$", offset=(0.0, 0.15))
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
    >>> from rnndoc.cell_diagrams import draw_gru_cell
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
