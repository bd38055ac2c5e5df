r"""The adding problem: a task whose answer depends on an input about 50 steps back.

Each sequence has L steps of two features: a value drawn uniformly from [0, 1) and a marker,
1 at exactly two steps and 0 elsewhere. The target is the sum of the two marked values.
As in Hochreiter and Schmidhuber's experiment, the first marker sits among the first
``first_window`` steps and the second later in the first half, so both values must be carried
more than L/2 steps, the first one ``L - first_window`` to ``L - 1`` steps (40 to 49 with the
defaults: from its step, 1 to 10, to step L), to the answer, which is read off the last hidden state. Answering the mean, 1, scores the variance of the sum of two uniform
values, :math:`2 / 12 = 1/6` (:data:`MEAN_BASELINE_MSE`); an answer counts as right within
:data:`TOLERANCE` of the target.

Hochreiter and Schmidhuber (1997), section 5.4 (experiment 4: the adding problem).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import matplotlib.colors
import matplotlib.figure
import torch
from torch import nn

from ._validate import (
    check_callable,
    check_choice,
    check_dtype,
    check_float,
    check_instance,
    check_int,
    check_mapping,
    check_sequence,
    check_str,
    check_tensor,
)
from .colors import network_colors
from .state_jacobian import raise_forget_bias

__all__ = [
    "BOOK_RUNS",
    "FAILED_MSE",
    "MEAN_BASELINE_MSE",
    "SOLVED_FRACTION",
    "TOLERANCE",
    "AddingModel",
    "AddingRun",
    "adding_batch",
    "evaluate",
    "plot_learning_curves",
    "train_adding",
]

#: MSE of always answering 1, the mean target: Var(u_1 + u_2) = 2/12 for u uniform on [0, 1).
MEAN_BASELINE_MSE = 1 / 6
#: An answer is right within 0.04 of the target (Hochreiter and Schmidhuber 1997).
TOLERANCE = 0.04
#: A run has solved the task when at least this fraction of held-out answers is right.
SOLVED_FRACTION = 0.9
#: A run has failed when its held-out MSE is at least this: 90 % of the mean baseline's.
FAILED_MSE = 0.9 * MEAN_BASELINE_MSE

#: The book's four runs: label -> (mode, forget-gate bias raised by, Adam steps, outcome).
#: The chapter trains them on seed 0; ``nox -s adding`` checks each outcome on several seeds.
BOOK_RUNS = {
    "tanh RNN": ("RNN_TANH", 0.0, 1000, "failed"),
    "LSTM": ("LSTM", 0.0, 3000, "failed"),
    "LSTM, forget bias +3": ("LSTM", 3.0, 3000, "solved"),
    "GRU": ("GRU", 0.0, 1000, "solved"),
}

_MODES: dict[str, type[nn.RNN | nn.LSTM | nn.GRU]] = {"RNN_TANH": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


def _check_lengths(length: object, first_window: object) -> tuple[int, int]:
    """L and the first marker's window, each at least 1, with room for both markers."""
    first_window = check_int("first_window", first_window, minimum=1)
    length = check_int("length", length, minimum=1)
    if length < 2 * first_window + 2:
        raise ValueError(
            f"length must be at least 2 * first_window + 2 = {2 * first_window + 2}, got {length}"
        )
    return length, first_window


