"""The figures: drawn from the data they are given."""

import pytest

from rnndoc.plots import draw_unrolled, plot_finite_difference_error


def test_unrolled_has_a_column_per_step():
    fig = draw_unrolled("ABCD", [[0.1, 0.2]] * 4, h_0=[0.5, -0.25])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("$x_") for t in texts) == 4
    assert texts.count("0.1000\n0.2000") == 4  # one value per line
    assert "0.5000\n-0.2500" in texts


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


def test_layer_diagrams_draw_the_facts_they_are_given():
    from rnndoc.plots import draw_bidirectional, draw_h_n_rows, draw_packed  # noqa: PLC0415

    ax = draw_bidirectional(3, forward_final=2, reverse_final=0).axes[0]
    texts = {t.get_text(): t.get_position() for t in ax.texts}
    assert texts["h_n[1]"][0] < texts["[1]"][0] < texts["h_n[0]"][0]  # h_n[1] over position 0
    rows = [(0, "forward"), (0, "reverse"), (1, "forward"), (1, "reverse")]
    texts = [t.get_text() for t in draw_h_n_rows(rows, ["n0", "n1", "n2", "n3"]).axes[0].texts]
    assert [t for t in texts if t.startswith("layer")] == [f"layer {layer}, {d}" for layer, d in rows]
    assert {"n0", "n3"} <= set(texts)
    data = [(0, 1), (1, 1), (0, 2), (0, 3)]
    texts = [t.get_text() for t in draw_packed([3, 1], data, [2, 1, 1]).axes[0].texts]
    assert texts[-7:] == ["a1", "b1", "2", "a2", "1", "a3", "1"]  # data in order, each group's size
    assert texts.count("pad") == 2


def test_figures_are_legible_on_a_phone():
    """Shown 328 px wide (a 390 px screen), no text of a diagram or plot is below 9 px."""
    import io  # noqa: PLC0415

    import matplotlib.text  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415

    from rnndoc import plots  # noqa: PLC0415

    figures = [
        plots.draw_lstm_cell(),
        plots.draw_gru_cell(),
        plots.draw_lstm_gates(),
        plots.draw_gru_gates(),
        plots.draw_lstm_deltas(),
        plots.draw_bidirectional(4, 3, 0),
        plots.draw_h_n_rows([(0, "forward"), (0, "reverse")], ["a", "b"]),
        plots.draw_packed(
            [4, 3, 1], [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4)], [3, 2, 2, 1]
        ),
        plots.draw_unrolled("ABC", [[0.1, 0.2]] * 3, h_0=[0.5, -0.25]),
        plots.plot_finite_difference_error([1e-8, 1e-6, 1e-3], [1e-7, 1e-10, 1e-7], chosen=1e-6),
        plots.plot_truncation([1, 2, 3, 4], [0.4, 0.0, 0.02, 0.0]),
        plots.plot_gradient_norms(
            {"tanh RNN, γ = 0.8": [1.0, 0.8, 0.6], "LSTM": [1.0, 0.9, 0.8]}, {"tanh RNN, γ = 0.8": 0.8}
        ),
        plots.plot_step_gradients(
            {"forward": [[1.0, 0.0], [2.0, 3.0]], "reverse": [[0.5, 0.0], [1.0, 1.0]]}, ["a", "b"]
        ),
        plots.plot_derivation_costs(
            {
                (2, "direct"): [
                    {"length": 1, "size": 50, "size_cse": 5},
                    {"length": 2, "size": 90, "size_cse": 9},
                ]
            }
        ),
    ]
    for fig in figures:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight")  # as the notebooks save it
        width = Image.open(buffer).size[0]
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
        smallest = min(t.get_fontsize() for t in texts) * fig.dpi / 72 * min(1.0, 328 / width)
        assert smallest >= 9, (fig.axes[0].texts[0].get_text(), smallest)
