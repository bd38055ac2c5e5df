"""Training on the adding problem: the model, the book's four runs, the training loop.

:class:`~rnndoc.adding.AddingModel` reads the last hidden state of one recurrent layer;
:data:`BOOK_RUNS` are the chapter's four networks; :func:`~rnndoc.adding.train_adding`
trains one with Adam and records its learning curve in an :class:`~rnndoc.adding.AddingRun`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from .._validate import (
    check_callable,
    check_choice,
    check_float,
    check_instance,
    check_int,
    check_sequence,
    check_tensor,
)
from ..state_jacobian import raise_forget_bias
from .task import FAILED_MSE, SOLVED_FRACTION, _check_lengths, adding_batch, evaluate

__all__ = ["BOOK_RUNS", "AddingModel", "AddingRun", "train_adding"]

#: The book's four runs: label -> (mode, forget-gate bias raised by, Adam steps, outcome).
#: The chapter trains them on seed 0; ``nox -s adding`` checks each outcome on several seeds.
BOOK_RUNS = {
    "tanh RNN": ("RNN_TANH", 0.0, 1000, "failed"),
    "LSTM": ("LSTM", 0.0, 3000, "failed"),
    "LSTM, forget bias +3": ("LSTM", 3.0, 3000, "solved"),
    "GRU": ("GRU", 0.0, 1000, "solved"),
}

_MODES: dict[str, type[nn.RNN | nn.LSTM | nn.GRU]] = {"RNN_TANH": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


class AddingModel(nn.Module):
    r"""One recurrent layer and a linear read-out of its last hidden state: :eq:`eq-adding`.

    .. math:: \hat y = W_{hy} h_T + b_y, \qquad h_T \in \mathbb{R}^{H},\ W_{hy} \in \mathbb{R}^{1 \times H}

    trained towards the target :math:`y = \sum_{t=1}^{T} u_t \mu_t` that
    :func:`~rnndoc.adding.adding_batch` draws.

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
        (H -> 1): ``readout.weight`` is :math:`W_{hy}` (1, H), ``readout.bias`` is :math:`b_y` (1,).

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
        return self.readout(output[:, -1]).squeeze(-1)  # (N,): y_hat = W_hy h_T + b_y


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
        The fraction of held-out answers within :data:`~rnndoc.adding.task.TOLERANCE` at each of those steps.
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
        """Whether the final fraction right is at least :data:`~rnndoc.adding.task.SOLVED_FRACTION`."""
        return self.right[-1] >= SOLVED_FRACTION

    @property
    def failed(self) -> bool:
        """Whether the final MSE is at least :data:`~rnndoc.adding.task.FAILED_MSE`."""
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
        inputs, targets = adding_batch(batch_size, length, first_window, generator=batches)  # (N, L, 2), (N,)
        loss = (model(inputs) - targets).square().mean()  # (): the MSE
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