def adding_batch(
    batch_size: int,
    length: int = 50,
    first_window: int = 10,
    *,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Draw a batch of the adding problem.

    .. math:: y = \sum_{t=1}^{L} u_t\, m_t, \qquad u_t \sim U[0, 1),\quad m_t \in \{0, 1\},\quad
              \textstyle\sum_t m_t = 2

    Parameters
    ----------
    batch_size : int
        N, at least 1.
    length : int, default 50
        L, the sequence length; at least ``2 * first_window + 2``.
    first_window : int, default 10
        The first marker is at one of the steps 1 ... ``first_window``; the second at one of
        the steps ``first_window + 1`` ... L/2 (L/2 rounded down).
    generator : torch.Generator
        The only source of randomness: the same generator state gives the same batch.
    dtype : torch.dtype, default torch.float32

    Returns
    -------
    inputs : Tensor, shape (N, L, 2)
        Feature 0 is :math:`u_t`, feature 1 the marker :math:`m_t` (``batch_first`` layout).
    targets : Tensor, shape (N,)

    Raises
    ------
    TypeError
        If a size is not an int, ``generator`` not a ``torch.Generator`` or ``dtype`` not a
        ``torch.dtype``.
    ValueError
        If a size is below 1, ``length < 2 * first_window + 2`` or ``dtype`` is not floating.

    Notes
    -----
    Hochreiter and Schmidhuber (1997), section 5.4.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import adding_batch
    >>> inputs, targets = adding_batch(3, 10, 2, generator=torch.Generator().manual_seed(0))
    >>> inputs.shape, targets.shape, inputs[:, :, 1].sum(dim=1).tolist()
    (torch.Size([3, 10, 2]), torch.Size([3]), [2.0, 2.0, 2.0])
    >>> torch.equal(targets, (inputs[:, :, 0] * inputs[:, :, 1]).sum(dim=1))
    True
    """
    n = check_int("batch_size", batch_size, minimum=1)
    length, first_window = _check_lengths(length, first_window)
    check_instance("generator", generator, torch.Generator, "a torch.Generator")
    check_dtype("dtype", check_instance("dtype", dtype, torch.dtype, "a torch.dtype"))
    values = torch.rand(n, length, generator=generator, dtype=dtype)  # (N, L)
    first = torch.randint(0, first_window, (n,), generator=generator)  # (N,)
    second = torch.randint(first_window, length // 2, (n,), generator=generator)  # (N,)
    markers = torch.zeros(n, length, dtype=dtype)  # (N, L)
    rows = torch.arange(n)
    markers[rows, first] = 1
    markers[rows, second] = 1
    return torch.stack([values, markers], dim=-1), (values * markers).sum(dim=1)  # (N, L, 2), (N,)


class AddingModel(nn.Module):
    r"""One recurrent layer and a linear read-out of its last hidden state.

    .. math:: \hat y = w^\top h_L + b

    Parameters
    ----------
    mode : {"RNN_TANH", "LSTM", "GRU"}
        PyTorch's mode names: ``nn.RNN`` (tanh), ``nn.LSTM`` or ``nn.GRU``, ``batch_first=True``.
    hidden_size : int, default 32
    forget_bias : float, default 0.0
        For an LSTM, added to the forget gate's bias after PyTorch's initialization
        (:func:`rnndoc.state_jacobian.raise_forget_bias`); must be 0 otherwise.

    Attributes
    ----------
    rnn : nn.RNN, nn.LSTM or nn.GRU
        Input size 2.
    readout : nn.Linear
        (H -> 1).

    Raises
    ------
    TypeError
        If ``mode`` is not a str, ``hidden_size`` not an int or ``forget_bias`` not a number.
    ValueError
        If ``mode`` is unknown, ``hidden_size`` below 1, or ``forget_bias`` not finite or
        nonzero for a mode other than LSTM.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import AddingModel
    >>> model = AddingModel("GRU", hidden_size=4)
    >>> model(torch.zeros(3, 7, 2)).shape
    torch.Size([3])
    """

    def __init__(self, mode: str, hidden_size: int = 32, forget_bias: float = 0.0) -> None:
        super().__init__()
        check_choice("mode", mode, _MODES)
        hidden_size = check_int("hidden_size", hidden_size, minimum=1)
        forget_bias = check_float("forget_bias", forget_bias)
        if forget_bias and mode != "LSTM":
            raise ValueError(f"forget_bias applies to an LSTM only, got mode {mode!r}")
        self.rnn = _MODES[mode](2, hidden_size, batch_first=True)
        self.readout = nn.Linear(hidden_size, 1)
        if isinstance(self.rnn, nn.LSTM) and forget_bias:
            raise_forget_bias(self.rnn, forget_bias)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Map inputs (N, L, 2) to answers (N,)."""
        output, _ = self.rnn(inputs)  # (N, L, H)
        return self.readout(output[:, -1]).squeeze(-1)  # (N,)


def evaluate(
    model: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor
) -> tuple[float, float]:
    r"""Mean squared error and the fraction of answers within :data:`TOLERANCE`.

    .. math:: \mathrm{MSE} = \frac1N \sum_n (\hat y_n - y_n)^2, \qquad
              \text{right} = \frac1N \bigl|\{n : |\hat y_n - y_n| < 0.04\}\bigr|

    Parameters
    ----------
    model : callable
        Maps (N, L, 2) to (N,), as :class:`AddingModel`.
    inputs : Tensor, shape (N, L, F)
        F = 2 for :class:`AddingModel`; any F the model reads.
    targets : Tensor, shape (N,)

    Returns
    -------
    tuple (float, float)
        The MSE and the fraction right, as Python floats.

    Raises
    ------
    TypeError
        If ``model`` is not callable or ``inputs`` or ``targets`` is not a floating tensor.
    ValueError
        If ``inputs`` is not 3-d, ``targets`` not (N,), or the model's answers are not of the
        targets' shape.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import evaluate
    >>> evaluate(lambda x: x[:, 0, 0], torch.tensor([[[1.0]], [[2.0]]]), torch.tensor([1.0, 1.5]))
    (0.125, 0.5)
    """
    check_callable("model", model)
    check_tensor("inputs", inputs, (None, None, None), "(N, L, F)")
    check_tensor("targets", targets, (inputs.shape[0],), "(N,)")
    with torch.no_grad():
        answers = model(inputs)  # (N,)
    if answers.shape != targets.shape:
        raise ValueError(f"model answers must have shape {tuple(targets.shape)}, got {tuple(answers.shape)}")
    error = answers - targets  # (N,)
    return error.square().mean().item(), (error.abs() < TOLERANCE).double().mean().item()


@dataclass(frozen=True)
class AddingRun:
    """What :func:`train_adding` returns: the learning curve and the final scores.

    Attributes
    ----------
    steps : list of int
        The training steps at which the model was evaluated (0 is before training).
    mse : list of float
        The held-out MSE at each of those steps.
    right : list of float
        The fraction of held-out answers within :data:`TOLERANCE` at each of those steps.
    probe : list of float
        What the ``probe`` given to :func:`train_adding` returned at each of those steps
        (empty without one).
    """

    steps: list[int] = field(default_factory=list)
    mse: list[float] = field(default_factory=list)
    right: list[float] = field(default_factory=list)
    probe: list[float] = field(default_factory=list)

    @property
    def solved(self) -> bool:
        """Whether the final fraction right is at least :data:`SOLVED_FRACTION`."""
        return self.right[-1] >= SOLVED_FRACTION

    @property
    def failed(self) -> bool:
        """Whether the final MSE is at least :data:`FAILED_MSE`."""
        return self.mse[-1] >= FAILED_MSE


def train_adding(
    model: nn.Module,
    steps: int,
    *,
    seed: int = 0,
    batch_size: int = 64,
    lr: float = 1e-2,
    length: int = 50,
    first_window: int = 10,
    eval_every: int = 100,
    held_out: tuple[torch.Tensor, torch.Tensor] | None = None,
    probe: Callable[[nn.Module], float] | None = None,
) -> AddingRun:
    r"""Train ``model`` on fresh adding-problem batches with Adam and the MSE loss.

    Every ``eval_every`` steps (and before the first) the model is scored by :func:`evaluate`
    on one held-out set, by default the same for every model and seed.

    Parameters
    ----------
    model : nn.Module
        Maps (N, L, 2) to (N,), as :class:`AddingModel`; trained in place.
    steps : int
        The number of Adam steps, the budget.
    seed : int, default 0
        Seeds the training batches (the model's initialization is the caller's).
    batch_size, length, first_window : int
        As :func:`adding_batch`.
    lr : float, default 1e-2
        Adam's learning rate (other settings PyTorch's defaults).
    eval_every : int, default 100
        How often the held-out set is scored.
    held_out : tuple (inputs, targets), optional
        Shapes (N, L, 2) and (N,); default 1000 sequences from :func:`adding_batch` with a
        generator seeded 10000 and the given ``length`` and ``first_window``.
    probe : callable, optional
        Called with the model at every evaluation; its float is recorded in
        the ``probe`` list of :class:`AddingRun` (the book records a Jacobian norm there). It must not
        change the model.

    Returns
    -------
    AddingRun

    Raises
    ------
    TypeError
        If ``model`` is not an ``nn.Module``, a count not an int, ``lr`` not a number,
        ``held_out`` not a pair of floating tensors or ``probe`` not callable.
    ValueError
        If a count is below 1 (``seed`` below 0), ``length < 2 * first_window + 2``, ``lr`` is
        not positive, or ``held_out`` is not (N, L, 2) and (N,).

    Notes
    -----
    Deterministic for fixed seeds, thread count and torch build (the caller fixes the thread
    count, e.g. ``torch.set_num_threads(1)``). Adam: Kingma and Ba (2015).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.adding import AddingModel, adding_batch, train_adding
    >>> _ = torch.manual_seed(0)
    >>> held_out = adding_batch(8, 10, 2, generator=torch.Generator().manual_seed(1))
    >>> run = train_adding(AddingModel("GRU", 4), 4, length=10, first_window=2, eval_every=2, held_out=held_out)
    >>> run.steps, len(run.mse)
    ([0, 2, 4], 3)
    """
    check_instance("model", model, nn.Module, "an nn.Module")
    steps, seed = check_int("steps", steps, minimum=1), check_int("seed", seed, minimum=0)
    batch_size, eval_every = check_int("batch_size", batch_size, 1), check_int("eval_every", eval_every, 1)
    lr = check_float("lr", lr, positive=True)
    length, first_window = _check_lengths(length, first_window)
    if probe is not None:
        check_callable("probe", probe)
    if held_out is None:
        held_out = adding_batch(1000, length, first_window, generator=torch.Generator().manual_seed(10_000))
    else:
        held_out = _check_held_out(held_out)
    batches = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    run = AddingRun()

    def record(step: int) -> None:
        mse, right = evaluate(model, *held_out)
        run.steps.append(step)
        run.mse.append(mse)
        run.right.append(right)
        if probe is not None:
            run.probe.append(float(probe(model)))

    record(0)
    for step in range(1, steps + 1):
        inputs, targets = adding_batch(batch_size, length, first_window, generator=batches)
        loss = (model(inputs) - targets).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % eval_every == 0 or step == steps:
            record(step)
    return run


def _check_held_out(held_out: object) -> tuple[torch.Tensor, torch.Tensor]:
    """``held_out`` if it is a pair of tensors (N, L, 2), (N,)."""
    pair = check_sequence("held_out", held_out, "a pair (inputs, targets)")
    if len(pair) != 2:
        raise ValueError(f"held_out must be a pair (inputs, targets), got {len(pair)} items")
    inputs = check_tensor("held_out[0]", pair[0], (None, None, 2), "(N, L, 2)")
    targets = check_tensor("held_out[1]", pair[1], (inputs.shape[0],), "(N,)")
    return inputs, targets


def plot_learning_curves(
    runs: dict[str, AddingRun],
    colors: dict[str, str] | None = None,
    probe_label: str | None = None,
    probe_threshold: float | None = None,
) -> matplotlib.figure.Figure:
    """Held-out MSE against the training step, log scale, with the mean baseline 1/6 dashed.

    Parameters
    ----------
    runs : dict of str to AddingRun
        A label and its run.
    colors : dict of str to str, optional
        A matplotlib colour per label; the same colour marks the run in both panels. By
        default the book's colour of each network (:func:`rnndoc.colors.network_colors`).
    probe_label : str, optional
        With it, a second panel plots the ``probe`` list of each :class:`AddingRun` (log scale),
        with this y label.
    probe_threshold : float, optional
        Drawn as a dotted line across the second panel, labelled.

    Returns
    -------
    matplotlib.figure.Figure
        One legend, below the panels, so that it covers no curve.

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
    fig = matplotlib.figure.Figure(figsize=(4.2 * panels + 0.6, 3.8), layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    shades: dict[str, str | None] = dict(colors) if colors else network_colors(list(runs))
    # Curves that coincide (two failed runs at the baseline) stay visible: one marker per run,
    # and the runs listed first drawn on top.
    for index, (label, run) in enumerate(runs.items()):
        style = {"lw": 1.6, "color": shades.get(label), "marker": "osD^v<>"[index % 7], "ms": 3.5,
                 "markevery": max(1, len(run.steps) // 12), "zorder": 3 + len(runs) - index}  # fmt: skip
        axes[0].semilogy(run.steps, run.mse, label=label, **style)
        if probe_label is not None:
            axes[1].semilogy(run.steps, run.probe, **style)
    axes[0].axhline(MEAN_BASELINE_MSE, color="0.3", ls="--", lw=1, label="always answering 1 (MSE 1/6)")
    axes[0].set_ylabel("held-out MSE")
    if probe_label is not None:
        axes[1].set_ylabel(probe_label)
        if probe_threshold is not None:
            axes[1].axhline(probe_threshold, color="0.3", ls=":", lw=1.2,
                            label=f"threshold {probe_threshold:g} (right panel)")  # fmt: skip
    for ax in axes:
        ax.set_xlabel("training step (Adam)")
        ax.grid(True, which="major", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=min(3, len(runs) + 1), fontsize=8, frameon=False)
    return fig
