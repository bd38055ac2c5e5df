"""The figures: drawn from the data they are given."""

import pytest

from rnndoc.plots import draw_unrolled, plot_finite_difference_error


def test_unrolled_has_a_column_per_step():
    fig = draw_unrolled("ABCD", [[0.1, 0.2]] * 4, h_0=[0.5, -0.25])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("$x_") for t in texts) == 4
    assert texts.count("(0.1000, 0.2000)") == 4
    assert "(0.5000, -0.2500)" in texts


def test_unrolled_rejects_mismatched_hidden():
    with pytest.raises(ValueError, match="hidden must have shape"):
        draw_unrolled("AB", [[0.0]])


def test_error_plot_is_log_log_with_the_data():
    fig = plot_finite_difference_error([1e-6, 1e-3], [1e-10, 1e-7], chosen=1e-6)
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert list(ax.lines[0].get_xdata()) == [1e-6, 1e-3]
    with pytest.raises(ValueError, match="error must have length 2"):
        plot_finite_difference_error([1e-6, 1e-3], [1e-10])


def test_cell_diagrams_name_every_gate():
    from rnndoc.plots import draw_gru_cell, draw_lstm_cell  # noqa: PLC0415

    lstm = [t.get_text() for t in draw_lstm_cell().axes[0].texts]
    for gate in ("f", "i", "o"):
        assert rf"$\sigma$ ({gate})" in lstm
    assert "tanh (g)" in lstm
    assert {"$c_{t-1}$", "$c_t$", "$h_t$"} <= set(lstm)
    gru = [t.get_text() for t in draw_gru_cell().axes[0].texts]
    assert {r"$\sigma$ (r)", r"$\sigma$ (z)", "tanh (n)", "$h_{t-1}$", "$h_t$"} <= set(gru)


def test_truncation_plot_marks_exact_zeros_on_the_floor():
    from rnndoc.plots import plot_truncation  # noqa: PLC0415

    ax = plot_truncation([1, 2, 3, 4], [0.4, 0.0, 0.02, 0.0]).axes[0]
    line, zeros = ax.lines
    assert list(line.get_xdata()) == [1, 3]
    assert list(line.get_ydata()) == [0.4, 0.02]
    assert list(zeros.get_xdata()) == [2, 4]
    assert list(zeros.get_ydata()) == [0.002, 0.002]
    assert ax.get_ylim()[0] == 0.002
    assert zeros.get_label() == "exactly 0"
    with pytest.raises(ValueError, match="errors must be at least 0"):
        plot_truncation([1], [-0.1])
    with pytest.raises(ValueError, match="errors must have length 2"):
        plot_truncation([1, 2], [0.1])


def test_step_gradient_plot_has_a_panel_per_direction_and_a_line_per_sequence():
    from rnndoc.plots import plot_step_gradients  # noqa: PLC0415

    fig = plot_step_gradients({"forward": [[1.0, 0.0], [2.0, 3.0]], "reverse": [[0.5, 0.0], [1.0, 1.0]]},
                              ["a", "b"])  # fmt: skip
    assert [ax.get_title() for ax in fig.axes] == ["forward", "reverse"]
    first, second = fig.axes[1].lines
    assert list(first.get_xdata()) == [1, 2]
    assert list(first.get_ydata()) == [0.5, 0.0]
    assert list(second.get_ydata()) == [1.0, 1.0]
    with pytest.raises(ValueError, match=r"panels\['forward'\] must have one row per entry of labels"):
        plot_step_gradients({"forward": [[1.0]]}, ["a", "b"])
