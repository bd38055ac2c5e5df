"""The figure of the symbolic derivation's cost: gradient sizes against T, per H and method."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.figure

from ._validate import check_choice, check_float, check_int, check_mapping, check_sequence
from .colors import SIZE_COLORS
from .gradient_plots import _PHONE_WIDTH

__all__ = ["plot_derivation_costs"]


def _check_costs(costs: object) -> dict[tuple[int, str], list[dict]]:
    checked = {}
    for key, value in check_mapping("costs", costs).items():
        if not isinstance(key, tuple) or len(key) != 2:  # (H, method)
            raise TypeError(f"costs must be keyed by (H, method) tuples, got {key!r}")
        check_int(f"costs key {key!r}: H", key[0], minimum=1)
        check_choice(f"costs key {key!r}: method", key[1], ("direct", "recursion"))
        points = check_sequence(f"costs[{key!r}]", value, "a sequence of points", non_empty=False)
        for k, point in enumerate(points):
            fields = ("length", "size_cse", *(("size",) if key[1] == "direct" else ()))
            check_mapping(f"costs[{key!r}][{k}]", point, fields)
            for field in fields:
                check_float(f"costs[{key!r}][{k}][{field!r}]", point[field])
        checked[key] = points
    return checked


def plot_derivation_costs(costs: Mapping[tuple[int, str], Sequence[dict]]) -> matplotlib.figure.Figure:
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
    >>> from rnndoc.derivation_cost_plot import plot_derivation_costs
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
    colors = dict(zip(hidden_sizes, SIZE_COLORS, strict=False))
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 4.2), layout="constrained")
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
    # the legend fills column by column: the colours in the left column, the styles in the right
    # (two columns keep it within a phone-wide figure)
    fig.legend(handles=by_size + by_method, loc="outside lower center", ncols=2, fontsize=10, frameon=False,
               handlelength=2.2, columnspacing=1.0)  # fmt: skip
    return fig
