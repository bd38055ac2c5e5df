"""The adding problem: data, model, training loop and scores (tiny configurations; the outcomes
across seeds are checked by ``nox -s adding``)."""

import matplotlib.colors
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from rnndoc.adding import (
    FAILED_MSE,
    MEAN_BASELINE_MSE,
    SOLVED_FRACTION,
    TOLERANCE,
    AddingModel,
    AddingRun,
    adding_batch,
    evaluate,
    plot_learning_curves,
    train_adding,
)


@given(st.integers(1, 5), st.integers(1, 6), st.integers(0, 8), st.integers(0, 2**16))
def test_batches_have_two_markers_where_they_belong(batch_size, first_window, extra, seed):
    length = 2 * first_window + 2 + extra
    inputs, targets = adding_batch(
        batch_size, length, first_window, generator=torch.Generator().manual_seed(seed)
    )
    assert inputs.shape == (batch_size, length, 2)
    markers = inputs[:, :, 1]
    assert torch.all(markers.sum(dim=1) == 2)
    assert torch.all(markers[:, :first_window].sum(dim=1) == 1)  # the first among the first window
    assert torch.all(markers[:, first_window : length // 2].sum(dim=1) == 1)  # the second in the first half
    values = inputs[:, :, 0]
    assert torch.all((values >= 0) & (values < 1))
    assert torch.equal(targets, (values * markers).sum(dim=1))


def test_batches_come_from_the_generator_only():
    first = adding_batch(4, generator=torch.Generator().manual_seed(7))
    torch.manual_seed(123)  # the global generator plays no part
    second = adding_batch(4, generator=torch.Generator().manual_seed(7))
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))


def test_the_mean_baseline_is_one_sixth():
    _, targets = adding_batch(200_000, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert abs(targets.mean().item() - 1.0) < 0.005
    # Var(u_1 + u_2) = 2/12; the estimate's standard error is about 0.2 / sqrt(N) = 4.4e-4
    assert abs((targets - 1.0).square().mean().item() - MEAN_BASELINE_MSE) < 2e-3


@pytest.mark.parametrize("mode", ["RNN_TANH", "LSTM", "GRU"])
def test_the_model_answers_one_number_per_sequence(mode):
    model = AddingModel(mode, hidden_size=3)
    assert model(torch.zeros(4, 9, 2)).shape == (4,)
    assert model.rnn.batch_first
    assert model.rnn.hidden_size == 3


def test_the_forget_bias_goes_into_the_lstm():
    torch.manual_seed(0)
    plain = AddingModel("LSTM", hidden_size=2)
    torch.manual_seed(0)
    raised = AddingModel("LSTM", hidden_size=2, forget_bias=3.0)
    change = raised.rnn.bias_ih_l0 - plain.rnn.bias_ih_l0
    assert torch.allclose(change, torch.tensor([0, 0, 3, 3, 0, 0, 0, 0.0]))


def test_evaluate_scores_mse_and_fraction_right():
    inputs = torch.tensor([0.0, 0.5, 1.0, 1.5]).reshape(4, 1, 1)
    targets = torch.tensor([0.0, 0.5 + TOLERANCE / 2, 1.0 + 2 * TOLERANCE, 1.5])
    mse, right = evaluate(lambda x: x[:, 0, 0], inputs, targets)
    assert mse == pytest.approx((TOLERANCE**2 / 4 + 4 * TOLERANCE**2) / 4, rel=1e-5)
    assert right == 0.75
    with pytest.raises(ValueError, match=r"model answers must have shape \(4,\), got \(4, 1\)"):
        evaluate(lambda x: x[:, 0], inputs, targets)


@pytest.fixture
def one_thread():
    """One torch thread, as the book trains (restored afterwards)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("one_thread")
def test_training_is_deterministic_and_learns_the_mean():
    def run():
        torch.manual_seed(0)
        held_out = adding_batch(64, 12, 3, generator=torch.Generator().manual_seed(1))
        return train_adding(
            AddingModel("GRU", 4), 60, length=12, first_window=3, eval_every=20, held_out=held_out
        )

    first, second = run(), run()
    assert first == second  # the same curve, to the last bit
    assert first.steps == [0, 20, 40, 60]
    assert first.mse[-1] < first.mse[0]  # from a random offset towards answering the mean
    assert abs(first.mse[-1] - MEAN_BASELINE_MSE) < 0.1


def test_a_run_is_solved_or_failed_by_the_stated_thresholds():
    assert AddingRun([0], [0.01], [SOLVED_FRACTION]).solved
    assert not AddingRun([0], [0.01], [SOLVED_FRACTION - 0.01]).solved
    assert AddingRun([0], [FAILED_MSE], [0.0]).failed
    assert not AddingRun([0], [0.9 * FAILED_MSE], [0.0]).failed
    assert pytest.approx(0.15) == FAILED_MSE


def test_learning_curves_show_the_baseline_and_keep_the_legend_off_the_data():
    runs = {
        "a": AddingRun([0, 10, 20], [0.2, 0.1, 0.01], [0.0, 0.5, 0.95]),
        "b": AddingRun([0, 10], [0.3, 0.2], [0, 0]),
    }
    runs["a"].probe[:] = [1e-8, 1e-3, 1.0]
    runs["b"].probe[:] = [1e-8, 1e-9]
    fig = plot_learning_curves(runs, colors={"a": "#123456", "b": "#abcdef"}, probe_label="norm")
    ax, probe_ax = fig.axes
    curve_a, _, baseline = ax.lines
    assert list(curve_a.get_xdata()) == [0, 10, 20]
    assert list(probe_ax.lines[0].get_ydata()) == [1e-8, 1e-3, 1.0]
    for curves in (ax.lines, probe_ax.lines):  # one colour per run, in both panels
        assert matplotlib.colors.to_hex(curves[0].get_color()) == "#123456"
        assert matplotlib.colors.to_hex(curves[1].get_color()) == "#abcdef"
    assert list(baseline.get_ydata()) == [MEAN_BASELINE_MSE] * 2
    fig.canvas.draw()
    legend = fig.legends[0].get_window_extent()
    for panel in (ax, probe_ax):  # below both panels: it covers no data
        assert legend.y1 <= panel.get_window_extent().y0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: adding_batch(0, generator=torch.Generator()),
            ValueError,
            "batch_size must be at least 1, got 0",
        ),
        (
            lambda: adding_batch(2, 10, 5, generator=torch.Generator()),
            ValueError,
            r"length must be at least 2 \* first_window \+ 2 = 12, got 10",
        ),
        (lambda: adding_batch(2, generator=0), TypeError, "generator must be a torch.Generator"),
        (lambda: AddingModel("LSTMP"), ValueError, "mode must be one of"),
        (lambda: AddingModel("GRU", forget_bias=1.0), ValueError, "forget_bias applies to an LSTM only"),
        (lambda: AddingModel("GRU", hidden_size=0), ValueError, "hidden_size must be at least 1, got 0"),
        (lambda: train_adding(AddingModel("GRU", 2), 0), ValueError, "steps must be at least 1, got 0"),
        (lambda: train_adding(AddingModel("GRU", 2), 1, lr=-1.0), ValueError, "lr must be positive"),
    ],
)
def test_bad_arguments_get_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
