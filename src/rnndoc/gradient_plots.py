"""Figures of how gradients behave over time: state-gradient norms and truncation gaps."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.colors
import matplotlib.figure
from matplotlib import patheffects

from ._validate import check_choice, check_float, check_int, check_mapping, check_numbers, check_sequence
from .colors import DIRECTION_COLORS, network_colors

__all__ = ["plot_gradient_norms", "plot_step_gradients", "plot_truncation"]

#: The width of the book's plots, in inches: about the width the book shows a figure at on a
#: 390 px phone (rnndoc.plots.PHONE_FIGURE_PX), so a plot is not scaled down there, and
#: matplotlib's 10-point tick labels keep a log axis's exponents (7 points) at 9 px or more.
_PHONE_WIDTH = 3.4


def plot_gradient_norms(
    curves: dict[str, Sequence[float]], bounds: dict[str, float] | None = None, measured: str = "solid"
) -> matplotlib.figure.Figure:
    r"""Plot :math:`\lVert \partial h_T / \partial h_t \rVert_2` against the distance T - t, log scale.

    Parameters
    ----------
    curves : dict of str to sequence of float
        A label and the norms at distances 0, 1, 2, ... (a list, or a 1-d tensor as from
        :func:`rnndoc.vanishing.state_gradient_norms`).
    bounds : dict of str to float, optional
        A curve's label and its :math:`\lVert W_{hh} \rVert_2`: the bound
        :math:`\lVert W_{hh} \rVert_2^{T-t}` is drawn in that curve's colour, dashed for the first
        bound, dotted for the second, with a white edge and over the curves, so that a bound on
        which its curve lies stays visible. Each curve has its own marker. The legend names each
        line's style in words: the measured curves are solid, each bound dashed or dotted.
    measured : {"solid", "band"}, default "solid"
        How the measured curves are drawn: thin solid lines, or (``"band"``, for curves that lie
        on their bounds) wide pale bands of their colour, markers in full colour, under their
        bounds' thinner lines, so that a bound on which its curve lies stays visible; the
        legend then names them "measured: wide, pale".

    Returns
    -------
    matplotlib.figure.Figure
        The legend sits below the axes, clear of the data.

    Raises
    ------
    TypeError, ValueError
        If ``curves`` is not a mapping of labels to non-empty sequences of numbers, ``bounds``
        not a mapping of labels to positive numbers, a key of ``bounds`` is not a key of
        ``curves``, or ``measured`` is not one of its choices.

    Examples
    --------
    >>> from rnndoc.gradient_plots import plot_gradient_norms
    >>> fig = plot_gradient_norms({"a": [1.0, 0.5, 0.25]}, {"a": 0.5})
    >>> ax = fig.axes[0]
    >>> ax.get_yscale(), len(ax.lines), ax.lines[0].get_color() == ax.lines[1].get_color()
    ('log', 2, True)
    >>> band = plot_gradient_norms({"a": [1.0, 0.5, 0.25]}, {"a": 0.5}, measured="band").axes[0]
    >>> band.lines[0].get_linewidth(), band.lines[0].get_zorder() < band.lines[1].get_zorder()
    (6.0, True)
    """
    curves = {
        label: check_numbers(f"curves[{label!r}]", norms)
        for label, norms in check_mapping("curves", curves).items()
    }
    bounds = {
        label: check_float(f"bounds[{label!r}]", sigma, positive=True)
        for label, sigma in check_mapping("bounds", {} if bounds is None else bounds).items()
    }
    measured = check_choice("measured", measured, ("solid", "band"))
    unknown = sorted(set(bounds) - set(curves))
    if unknown:
        raise ValueError(f"bounds must be keyed by curve labels {sorted(curves)}, got {unknown}")
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 4.4), layout="constrained")
    ax = fig.add_subplot()
    colors = network_colors(list(curves))  # the book's colour for each network
    halo = [patheffects.Stroke(linewidth=3.2, foreground="white"), patheffects.Normal()]
    bound_styles = iter([((0, (5, 2)), "dashed"), ((0, (1, 1.2)), "dotted"), ("-.", "dash-dotted"),
                         ((0, (5, 1, 1, 1)), "dash-dot-dotted")] * len(curves))  # fmt: skip
    for index, (label, norms) in enumerate(curves.items()):
        marker = "osD^v<>"[index % 7]
        (line,) = ax.semilogy(range(len(norms)), norms, "-", marker=marker, ms=3.5, lw=1,
                              color=colors[label], label=f"{label}, solid" if bounds else label)  # fmt: skip
        full = line.get_color()  # the curve's colour (from the cycle when the book has none)
        if measured == "band":  # a wide, pale band of that colour, its markers in full colour
            rgb = matplotlib.colors.to_rgb(full)
            line.set(color=(*rgb, 0.35), lw=6, solid_capstyle="round", zorder=2, markerfacecolor=rgb,
                     markeredgecolor=rgb, label=f"{label}, measured: wide, pale" if bounds else label)  # fmt: skip
        if label in bounds:
            sigma = bounds[label]
            distances = range(len(norms))
            style, style_name = next(bound_styles)
            ax.semilogy(distances, [sigma**d for d in distances], linestyle=style,
                        lw=1.8 if measured == "band" else 2.2, color=full, zorder=3,
                        path_effects=halo, label=f"bound {sigma:g}$^{{T-t}}$, {style_name}")  # fmt: skip
    ax.set_xlabel("distance T - t (steps)")
    ax.set_ylabel(r"$\|\partial h_T / \partial h_t\|_2$")
    ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=1 if bounds else 2, fontsize=10, frameon=False)
    return fig


def plot_truncation(lengths: Sequence[int], errors: Sequence[float]) -> matplotlib.figure.Figure:
    r"""Plot how far truncated-BPTT gradients are from full BPTT, against the chunk length.

    The error is relative, :math:`\lVert G_k - G \rVert_2 / \lVert G \rVert_2` for the
    gradient :math:`G_k` truncated every k steps and the full gradient G, so the axis has a
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
    TypeError, ValueError
        If ``lengths`` is not a non-empty sequence of positive ints, or ``errors`` not as many
        numbers of at least 0.

    Examples
    --------
    >>> from rnndoc.gradient_plots import plot_truncation
    >>> ax = plot_truncation([1, 2, 3], [0.1, 0.01, 0.0]).axes[0]
    >>> ax.get_yscale(), float(ax.get_ylim()[0]), [t.get_text() for t in ax.get_legend().get_texts()]
    ('log', 0.001, ['truncated every k steps', 'exactly 0'])
    """
    lengths = [
        check_int(f"lengths[{k}]", n, minimum=1)
        for k, n in enumerate(check_sequence("lengths", lengths, "a sequence of ints"))
    ]
    errors = check_numbers("errors", errors, len(lengths))
    if min(errors) < 0:
        raise ValueError(f"errors must be at least 0 (they are norms), got {min(errors)}")
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 3.4), layout="constrained")
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
    ax.set_ylabel(r"$\|G_k - G\|_2 \,/\, \|G\|_2$")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=10)
    return fig


def plot_step_gradients(
    panels: dict[str, Sequence[Sequence[float]]], labels: Sequence[str]
) -> matplotlib.figure.Figure:
    r"""Plot a gradient's norm at every time step: one panel per key, one line per sequence.

    Parameters
    ----------
    panels : dict of str to sequence of sequence of float, each (N, L)
        A panel's title (e.g. a direction) and, for each of the N sequences, the norm
        :math:`\lVert \partial \mathcal{L} / \partial x_t \rVert_2` at steps 1 to L.
    labels : sequence of str, length N
        A legend entry per sequence.

    Returns
    -------
    matplotlib.figure.Figure
        Panels side by side sharing a linear y axis (a norm of exactly 0 shows as 0). The
        sequences are drawn in black, told apart by line style and marker (solid with circles,
        dashed with squares, dotted with triangles, ...), each named in the legend: the book's
        hues each mean a network, a direction or a gate, and a sequence of a batch is none of them.

    Raises
    ------
    TypeError
        If ``panels`` is not a mapping of sequences of numbers, or ``labels`` not a sequence.
    ValueError
        If ``panels`` is empty, or a panel does not have one row per label.

    Examples
    --------
    >>> from rnndoc.plots import plot_step_gradients
    >>> fig = plot_step_gradients({"forward": [[1.0, 0.5, 0.0]], "reverse": [[0.2, 0.4, 0.0]]}, ["b = 0"])
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[0].lines)
    (['forward', 'reverse'], 1)
    """
    check_mapping("panels", panels)
    if not panels:
        raise ValueError("panels must not be empty")
    labels = check_sequence("labels", labels, "a sequence of str")
    for title, rows in panels.items():
        checked = check_sequence(f"panels[{title!r}]", rows, "a sequence of rows of numbers")
        if len(checked) != len(labels):
            raise ValueError(
                f"panels[{title!r}] must have one row per entry of labels ({len(labels)}), got {len(checked)}"
            )
        for row in checked:
            check_numbers(f"panels[{title!r}]", row)
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 3.4), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    styles = [("-", "o", "solid"), ("--", "s", "dashed"), (":", "^", "dotted"), ("-.", "D", "dash-dotted")]
    for ax, (title, rows) in zip(axes, panels.items(), strict=True):
        for index, (label, norms) in enumerate(zip(labels, rows, strict=True)):
            line, marker, name = styles[index % len(styles)]
            ax.plot(range(1, len(norms) + 1), norms, ls=line, marker=marker, ms=4, color="black", lw=1.2,
                    label=f"{label}, {name}")  # fmt: skip  # (L,)
        ax.set_title(title, color=DIRECTION_COLORS.get(title, "black"))  # a direction in its colour
        ax.set_xlabel("step t")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel(r"$\|\partial \mathcal{L} / \partial x_t\|_2$")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=1,
               fontsize=10, frameon=False)  # fmt: skip
    return fig
