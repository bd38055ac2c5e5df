r"""A character-level language model: the book's text, its model, and how the model is scored.

The text (:func:`bracket_text`) is generated, seeded and small, and has structure at three
distances: words of three or four letters (the next letter depends on the last one to three),
lines of at most :data:`MAX_LINE` characters (a newline after at most that many), quoted words
(a quote closes four or five characters after it opened) and nested brackets of three kinds,
``()``, ``[]`` and ``{}``, up to :data:`MAX_DEPTH` deep, closed by the bracket of the kind that
opened them, up to a line's length later. :func:`closing_brackets` finds each closing bracket
with its depth and its distance to its opening bracket, :func:`nesting_depth` the depth after
every character; :func:`closer_probabilities` asks a
model, at each of them, how much of the probability it gives to the three closing brackets it
gives to the right one; :func:`bootstrap_interval` says how far a mean of such shares could
move with another draw of the same number of brackets.

:class:`CharLM` is one recurrent layer (tanh RNN, LSTM or GRU) on one-hot characters with a
linear read-out, :func:`evaluate` its mean cross-entropy and perplexity on a text, and
:func:`sample` draws text from it at a temperature. The training loop is not here: it is in the
chapter, where the reader can see it. Karpathy's min-char-rnn and Zhang et al., *Dive into Deep
Learning*, chapter 9 (language models, perplexity, sampling).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional

from ._validate import check_choice, check_float, check_instance, check_int, check_str, check_tensor

__all__ = [
    "ALPHABET",
    "MAX_DEPTH",
    "MAX_LINE",
    "PAIRS",
    "WORDS",
    "CharLM",
    "bootstrap_interval",
    "bracket_text",
    "closer_probabilities",
    "closing_brackets",
    "decode",
    "encode",
    "evaluate",
    "nesting_depth",
    "sample",
]

#: The words between the brackets: three or four letters each.
WORDS = ("cat", "dog", "sun", "map", "ink", "owl", "bird", "lamp", "tree", "rope")
#: Opening bracket -> its closing bracket.
PAIRS = {"(": ")", "[": "]", "{": "}"}
#: The deepest nesting of brackets in a line.
MAX_DEPTH = 3
#: The longest line, newline excluded.
MAX_LINE = 48
#: Every character of the text, in the order of the one-hot index.
ALPHABET = "".join(sorted(set("".join(WORDS)) | set(PAIRS) | set(PAIRS.values()) | set(' "\n')))
_INDEX = {char: index for index, char in enumerate(ALPHABET)}
_MODES: dict[str, type[nn.RNN | nn.LSTM | nn.GRU]] = {"RNN_TANH": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


def _group(depth: int, rng: torch.Generator) -> str:
    """Items separated by spaces (two or three in a line, one to three in a bracket)."""
    items = []
    first = 1 if depth else 2
    for _ in range(first + int(torch.randint(4 - first, (1,), generator=rng))):
        roll = float(torch.rand((), generator=rng))
        if depth < MAX_DEPTH and roll < 0.4:
            opening = "([{"[int(torch.randint(3, (1,), generator=rng))]
            items.append(opening + _group(depth + 1, rng) + PAIRS[opening])
        else:
            word = WORDS[int(torch.randint(len(WORDS), (1,), generator=rng))]
            items.append(f'"{word}"' if roll > 0.85 else word)
    return " ".join(items)


def bracket_text(lines: int, *, seed: int = 0) -> str:
    r"""A text of ``lines`` lines with words, quoted words and nested brackets of three kinds.

    Each line is two or three items separated by spaces; an item is a word of
    :data:`WORDS`, a quoted word (``"owl"``) or, below depth :data:`MAX_DEPTH`, an opening
    bracket ``(``, ``[`` or ``{`` followed by one to three items and the matching closing
    bracket. A line longer than :data:`MAX_LINE` characters is drawn again, so every bracket
    closes within the line it opened, at most :data:`MAX_LINE` - 1 characters after it.

    Parameters
    ----------
    lines : int
        Number of lines, at least 1; each ends with ``"\n"``.
    seed : int, default 0
        Seeds a ``torch.Generator``: the same seed gives the same text.

    Returns
    -------
    str
        Characters of :data:`ALPHABET` only.

    Raises
    ------
    TypeError
        If ``lines`` or ``seed`` is not an int.
    ValueError
        If ``lines`` is below 1 or ``seed`` below 0.

    Examples
    --------
    >>> from rnndoc.charlm import bracket_text
    >>> text = bracket_text(3, seed=0)
    >>> text.count("\n"), text == bracket_text(3, seed=0)
    (3, True)
    """
    lines = check_int("lines", lines, minimum=1)
    rng = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    out: list[str] = []
    while len(out) < lines:
        line = _group(0, rng)
        if len(line) <= MAX_LINE:
            out.append(line + "\n")
    return "".join(out)


def encode(text: str) -> torch.Tensor:
    """The characters of ``text`` as indices into :data:`ALPHABET`.

    Parameters
    ----------
    text : str
        Characters of :data:`ALPHABET`.

    Returns
    -------
    Tensor, shape (len(text),), int64

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If ``text`` holds a character outside :data:`ALPHABET`.

    Examples
    --------
    >>> from rnndoc.charlm import decode, encode
    >>> decode(encode("(owl)\\n")) == "(owl)\\n"
    True
    """
    return _encode("text", text)


def _encode(name: str, text: object) -> torch.Tensor:
    check_str(name, text)
    assert isinstance(text, str)
    unknown = sorted(set(text) - set(ALPHABET))
    if unknown:
        raise ValueError(f"{name} holds characters outside ALPHABET: {unknown!r}")
    return torch.tensor([_INDEX[char] for char in text], dtype=torch.int64)


def decode(indices: torch.Tensor) -> str:
    """The text whose characters are ``indices`` into :data:`ALPHABET`, the inverse of :func:`encode`.

    Parameters
    ----------
    indices : Tensor, shape (L,), integer dtype
        Each in ``[0, len(ALPHABET))``.

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``indices`` is not an integer tensor.
    ValueError
        If it is not 1-D or an index is out of range.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import ALPHABET, decode
    >>> decode(torch.tensor([ALPHABET.index("o"), ALPHABET.index("k")]))
    'ok'
    """
    _check_indices("indices", indices)
    return "".join(ALPHABET[index] for index in indices.tolist())


def _check_indices(name: str, value: object) -> torch.Tensor:
    check_instance(name, value, torch.Tensor, "an integer tensor")
    assert isinstance(value, torch.Tensor)
    if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == torch.bool:
        raise TypeError(f"{name} must be an integer tensor, got dtype {value.dtype}")
    if value.dim() != 1:
        raise ValueError(f"{name} must be 1-D (L,), got shape {tuple(value.shape)}")
    if value.numel() and (value.min() < 0 or value.max() >= len(ALPHABET)):
        raise ValueError(f"{name} must lie in [0, {len(ALPHABET)}), got {value.min()} to {value.max()}")
    return value


class CharLM(nn.Module):
    r"""One recurrent layer on one-hot characters and a softmax read-out: :eq:`eq-char-lm`.

    .. math:: p(c_{t+1} \mid c_1, \dots, c_t) = \operatorname{softmax}(W_{hy} h_t + b_y)

    with :math:`h_t` the layer's hidden state after the one-hot :math:`x_t = e_{c_t}`.

    Parameters
    ----------
    mode : {"RNN_TANH", "LSTM", "GRU"}
        ``nn.RNN`` (tanh), ``nn.LSTM`` or ``nn.GRU``, ``batch_first=True``, input size
        ``len(ALPHABET)``.
    hidden_size : int

    Attributes
    ----------
    rnn : nn.RNN, nn.LSTM or nn.GRU
    readout : nn.Linear
        (H -> V), V = ``len(ALPHABET)``: :math:`W_{hy}` (V, H) and :math:`b_y` (V,).

    Raises
    ------
    TypeError
        If ``mode`` is not a str or ``hidden_size`` not an int.
    ValueError
        If ``mode`` is unknown or ``hidden_size`` below 1.

    Notes
    -----
    ``forward(indices, state=None)`` maps indices (N, L) (int64) and a state (h_0, or
    (h_0, c_0) for the LSTM, or None) to logits (N, L, V) in the model's dtype and the final
    state. :meth:`one_hot` is its input. Karpathy's min-char-rnn; Zhang et al. (2023), 9.4.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import ALPHABET, CharLM
    >>> model = CharLM("GRU", 8)
    >>> logits, state = model(torch.zeros(2, 5, dtype=torch.int64))
    >>> logits.shape == (2, 5, len(ALPHABET)), state.shape
    (True, torch.Size([1, 2, 8]))
    """

    def __init__(self, mode: str, hidden_size: int) -> None:
        super().__init__()
        check_choice("mode", mode, _MODES)
        hidden_size = check_int("hidden_size", hidden_size, minimum=1)
        self.rnn = _MODES[mode](len(ALPHABET), hidden_size, batch_first=True)
        self.readout = nn.Linear(hidden_size, len(ALPHABET))

    def one_hot(self, indices: torch.Tensor) -> torch.Tensor:
        """Indices (N, L) as one-hot rows (N, L, V) in the model's dtype."""
        return functional.one_hot(indices, len(ALPHABET)).to(self.readout.weight.dtype)

    def forward(self, indices: torch.Tensor, state=None):
        """Logits (N, L, V) for the next character after each, and the final state."""
        output, state = self.rnn(self.one_hot(indices), state)  # (N, L, H)
        return self.readout(output), state  # (N, L, V): W_hy h_t + b_y


def _check_model(model: object) -> CharLM:
    return check_instance("model", model, CharLM, "a CharLM")


def evaluate(model: CharLM, text: str) -> tuple[float, float]:
    r"""Mean cross-entropy of ``model`` on each next character of ``text``, and perplexity: :eq:`eq-perplexity`.

    .. math:: \mathcal{L} = -\frac{1}{T-1} \sum_{t=1}^{T-1} \log p(c_{t+1} \mid c_1, \dots, c_t),
              \qquad \text{perplexity} = e^{\mathcal{L}}

    One pass over the whole text as one sequence, from the zero state, without gradients.

    Parameters
    ----------
    model : CharLM
    text : str
        At least two characters of :data:`ALPHABET`.

    Returns
    -------
    (float, float)
        The loss in nats per character and its exponential.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`CharLM` or ``text`` not a str.
    ValueError
        If ``text`` is shorter than 2 or holds a character outside :data:`ALPHABET`.

    Notes
    -----
    A model that gives every character the same probability has perplexity ``len(ALPHABET)``.
    Zhang et al. (2023), section 9.3.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import ALPHABET, CharLM, evaluate
    >>> model = CharLM("RNN_TANH", 4)
    >>> _ = [torch.nn.init.zeros_(p) for p in model.parameters()]
    >>> loss, perplexity = evaluate(model, "(cat)\n")
    >>> round(perplexity, 3) == len(ALPHABET)
    True
    """
    model = _check_model(model)
    indices = encode(text)
    if len(indices) < 2:
        raise ValueError(f"text must have at least 2 characters, got {len(indices)}")
    with torch.no_grad():
        logits, _ = model(indices[None, :-1])  # (1, T - 1, V)
        loss = functional.cross_entropy(logits[0], indices[1:]).item()
    return loss, math.exp(loss)


def sample(
    model: CharLM,
    start: str,
    length: int,
    *,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
) -> str:
    r"""``length`` characters drawn from ``model`` after ``start``, at a temperature.

    Each character is drawn from :math:`\operatorname{softmax}(z / \tau)` of the read-out's
    logits :math:`z`; :math:`\tau = 0` takes the most probable character (greedy).

    Parameters
    ----------
    model : CharLM
    start : str
        At least one character of :data:`ALPHABET`, read before the first draw.
    length : int
        Characters to draw, at least 1.
    temperature : float, default 1.0
        0 (greedy) or positive.
    generator : torch.Generator, optional
        Seeds the draws (ignored when greedy).

    Returns
    -------
    str
        ``start`` followed by the ``length`` drawn characters.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``start`` is empty or holds a character outside :data:`ALPHABET`, ``length`` is
        below 1 or ``temperature`` negative.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import CharLM, sample
    >>> _ = torch.manual_seed(0)
    >>> text = sample(CharLM("LSTM", 4), "(", 5, temperature=0)
    >>> len(text), text[0]
    (6, '(')
    """
    model = _check_model(model)
    indices = _encode("start", start)
    if len(indices) == 0:
        raise ValueError("start must hold at least one character")
    length = check_int("length", length, minimum=1)
    temperature = check_float("temperature", temperature, minimum=0.0)
    if generator is not None:
        check_instance("generator", generator, torch.Generator, "a torch.Generator")
    drawn = []
    with torch.no_grad():
        logits, state = model(indices[None])  # (1, len(start), V)
        for _ in range(length):
            z = logits[0, -1]  # (V,)
            if temperature == 0:
                index = int(z.argmax())
            else:
                probabilities = torch.softmax(z.double() / temperature, dim=0)
                index = int(torch.multinomial(probabilities, 1, generator=generator))
            drawn.append(index)
            logits, state = model(torch.tensor([[index]]), state)
    return start + decode(torch.tensor(drawn, dtype=torch.int64))


def closing_brackets(text: str) -> torch.Tensor:
    """Every closing bracket of ``text``: its position, depth and distance to its opening bracket.

    Parameters
    ----------
    text : str
        Balanced brackets, as :func:`bracket_text` writes them.

    Returns
    -------
    Tensor, shape (K, 3), int64
        One row per closing bracket: its index in ``text``, the depth of the pair it closes
        (1 outermost) and the number of characters from the opening bracket to it.

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If a closing bracket does not match the open one, or a bracket is left open.

    Examples
    --------
    >>> from rnndoc.charlm import closing_brackets
    >>> closing_brackets("(a [b])").tolist()
    [[5, 2, 2], [6, 1, 6]]
    """
    check_str("text", text)
    stack: list[tuple[str, int]] = []
    rows = []
    for position, char in enumerate(text):
        if char in PAIRS:
            stack.append((char, position))
        elif char in PAIRS.values():
            if not stack or PAIRS[stack[-1][0]] != char:
                raise ValueError(f"text: {char!r} at {position} closes no matching bracket")
            _, opened = stack.pop()
            rows.append((position, len(stack) + 1, position - opened))
    if stack:
        raise ValueError(f"text: {len(stack)} bracket(s) left open")
    return torch.tensor(rows, dtype=torch.int64).reshape(-1, 3)


def nesting_depth(text: str) -> torch.Tensor:
    """How many brackets are open after each character of ``text``.

    An opening bracket counts from itself on, a closing bracket no longer counts at itself:
    the depth a reader knows once it has read the character, the quantity a cell that tracks
    nesting would hold after that step.

    Parameters
    ----------
    text : str
        Balanced brackets, as :func:`bracket_text` writes them.

    Returns
    -------
    Tensor, shape (len(text),), int64

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If the brackets of ``text`` do not balance (as :func:`closing_brackets`).

    Examples
    --------
    >>> from rnndoc.charlm import nesting_depth
    >>> nesting_depth("(a [b])").tolist()
    [1, 1, 1, 2, 2, 1, 0]
    """
    closing_brackets(text)  # checks the type and the balance
    steps = [1 if char in PAIRS else -1 if char in PAIRS.values() else 0 for char in text]
    return torch.tensor(steps, dtype=torch.int64).cumsum(0)


def closer_probabilities(model: CharLM, text: str) -> torch.Tensor:
    """At each closing bracket of ``text``: the right kind's share of the probability of the three closers.

    The model reads ``text`` from the zero state; before each closing bracket ``b`` it gives
    the closers the probabilities :math:`p_)`, :math:`p_]`, :math:`p_\\}`; the result is
    :math:`p_b / (p_) + p_] + p_\\})`: whether the model remembers *which* bracket is open,
    apart from *when* it closes. A model that forgot says 1/3.

    Parameters
    ----------
    model : CharLM
    text : str
        As :func:`closing_brackets` reads it, the first character not a closing bracket.

    Returns
    -------
    Tensor, shape (K,), float64
        In the order of the rows of :func:`closing_brackets`.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`CharLM` or ``text`` not a str.
    ValueError
        If the brackets of ``text`` do not balance or ``text`` holds a character outside
        :data:`ALPHABET`.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import CharLM, closer_probabilities
    >>> model = CharLM("GRU", 4)
    >>> _ = [torch.nn.init.zeros_(p) for p in model.parameters()]
    >>> closer_probabilities(model, "(a [b])").tolist()
    [0.3333333333333333, 0.3333333333333333]
    """
    model = _check_model(model)
    rows = closing_brackets(text)
    indices = encode(text)
    closers = torch.tensor([_INDEX[char] for char in PAIRS.values()])
    with torch.no_grad():
        logits, _ = model(indices[None])  # (1, T, V): logits[0, t] predicts character t + 1
        probabilities = torch.softmax(logits[0].double(), dim=-1)  # (T, V)
    before = probabilities[rows[:, 0] - 1]  # (K, V): just before each closer
    right = before.gather(1, indices[rows[:, 0]][:, None])[:, 0]  # (K,)
    return right / before[:, closers].sum(dim=1)


def bootstrap_interval(
    values: torch.Tensor,
    *,
    groups: torch.Tensor | None = None,
    draws: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values``, from a seeded generator.

    Draws ``draws`` resamples of ``values`` with replacement, each of the same size, takes
    each resample's mean and returns the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles
    of those means (linear interpolation, as ``torch.quantile`` computes them). With
    ``groups``, whole groups are resampled (a cluster bootstrap: as many groups as there are,
    each resample's mean over the values of the groups it drew), for values that are not
    independent within a group (closing brackets of one line share its context and the
    network's state). The resamples come from a ``torch.Generator`` seeded with ``seed``, so
    the interval is the same from run to run.
    It measures how much the mean could move with another sample of the same size from the
    same source (another validation text, for shares of closing brackets), not what another
    training run would give.

    Parameters
    ----------
    values : Tensor, shape (K,), floating
        At least one value (shares of the right closer, say, :func:`closer_probabilities`).
    groups : Tensor, shape (K,), integer, optional
        The group of each value (the line a closing bracket is on, say); None (the default)
        resamples the values one by one.
    draws : int, optional
        Resamples, at least 1.
    level : float, optional
        The interval's coverage, strictly between 0 and 1.
    seed : int, optional
        The generator's seed, at least 0.

    Returns
    -------
    tuple of float
        ``(low, high)``, in float64, ``low <= high``.

    Raises
    ------
    TypeError
        If ``values`` is not a floating tensor, ``groups`` not an integer tensor, or
        ``draws``, ``level`` or ``seed`` not a number of the right kind.
    ValueError
        If ``values`` is not one-dimensional or is empty or not finite, ``groups`` not of
        ``values``' shape, ``draws`` below 1, ``level`` not strictly between 0 and 1 or
        ``seed`` negative.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.charlm import bootstrap_interval
    >>> bootstrap_interval(torch.full((5,), 0.5))  # every resample's mean is 0.5
    (0.5, 0.5)
    >>> low, high = bootstrap_interval(torch.tensor([0.0, 1.0] * 50))
    >>> bool(low < 0.5 < high)
    True
    >>> # two groups of identical values: a resample of whole groups moves more
    >>> grouped = bootstrap_interval(torch.tensor([0.0] * 50 + [1.0] * 50),
    ...                              groups=torch.tensor([0] * 50 + [1] * 50))
    >>> grouped[1] - grouped[0] > high - low
    True
    """
    values = check_tensor("values", values, (None,), "(K,)")
    if not len(values):
        raise ValueError("values must hold at least one value, got an empty tensor")
    if not torch.isfinite(values).all():
        raise ValueError("values must be finite")
    draws = check_int("draws", draws, minimum=1)
    level = check_float("level", level, positive=True)
    if not level < 1:
        raise ValueError(f"level must be below 1, got {level!r}")
    seed = check_int("seed", seed, minimum=0)
    if groups is not None:
        if not isinstance(groups, torch.Tensor) or groups.is_floating_point() or groups.is_complex():
            raise TypeError(f"groups must be an integer torch.Tensor or None, got {groups!r:.60}")
        if groups.shape != values.shape:
            raise ValueError(
                f"groups must have values' shape (K,) = {tuple(values.shape)}, got {tuple(groups.shape)}"
            )
    generator = torch.Generator().manual_seed(seed)
    values = values.detach().double()  # (K,)
    if groups is None:
        picks = torch.randint(len(values), (draws, len(values)), generator=generator)  # (draws, K)
        means = values[picks].mean(dim=1)  # (draws,)
    else:
        _, index = torch.unique(groups, return_inverse=True)  # (K,): group ids 0 .. G-1
        count = int(index.max()) + 1
        sums = torch.zeros(count, dtype=torch.float64).index_add_(0, index, values)  # (G,)
        sizes = torch.zeros(count, dtype=torch.float64).index_add_(0, index, torch.ones_like(values))  # (G,)
        picks = torch.randint(count, (draws, count), generator=generator)  # (draws, G)
        means = sums[picks].sum(dim=1) / sizes[picks].sum(dim=1)  # (draws,)
    tail = (1 - level) / 2
    low, high = torch.quantile(means, torch.tensor([tail, 1 - tail], dtype=torch.float64)).tolist()
    return low, high
