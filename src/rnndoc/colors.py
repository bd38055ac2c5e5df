"""The book's colours: one per kind of network (tanh RNN, LSTM, GRU), and one per kind of node in
the cell diagrams (a sigmoid gate, a tanh), the same in every figure."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.colors

from ._validate import check_sequence, check_str

__all__ = [
    "DIRECTION_COLORS",
    "NETWORK_COLORS",
    "NODE_COLORS",
    "PATH_COLORS",
    "SIZE_COLORS",
    "STEP_FILL",
    "network_colors",
]

#: One colour per kind of network, the same in every figure of the book, each a hue (no network
#: is a grey): magenta for a tanh RNN at PyTorch's default initialization (CSS darkmagenta, 8.5:1
#: against white, a hue no other colour here uses), blue for the LSTM, red for the LSTM with its
#: forget-gate bias raised by 3, green for the GRU. The two hand-built tanh RNNs of the
#: vanishing-gradient chapters (orthogonal :math:`W_{hh}` scaled to :math:`\gamma`) have hues of
#: their own, pink for the one whose gradient explodes and cyan for the one whose gradient
#: vanishes. Orange is the forget gate :math:`f_t` (the counting chapter), purple and brown the
#: two directions (:data:`DIRECTION_COLORS`); the sequences of one batch are black lines told
#: apart by line style (:func:`rnndoc.plots.plot_step_gradients`).
NETWORK_COLORS = {
    "tanh RNN": "#8b008b",
    "tanh RNN, γ = 1.2": "#e377c2",
    "tanh RNN, γ = 0.8": "#17becf",
    "LSTM": "#1f77b4",
    "LSTM, forget bias +3": "#d62728",
    "GRU": "#2ca02c",
}

#: One fill per kind of node in the cell diagrams: a sigmoid gate (a fraction between 0 and 1
#: that scales a signal) and a tanh (a value between -1 and 1: a candidate, or the squashed cell).
NODE_COLORS = {
    "gate": "#fde2c4",
    "tanh": "#cfe3f6",
}


#: One colour per direction of a bidirectional layer, in the layer diagrams (hues no network uses).
DIRECTION_COLORS = {
    "forward": "#9467bd",
    "reverse": "#8c564b",
}

#: One colour per hidden size H in the appendix's cost figure, darkest first (hues no network or
#: direction uses, so that blue still means the LSTM everywhere).
SIZE_COLORS = ("#222255", "#b8860b", "#8e0152", "#5f6b00", "#00565e")

#: One colour per path through :math:`W_{hh}` in the many-to-one chapter's figure, the use at
#: step 1 first: gold, violet and teal (hues no network, gate, direction or size uses).
PATH_COLORS = ("#e6ab02", "#7570b3", "#1b9e77")

#: The fill of a real time step of a padded batch or of a ``PackedSequence``'s ``data`` (padding
#: is left white).
STEP_FILL = "#fff3b0"


def _light(color: str, mix: float = 0.75) -> str:
    """``color`` mixed with ``mix`` white: the fill of a box drawn in ``color``."""
    red, green, blue = ((1 - mix) * c + mix for c in matplotlib.colors.to_rgb(color))
    return matplotlib.colors.to_hex((red, green, blue))


def network_colors(labels: Sequence[str]) -> dict[str, str | None]:
    """The colour of each label: that of the longest key of :data:`NETWORK_COLORS` it starts with.

    Labels that share a network (``"GRU, seed 0"`` and ``"GRU, seed 1"``) get shades of its
    colour, darkest first; a label of no known network gets None (matplotlib's
    colour cycle).

    Parameters
    ----------
    labels : sequence of str
        Curve labels, in drawing order.

    Raises
    ------
    TypeError
        If ``labels`` is not a sequence (a str is not one) or holds a non-str.

    Returns
    -------
    dict of str to str or None
        A matplotlib colour (``"#rrggbb"``) per label.

    Examples
    --------
    >>> from rnndoc.colors import network_colors
    >>> colors = network_colors(["LSTM", "LSTM, forget bias +3", "GRU", "other"])
    >>> colors["LSTM"], colors["GRU"], colors["other"]
    ('#1f77b4', '#2ca02c', None)
    >>> a, b = network_colors(["GRU, seed 0", "GRU, seed 1"]).values()
    >>> a == colors["GRU"] != b
    True
    >>> network_colors(["tanh RNN, γ = 1.2", "tanh RNN, γ = 0.8"])  # two hues, not two greys
    {'tanh RNN, γ = 1.2': '#e377c2', 'tanh RNN, γ = 0.8': '#17becf'}
    """
    kinds = {}
    for index, label in enumerate(check_sequence("labels", labels, "a sequence of str", non_empty=False)):
        check_str(f"labels[{index}]", label)
        keys = [key for key in NETWORK_COLORS if label.startswith(key)]
        kinds[label] = max(keys, key=len) if keys else None
    colors: dict[str, str | None] = {}
    for label, kind in kinds.items():
        if kind is None:
            colors[label] = None
            continue
        same = [other for other, k in kinds.items() if k == kind]
        # shades: the network's colour, then mixed with up to 50 % white
        mix = 0.5 * same.index(label) / max(1, len(same) - 1)
        red, green, blue = ((1 - mix) * c + mix for c in matplotlib.colors.to_rgb(NETWORK_COLORS[kind]))
        colors[label] = matplotlib.colors.to_hex((red, green, blue))
    return colors
