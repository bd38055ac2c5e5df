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
    """Shown as the book shows them on a 390 px screen, no glyph of a figure is below 9 px,
    and none of the LSTM and GRU cell diagrams' (Chapters 5 and 7) below 10 px.

    The width is the book's (:data:`rnndoc.plots.PHONE_FIGURE_PX`, measured in Chromium), and
    a subscript or superscript counts at its own size (70 % of its label's): a 10-point
    ``$c_{t-1}$`` in a figure 4.7 inches wide, or a log axis's ``$10^{-3}$`` on a 9-inch
    figure of two panels side by side, fail here. The figures the chapters draw themselves
    assert the same in their cells.
    """
    from rnndoc import plots  # noqa: PLC0415
    from rnndoc.adding import AddingRun, plot_learning_curves  # noqa: PLC0415

    runs = {
        "tanh RNN": AddingRun([0, 100, 200], [0.17, 0.16, 0.17], [0.1, 0.1, 0.1], [1e-9, 1e-8, 1e-8]),
        "LSTM, forget bias +3": AddingRun(
            [0, 100, 200], [0.17, 0.01, 1e-4], [0.1, 0.5, 0.99], [2.0, 3.0, 5.0]
        ),
    }
    figures = {
        "lstm cell": plots.draw_lstm_cell(),
        "gru cell": plots.draw_gru_cell(),
        "lstm gates": plots.draw_lstm_gates(),
        "gru gates": plots.draw_gru_gates(),
        "lstm deltas": plots.draw_lstm_deltas(),
        "gru deltas": plots.draw_gru_deltas(),
        "rnn deltas": plots.draw_rnn_deltas(),
        "many-to-one paths": plots.draw_many_to_one([0.5, 0.25, 0.125]),
        "bidirectional": plots.draw_bidirectional(4, 3, 0),
        "h_n rows": plots.draw_h_n_rows(
            [(0, "forward"), (0, "reverse"), (1, "forward"), (1, "reverse")],
            ["not in the output", "not in the output", "output[4], forward half", "output[0], reverse half"],
        ),
        "packed": plots.draw_packed(
            [4, 3, 1], [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4)], [3, 2, 2, 1]
        ),
        "unrolled": plots.draw_unrolled("ABC", [[0.1, 0.2]] * 3, h_0=[0.5, -0.25]),
        "finite differences": plots.plot_finite_difference_error(
            [1e-8, 1e-6, 1e-3], [1e-7, 1e-10, 1e-7], chosen=1e-6
        ),
        "truncation": plots.plot_truncation([1, 2, 3, 4], [0.4, 0.0, 0.02, 0.0]),
        "gradient norms": plots.plot_gradient_norms(
            {
                "tanh RNN, γ = 1.2": [1.0, 1.1, 1.3],
                "tanh RNN, γ = 0.8": [1.0, 0.8, 0.6],
                "LSTM": [1.0, 1e-2, 1e-4],
                "GRU": [1.0, 1e-3, 1e-6],
            },
            {"tanh RNN, γ = 1.2": 1.2, "tanh RNN, γ = 0.8": 0.8},
        ),
        "step gradients": plots.plot_step_gradients(
            {"forward": [[1.0, 0.0], [2.0, 3.0]], "reverse": [[0.5, 0.0], [1.0, 1.0]]},
            [r"$T_\beta$ = 2", r"$T_\beta$ = 5"],
        ),
        "derivation costs": plots.plot_derivation_costs(
            {
                (2, "direct"): [
                    {"length": 1, "size": 50, "size_cse": 5},
                    {"length": 2, "size": 900, "size_cse": 9},
                ]
            }
        ),
        "adding curves": plot_learning_curves(
            runs, probe_label=r"$\|\partial s_T / \partial s_{T-40}\|_2$", probe_threshold=0.5
        ),
    }
    # the cell diagrams: 11 px (their scripts), the gate diagrams 10, every other figure 9
    floor = {"lstm cell": 11, "gru cell": 11, "lstm gates": 10, "gru gates": 10}
    small = {}
    for name, fig in figures.items():
        px, text = plots.smallest_text_px(fig)
        if px < floor.get(name, 9):
            small[name] = (round(px, 2), text)
    assert small == {}


def test_smallest_text_counts_scripts_and_the_shown_width():
    """The cases a reader measured on a phone (Figs. 5.2 and 16.1 before): each is caught."""
    import matplotlib.figure  # noqa: PLC0415

    from rnndoc.plots import PHONE_FIGURE_PX, smallest_text_px  # noqa: PLC0415

    # a 10-point label with a subscript on a 4.7-inch diagram: its script is 7 px on a phone
    fig = matplotlib.figure.Figure(figsize=(4.7, 2.0))
    fig.text(0.5, 0.5, r"$c_{t-1}$", fontsize=10)
    fig.text(0.0, 0.0, ".")
    fig.text(0.99, 0.99, ".")
    px, text = smallest_text_px(fig)
    assert text == r"$c_{t-1}$"
    assert px < 9
    unscaled = smallest_text_px(fig, shown_px=1e6)[0]  # shown at its own width: 0.7 x 10 points
    assert unscaled == pytest.approx(7 * fig.dpi / 72)
    assert px < unscaled * PHONE_FIGURE_PX / 460
    # a log axis on a 9-inch figure of two panels: its exponents are about 4 px on a phone
    wide = matplotlib.figure.Figure(figsize=(9.0, 3.8), layout="constrained")
    for ax in wide.subplots(1, 2):
        ax.semilogy([1, 2], [1e-3, 1])
    px, text = smallest_text_px(wide)
    assert px < 5
    assert "10^{" in text
    with pytest.raises(ValueError, match="no visible text"):
        smallest_text_px(matplotlib.figure.Figure())
