"""The learning curves of adding-problem runs (and of a probe recorded beside them)."""

from __future__ import annotations

import matplotlib.colors
import matplotlib.figure

from .._validate import check_float, check_instance, check_mapping, check_str
from ..colors import network_colors
from ..gradient_plots import _PHONE_WIDTH
from .task import MEAN_BASELINE_MSE
from .training import AddingRun

__all__ = ["plot_learning_curves"]


def plot_learning_curves(
    runs: dict[str, AddingRun],
    colors: dict[str, str] | None = None,
    probe_label: str | None = None,
    probe_threshold: float | None = None,
) -> matplotlib.figure.Figure:
    """Held-out MSE against the training step, log scale, with the mean baseline 1/6 dashed.

    Each run has its own marker shape, set at its own evaluations (every n-th, n at least the
    number of runs, from the run's index on), so that runs whose curves coincide (failed runs on
    the baseline) alternate their markers along the shared stretch; the runs listed first are
    drawn on top.

    Parameters
    ----------
    runs : dict of str to AddingRun
        A label and its run.
    colors : dict of str to str, optional
        A matplotlib colour per label; the same colour marks the run in both panels. By
        default the book's colour of each network (:func:`rnndoc.colors.network_colors`).
    probe_label : str, optional
        With it, a second panel, below the first, plots the ``probe`` list of each :class:`AddingRun` (log scale),
        with this y label.
    probe_threshold : float, optional
        Drawn as a dotted line across the second panel, labelled.

    Returns
    -------
    matplotlib.figure.Figure
        One legend, below the panels, so that it covers no curve.

    Raises
    ------
    TypeError
        If ``runs`` is not a mapping of str to :class:`AddingRun`, ``colors`` not a mapping,
        ``probe_label`` not a str or ``probe_threshold`` not a number.
    ValueError
        If a run has not one ``mse`` value per step (nor, with ``probe_label``, one ``probe``
        value per step), a colour is not a matplotlib colour, or ``probe_threshold`` is not
        positive and finite.

    Examples
    --------
    >>> from rnndoc.adding import AddingRun, plot_learning_curves
    >>> fig = plot_learning_curves({"a": AddingRun([0, 10], [0.2, 0.01], [0.1, 0.9])})
    >>> ax = fig.axes[0]
    >>> ax.get_yscale(), len(ax.lines)  # the curve and the baseline
    ('log', 2)
    """
    check_mapping("runs", runs)
    for label, run in runs.items():
        check_str(f"runs key {label!r}", label)
        check_instance(f"runs[{label!r}]", run, AddingRun, "an AddingRun")
        curves = [run.mse] if probe_label is None else [run.mse, run.probe]
        if any(len(curve) != len(run.steps) for curve in curves):
            raise ValueError(f"runs[{label!r}] must have one mse (and probe) value per step")
    for label, color in check_mapping("colors", {} if colors is None else colors).items():
        if not matplotlib.colors.is_color_like(color):
            raise ValueError(f"colors[{label!r}] must be a matplotlib colour, got {color!r}")
    if probe_label is not None:
        check_str("probe_label", probe_label)
    if probe_threshold is not None:
        check_float("probe_threshold", probe_threshold, positive=True)
    panels = 1 if probe_label is None else 2
    # phone-wide (see rnndoc.plots.smallest_text_px), the probe's panel below, sharing the steps
    fig = matplotlib.figure.Figure(figsize=(_PHONE_WIDTH, 2.9 * panels + 1.3), layout="constrained")
    axes = fig.subplots(panels, 1, squeeze=False, sharex=True)[:, 0]
    shades: dict[str, str | None] = dict(colors) if colors else network_colors(list(runs))
    for index, (label, run) in enumerate(runs.items()):
        every = max(len(runs), len(run.steps) // 12)
        style = {"lw": 1.6, "color": shades.get(label), "marker": "osD^v<>"[index % 7], "ms": 4.5,
                 "markevery": (index % every, every), "zorder": 3 + len(runs) - index}  # fmt: skip
        axes[0].semilogy(run.steps, run.mse, label=label, **style)
        if probe_label is not None:
            axes[1].semilogy(run.steps, run.probe, **style)
    axes[0].axhline(
        MEAN_BASELINE_MSE, color="0.3", ls="--", lw=1, label="dashed: always answering 1 (MSE 1/6)"
    )
    axes[0].set_ylabel("held-out MSE")
    if probe_label is not None:
        axes[1].set_ylabel(probe_label)
        if probe_threshold is not None:
            axes[1].axhline(probe_threshold, color="0.3", ls=":", lw=1.2,
                            label=f"dotted: threshold {probe_threshold:g} (lower panel)")  # fmt: skip
    axes[-1].set_xlabel("training step (Adam)")
    for ax in axes:
        ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=1, fontsize=10, frameon=False)
    return fig
