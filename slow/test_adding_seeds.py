"""The adding chapter's four outcomes, on several seeds: ``nox -s adding`` (minutes; not part of
``nox -s tests``).

The chapter trains each network once, on seed 0. Here every network of
:data:`rnndoc.adding.training.BOOK_RUNS` is drawn and trained on each seed in ``RNNDOC_ADDING_SEEDS``
(default ``0 1 2 3 4``) with the chapter's settings, and its outcome is checked against the
same thresholds: solved, at least 90 % of the held-out answers within 0.04; failed, a
held-out MSE of at least 0.15 (90 % of the mean baseline's) and under 20 % right.
"""

import os

import pytest
import torch

from rnndoc.adding import BOOK_RUNS, AddingModel, train_adding

SEEDS = [int(s) for s in os.environ.get("RNNDOC_ADDING_SEEDS", "0 1 2 3 4").split()]


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread, as the chapter trains (restored afterwards)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("label", list(BOOK_RUNS))
@pytest.mark.parametrize("seed", SEEDS)
def test_the_outcome_holds_for_the_seed(seed, label):
    mode, forget_bias, steps, outcome = BOOK_RUNS[label]
    torch.manual_seed(seed)
    model = AddingModel(mode, hidden_size=32, forget_bias=forget_bias)
    run = train_adding(model, steps, seed=seed)
    summary = f"{label}, seed {seed}: MSE {run.mse[-1]:.4f}, {100 * run.right[-1]:.1f} % right"
    print(summary)  # shown with -s, and in the report of a failure
    if outcome == "solved":
        assert run.solved, summary
    else:
        assert run.failed, summary
        assert run.right[-1] < 0.2, summary
