r"""The adding problem: a task whose answer depends on an input from early in the sequence.

Each sequence has L steps of two features: a value drawn uniformly from [0, 1) and a marker,
1 at exactly two steps and 0 elsewhere. The target is the sum of the two marked values.
The first marker sits among the first ``first_window`` steps and the second later in the first
half (this book's rule, neither Hochreiter and Schmidhuber's nor Le et al.'s), so both values must be carried
more than L/2 steps, the first one ``L - first_window`` to ``L - 1`` steps (from its step to
step L), to the answer, which is read off the last
hidden state. Answering the mean, 1, scores the variance of the sum of two uniform values,
:math:`2 / 12 = 1/6` (:data:`~rnndoc.adding.task.MEAN_BASELINE_MSE`); an answer counts as
right within :data:`~rnndoc.adding.task.TOLERANCE` of the target.

The task is a variant of Hochreiter and Schmidhuber (1997), section 5.4 (experiment 4: the adding
problem); the values from [0, 1), the sum as the target and the MSE baseline are those of Le,
Jaitly and Hinton (2015), "A Simple Way to Initialize Recurrent Networks of Rectified Linear
Units".

The modules: :mod:`~rnndoc.adding.task` (the batches, and how an answer and a run are
scored), :mod:`~rnndoc.adding.training` (the model, the book's runs and the training loop),
:mod:`~rnndoc.adding.plotting` (the learning curves).
"""

from .plotting import plot_learning_curves
from .task import FAILED_MSE, MEAN_BASELINE_MSE, SOLVED_FRACTION, TOLERANCE, adding_batch, evaluate
from .training import BOOK_RUNS, AddingModel, AddingRun, train_adding

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
