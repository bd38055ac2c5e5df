"""Diagrams of what PyTorch's recurrent layers return (matplotlib): the two directions of a
bidirectional layer, the rows of ``h_n``, and a ``PackedSequence``; :mod:`rnndoc.plots`
re-exports them. And the four blocks of an LSTM step's state Jacobian
(:func:`draw_lstm_state_jacobian`).

Each function draws the facts it is given (positions, rows, the packed order): a chapter
measures them on a real module or ``PackedSequence``, asserts them, and passes them in, so
that a figure cannot show a layout that PyTorch does not produce. Sized for a phone, like the
gate diagrams of :mod:`rnndoc.cell_diagrams`, and larger: a reader found labels at the book's
9 px minimum too small in these diagrams on a phone, so their labels are set well above it
(each chapter's figure cell asserts its smallest glyph at :data:`rnndoc.plots.PHONE_FIGURE_PX`,
subscripts included).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import matplotlib.figure
from matplotlib.patches import FancyBboxPatch, Rectangle

from ._validate import check_choice, check_int, check_sequence, check_str
from .cell_diagrams import _phone_figure, _wire
from .colors import DIRECTION_COLORS, NETWORK_COLORS, STEP_FILL, _light

__all__ = ["draw_bidirectional", "draw_h_n_rows", "draw_lstm_state_jacobian", "draw_packed"]

_EDGE = "0.25"
# Font sizes in points. The figures are about 4.2 inches wide, shown 342 px wide on a phone, so a
# point is about 1.13 px there: labels of 12 points are about 13.5 px, and a 14.5-point math label's
# subscript (70 % of it) about 11.5 px.
_LABEL, _MATH, _NOTE = 12, 14.5, 11.5
_DIRECTIONS = ("forward", "reverse")


def _state(ax, xy, text, color, width=1.3, height=0.9, fontsize=13, **font):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch((x - width / 2, y - height / 2), width, height, boxstyle="round,pad=0.03",
                       facecolor=_light(color), edgecolor=color, lw=1.6, zorder=2)
    )  # fmt: skip
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, zorder=3, **font)


def draw_bidirectional(length: int, forward_final: int, reverse_final: int) -> matplotlib.figure.Figure:
    r"""Draw a bidirectional layer over ``length`` steps, and where its two final states sit.

    The forward direction (bottom row of states) reads the inputs left to right, the reverse
    direction (the row above it) reads them right to left; ``output[k]`` (top) is the two
    states at position k side by side. Every label counts positions from 0, as PyTorch indexes
    its tensors: the inputs are labelled ``x[0]``, ``x[1]``, ... (the equations'
    :math:`x_1, x_2, \dots`) and the states by their direction's arrow alone, their column
    giving their position. ``h_n[0]``, the forward direction's final state,
    is drawn over position ``forward_final``, and ``h_n[1]``, the reverse direction's, over
    position ``reverse_final``: pass the positions measured on a module (for ``nn.RNN``,
    ``length - 1`` and 0). Colours: :data:`rnndoc.colors.DIRECTION_COLORS`.

    Parameters
    ----------
    length : int, 2 to 5
        The number of steps T.
    forward_final, reverse_final : int, 0 to ``length - 1``
        The output positions whose forward half is ``h_n[0]`` and whose reverse half is ``h_n[1]``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If an argument is not an int.
    ValueError
        If ``length`` is outside 2 to 5 or a position outside 0 to ``length - 1``.

    Examples
    --------
    >>> from rnndoc.layer_diagrams import draw_bidirectional
    >>> ax = draw_bidirectional(4, forward_final=3, reverse_final=0).axes[0]
    >>> [round(t.get_position()[0], 2) for t in ax.texts if t.get_text() == "h_n[1]"]
    [2.76]
    >>> [t.get_text() for t in ax.texts if t.get_text().startswith("x[")]
    ['x[0]', 'x[1]', 'x[2]', 'x[3]']
    >>> min(t.get_fontsize() for t in ax.texts) >= 9
    True
    """
    length = check_int("length", length, minimum=2, maximum=5)
    forward_final = check_int("forward_final", forward_final, minimum=0, maximum=length - 1)
    reverse_final = check_int("reverse_final", reverse_final, minimum=0, maximum=length - 1)
    fig, ax = _phone_figure((-0.2, 9.0), (-0.2, 8.2))
    xs = [2.4 + 1.8 * k for k in range(length)]
    forward, reverse = DIRECTION_COLORS["forward"], DIRECTION_COLORS["reverse"]
    y_x, y_f, y_r, y_out, y_hn = 0.3, 2.0, 3.6, 5.4, 7.4
    ax.text(0.0, y_x, "input", ha="left", va="center", fontsize=_LABEL)
    ax.text(0.0, y_f, "forward", ha="left", va="center", fontsize=_LABEL, color=forward)
    ax.text(0.0, y_r, "reverse", ha="left", va="center", fontsize=_LABEL, color=reverse)
    ax.text(0.0, y_out, "output", ha="left", va="center", fontsize=_LABEL, family="monospace")
    for k, x in enumerate(xs):
        # PyTorch's labels: the input at position k is x[k] (the equations' x_(k+1)), as its
        # row of output is [k]; the states are named by their direction's arrow, no index
        ax.text(x, y_x, f"x[{k}]", ha="center", va="center", fontsize=_LABEL, family="monospace")
        _wire(ax, [(x, y_x + 0.3), (x, y_f - 0.42)])
        _state(ax, (x, y_f), r"$\overrightarrow{h}$", forward, fontsize=_MATH)
        _state(ax, (x, y_r), r"$\overleftarrow{h}$", reverse, fontsize=_MATH)
        # output[k]: the two halves side by side, forward first
        for half, color in ((-0.36, forward), (0.36, reverse)):
            ax.add_patch(Rectangle((x + half - 0.36, y_out - 0.32), 0.72, 0.64, facecolor=_light(color),
                                   edgecolor=color, lw=1.6))  # fmt: skip
        ax.text(x, y_out + 0.5, f"[{k}]", ha="center", va="bottom", fontsize=_LABEL)
        _wire(ax, [(x - 0.36, y_f + 0.42), (x - 0.36, y_out - 0.34)], color=forward)
        _wire(ax, [(x + 0.36, y_r + 0.42), (x + 0.36, y_out - 0.34)], color=reverse)
    for left, right in itertools.pairwise(xs):
        _wire(ax, [(left + 0.66, y_f), (right - 0.66, y_f)], color=forward, lw=2)  # reads left to right
        _wire(ax, [(right - 0.66, y_r), (left + 0.66, y_r)], color=reverse, lw=2)  # right to left
    # the final states: h_n[0] over the forward half, h_n[1] over the reverse half
    for name, position, color, half in (("h_n[0]", forward_final, forward, -0.36),
                                        ("h_n[1]", reverse_final, reverse, 0.36)):  # fmt: skip
        x = xs[position] + half
        _state(ax, (x, y_hn), name, color, width=1.66, fontsize=_LABEL, family="monospace")
        ax.plot([x, x], [y_out + 0.34, y_hn - 0.42], color=color, lw=1.6, ls="--")
    return fig


def draw_h_n_rows(rows: Sequence[tuple[int, str]], notes: Sequence[str]) -> matplotlib.figure.Figure:
    """Draw the rows of ``h_n``: which layer and direction each holds, and a note per row.

    Row k is drawn as one box, filled in its direction's colour
    (:data:`rnndoc.colors.DIRECTION_COLORS`) and labelled with its layer; a brace to the right
    groups each layer's rows. Pass the rows measured on a module (for a two-layer bidirectional
    layer, ``[(0, "forward"), (0, "reverse"), (1, "forward"), (1, "reverse")]``) and, per row,
    where else that state can be found (e.g. ``"output[0], reverse half"``).

    Parameters
    ----------
    rows : sequence of (int, str), 1 to 8 rows
        For row k of ``h_n``: its layer (at least 0) and direction (``"forward"`` or ``"reverse"``).
    notes : sequence of str, one per row
        A short note drawn beside each row.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``rows`` is not a sequence of (int, str) pairs or ``notes`` not a sequence of str.
    ValueError
        If ``rows`` is empty or holds more than 8 rows, a row is not a pair, a direction is
        unknown, a layer is negative, or ``notes`` does not have one entry per row.

    Examples
    --------
    >>> from rnndoc.layer_diagrams import draw_h_n_rows
    >>> fig = draw_h_n_rows([(0, "forward"), (0, "reverse")], ["not in the output", "not in the output"])
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("h_n")]
    ['h_n[0]', 'h_n[1]']
    """
    rows = check_sequence("rows", rows, "a sequence of (layer, direction) pairs")
    if len(rows) > 8:
        raise ValueError(f"rows must hold at most 8 rows, got {len(rows)}")
    checked = []
    for k, row in enumerate(rows):
        pair = check_sequence(f"rows[{k}]", row, "a (layer, direction) pair")
        if len(pair) != 2:
            raise ValueError(f"rows[{k}] must be a (layer, direction) pair, got {len(pair)} entries")
        checked.append((check_int(f"rows[{k}][0]", pair[0], minimum=0),
                        check_choice(f"rows[{k}][1]", pair[1], _DIRECTIONS)))  # fmt: skip
    notes = check_sequence("notes", notes, "a sequence of str")
    if len(notes) != len(checked):
        raise ValueError(f"notes must have one entry per row ({len(checked)}), got {len(notes)}")
    notes = [check_str(f"notes[{k}]", note) for k, note in enumerate(notes)]
    height = 1.0 * len(checked)
    fig, ax = _phone_figure((-0.2, 9.4), (-0.3, height + 0.3))
    for k, ((layer, direction), note) in enumerate(zip(checked, notes, strict=True)):
        y = height - 0.5 - k
        color = DIRECTION_COLORS[direction]
        ax.text(0.0, y, f"h_n[{k}]", ha="left", va="center", fontsize=_LABEL, family="monospace")
        _state(ax, (3.55, y), f"layer {layer}, {direction}", color, width=3.5, fontsize=_NOTE)
        # a long note on two lines, broken after its first comma, so that it fits a phone's width
        ax.text(5.55, y, note.replace(", ", ",\n", 1) if len(note) > 17 else note, ha="left",
                va="center", fontsize=_NOTE, linespacing=1.05)  # fmt: skip
    # a bar per layer, down the left of the boxes: the rows of one layer are adjacent
    for layer in sorted({layer for layer, _ in checked}):
        ks = [k for k, (row_layer, _) in enumerate(checked) if row_layer == layer]
        top, bottom = height - 0.12 - min(ks), height - 0.88 - max(ks)
        ax.plot([1.6, 1.6], [bottom, top], color=_EDGE, lw=2.5, solid_capstyle="butt")
    return fig


def draw_packed(
    lengths: Sequence[int], data: Sequence[tuple[int, int]], batch_sizes: Sequence[int]
) -> matplotlib.figure.Figure:
    """Draw a padded batch and the ``PackedSequence`` made from it: ``data`` and ``batch_sizes``.

    Top: the padded batch, one row per sequence (a, b, c, ...) and one column per step, the
    real steps filled (:data:`rnndoc.colors.STEP_FILL`), the padding left empty. Bottom: the
    entries of ``data`` in the order given, each labelled with its sequence and step, and
    grouped as ``batch_sizes`` groups them, each group marked with its size; a row of ``data``
    wider than the figure is squeezed to its width, in order and in its groups. Pass what a real
    ``PackedSequence`` holds: the (sequence, step) of each row of its ``data``, and its
    ``batch_sizes``.

    Parameters
    ----------
    lengths : sequence of int, 1 to 4 sequences, each 1 to 5
        The length of each sequence of the padded batch.
    data : sequence of (int, int)
        For each row of ``data``: its sequence (0-based index into ``lengths``) and its step (1-based).
    batch_sizes : sequence of int
        The sizes of the groups of ``data``, in order; they add up to ``len(data)``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If an argument is not a sequence of ints (pairs of ints for ``data``).
    ValueError
        If a length or size is out of range, ``data`` names a step that is not a real step or
        does not have one row per real step, or ``batch_sizes`` does not add up to ``len(data)``.

    Examples
    --------
    >>> from rnndoc.layer_diagrams import draw_packed
    >>> data = [(0, 1), (1, 1), (0, 2)]
    >>> ax = draw_packed([2, 1], data, [2, 1]).axes[0]
    >>> [t.get_text() for t in ax.texts if t.get_text() in ("a1", "b1", "a2")]
    ['a1', 'a2', 'b1', 'a1', 'b1', 'a2']
    """
    lengths = check_sequence("lengths", lengths, "a sequence of int")
    if len(lengths) > 4:
        raise ValueError(f"lengths must hold at most 4 sequences, got {len(lengths)}")
    lengths = [check_int(f"lengths[{b}]", n, minimum=1, maximum=5) for b, n in enumerate(lengths)]
    data = check_sequence("data", data, "a sequence of (sequence, step) pairs")
    rows = []
    for k, row in enumerate(data):
        pair = check_sequence(f"data[{k}]", row, "a (sequence, step) pair")
        if len(pair) != 2:
            raise ValueError(f"data[{k}] must be a (sequence, step) pair, got {len(pair)} entries")
        sequence = check_int(f"data[{k}][0]", pair[0], minimum=0, maximum=len(lengths) - 1)
        rows.append((sequence, check_int(f"data[{k}][1]", pair[1], minimum=1, maximum=lengths[sequence])))
    if sorted(rows) != sorted((b, t) for b, n in enumerate(lengths) for t in range(1, n + 1)):
        raise ValueError("data must hold every real step of every sequence once")
    batch_sizes = check_sequence("batch_sizes", batch_sizes, "a sequence of int")
    sizes = [check_int(f"batch_sizes[{k}]", n, minimum=1) for k, n in enumerate(batch_sizes)]
    if sum(sizes) != len(rows):
        raise ValueError(f"batch_sizes must add up to len(data) ({len(rows)}), got {sum(sizes)}")
    names = "abcd"
    fig, ax = _phone_figure((-0.2, 9.6), (-1.6, 1.0 * len(lengths) + 1.2))
    # the padded batch: rows are sequences, columns are steps
    top = 1.0 * len(lengths) + 0.4
    for t in range(1, max(lengths) + 1):
        ax.text(2.7 + 1.1 * (t - 1), top + 0.6, f"t = {t}" if t == 1 else f"{t}", ha="center",
                va="center", fontsize=_LABEL)  # fmt: skip
    for b, n in enumerate(lengths):
        y = top - b
        ax.text(0.0, y, f"sequence {names[b]}", ha="left", va="center", fontsize=_NOTE)
        for t in range(1, max(lengths) + 1):
            x = 2.7 + 1.1 * (t - 1)
            real = t <= n
            ax.add_patch(Rectangle((x - 0.5, y - 0.4), 1.0, 0.8, facecolor=STEP_FILL if real else "white",
                                   edgecolor=_EDGE, lw=1.2, ls="-" if real else ":"))  # fmt: skip
            ax.text(x, y, f"{names[b]}{t}" if real else "pad", ha="center", va="center",
                    fontsize=13 if real else 11, color="black" if real else "0.35")  # fmt: skip
    # data, in the order given, in its groups; a row wider than the frame is squeezed to its
    # width (boxes, labels, brackets and sizes alike), keeping the order and the groups
    y = 0.0
    ax.text(0.0, y, "data", ha="left", va="center", fontsize=_LABEL, family="monospace")
    ax.text(0.0, y - 1.0, "batch_sizes", ha="left", va="center", fontsize=_NOTE, family="monospace")
    left = 2.3 - 0.42  # the first box's left edge
    right = 2.3 + 0.42 + 0.84 * (len(rows) - 1) + 0.25 * (len(sizes) - 1)  # the last box's right edge
    scale = min(1.0, (ax.get_xlim()[1] - 0.1 - left) / (right - left))

    def squeeze(x: float) -> float:
        return left + (x - left) * scale

    x, k = 2.3, 0
    for size in sizes:
        start = x
        for sequence, step in rows[k : k + size]:
            ax.add_patch(Rectangle((squeeze(x - 0.42), y - 0.4), 0.84 * scale, 0.8, facecolor=STEP_FILL,
                                   edgecolor=_EDGE, lw=1.2))  # fmt: skip
            ax.text(squeeze(x), y, f"{names[sequence]}{step}", ha="center", va="center", fontsize=13)
            x += 0.84
        # the group's bracket and its size, below it
        ax.plot([squeeze(v) for v in (start - 0.38, start - 0.38, x - 0.46, x - 0.46)],
                [y - 0.5, y - 0.62, y - 0.62, y - 0.5], color=_EDGE, lw=1.2)  # fmt: skip
        ax.text(squeeze((start + x - 0.84) / 2), y - 1.0, str(size), ha="center", va="center", fontsize=13)
        x += 0.25
        k += size
    return fig


def draw_lstm_state_jacobian() -> matplotlib.figure.Figure:
    r"""Draw the four blocks of one LSTM step's state Jacobian, :math:`J_t = \partial s_t / \partial s_{t-1}`.

    The state is :math:`s_t = (h_t, c_t)`, so :math:`J_t` is :math:`(2H, 2H)`: one row of blocks
    per output (:math:`h_t` above, :math:`c_t` below), one column per input (:math:`h_{t-1}`,
    :math:`c_{t-1}`), each block :math:`(H, H)`, written as in equation ``eq-full-state-jacobian``
    of the gated-gradients chapter. The :math:`c \to c` block, :math:`\operatorname{diag}(f_t)`,
    is the additive cell path (no :math:`W_{hh}`, no :math:`\tanh'`) and is outlined in the
    LSTM's colour (:data:`rnndoc.colors.NETWORK_COLORS`), the colour of the cell path in
    :func:`rnndoc.plots.draw_lstm_gates`; the other three are outlined in dark grey. No
    block is filled: a pale blue fill means a tanh node in the cell diagrams. Sized for a
    phone: no text below 11 points on a figure under 5.1 inches wide.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rnndoc.layer_diagrams import draw_lstm_state_jacobian
    >>> texts = [t.get_text() for t in draw_lstm_state_jacobian().axes[0].texts]
    >>> r"$\operatorname{diag}(f_t)$" in texts and "the additive cell path" in texts
    True
    >>> min(t.get_fontsize() for t in draw_lstm_state_jacobian().axes[0].texts) >= 11
    True
    """
    lstm = NETWORK_COLORS["LSTM"]
    fig, ax = _phone_figure((0.0, 11.3), (-1.0, 7.2))
    width, height, gap = 4.3, 2.6, 0.2
    left, bottom = 2.0, 0.0
    centres_x = [left + width / 2, left + width + gap + width / 2]
    centres_y = [bottom + height + gap + height / 2, bottom + height / 2]  # the h row, the c row
    blocks = {  # (row, column): the block as the equation writes it, and what it is
        (0, 0): (r"$\partial h_t / \partial h_{t-1}$", "$h$ to $h$", ""),
        (0, 1): (r"$\partial h_t / \partial c_{t-1}$", "$c$ to $h$", ""),
        (1, 0): (r"$\partial c_t / \partial h_{t-1}$", "$h$ to $c$", ""),
        (1, 1): (r"$\operatorname{diag}(f_t)$", "$c$ to $c$", "the additive cell path"),
    }
    for (row, column), (block, what, more) in blocks.items():
        x, y = centres_x[column], centres_y[row]
        cell = (row, column) == (1, 1)
        ax.add_patch(
            FancyBboxPatch((x - width / 2, y - height / 2), width, height, boxstyle="round,pad=0.04",
                           facecolor="white", edgecolor=lstm if cell else _EDGE, lw=3.0 if cell else 1.2)
        )  # fmt: skip
        ax.text(x, y + (0.65 if more else 0.4), block, ha="center", va="center", fontsize=_MATH + 1)
        ax.text(x, y - (0.2 if more else 0.5), what, ha="center", va="center", fontsize=_LABEL)
        if more:
            ax.text(x, y - 0.85, more, ha="center", va="center", fontsize=_NOTE)
    # the matrix's brackets
    top, right = bottom + 2 * height + gap + 0.15, left + 2 * width + gap + 0.15
    for x, tick in ((left - 0.15, 0.25), (right, -0.25)):
        ax.plot([x + tick, x, x, x + tick], [top, top, bottom - 0.15, bottom - 0.15], color=_EDGE, lw=1.6)
    # which input each column reads, which output each row gives
    for x, name in zip(centres_x, (r"from $h_{t-1}$", r"from $c_{t-1}$"), strict=True):
        ax.text(x, top + 0.6, name, ha="center", va="center", fontsize=_MATH + 1)
    for y, name in zip(centres_y, (r"to $h_t$", r"to $c_t$"), strict=True):
        ax.text(left - 0.4, y, name, ha="right", va="center", fontsize=_MATH + 1)
    ax.text((left + right) / 2, bottom - 0.65, "each block is (H, H)", ha="center", va="center",
            fontsize=_LABEL)  # fmt: skip
    return fig
