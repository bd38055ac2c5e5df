r"""Counting: the language :math:`a^n b^n`, as next-symbol prediction, and how a model is scored on it.

A network reads ``a`` n times, then ``b`` n times, and predicts the next symbol at every step;
after the last ``b`` the next symbol is the end marker ``$``. While it reads a's the next symbol
is uncertain (another ``a``, or the first ``b``) but never ``$``; once it has read the first ``b``
every next symbol is determined by n: ``b`` until n of them are read, then ``$``. A network whose
prediction is a legal next symbol at every step, for every n it is shown, has counted (the
criterion of Gers and Schmidhuber 2001 and of Weiss, Goldberg and Yahav 2018, with one predicted
symbol in place of the set of legal ones). :func:`anbn` writes the sequences as a padded batch,
:func:`anbn_correct` scores a model's predictions on them. The training loop is in the chapter.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._validate import check_int, check_sequence, check_tensor

__all__ = ["SYMBOLS", "anbn", "anbn_correct"]

#: The symbols by index: 0 is ``a``, 1 is ``b``, 2 the end marker ``$`` (also the padding).
SYMBOLS = "ab$"
_IGNORE = -100  # cross_entropy's ignore_index: padded steps pay nothing


def _counts(ns: object) -> list[int]:
    values = check_sequence("ns", ns, "a sequence of ints")
    return [check_int(f"ns[{k}]", n, minimum=1) for k, n in enumerate(values)]


def anbn(ns: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """The strings :math:`a^n b^n` for each n of ``ns``, as inputs and next-symbol targets.

    Parameters
    ----------
    ns : sequence of int
        Each at least 1; one row per n.

    Returns
    -------
    inputs : Tensor, shape (len(ns), 2 * max(ns)), int64
        Row k is n a's and n b's (indices into :data:`SYMBOLS`), padded with ``$``.
    targets : Tensor, same shape, int64
        The next symbol at every step: the input shifted by one, ``$`` after the last ``b``,
        and -100 (``cross_entropy``'s ``ignore_index``) on the padding.

    Raises
    ------
    TypeError
        If ``ns`` is not a sequence or an n is not an int.
    ValueError
        If ``ns`` is empty or an n is below 1.

    Examples
    --------
    >>> from rnndoc.counting import anbn
    >>> inputs, targets = anbn([1, 2])
    >>> inputs.tolist(), targets.tolist()
    ([[0, 1, 2, 2], [0, 0, 1, 1]], [[1, 2, -100, -100], [0, 1, 1, 2]])
    """
    counts = _counts(ns)
    length = 2 * max(counts)
    inputs = torch.full((len(counts), length), 2, dtype=torch.int64)
    targets = torch.full((len(counts), length), _IGNORE, dtype=torch.int64)
    for row, n in enumerate(counts):
        string = torch.tensor([0] * n + [1] * n)  # (2n,)
        inputs[row, : 2 * n] = string
        targets[row, : 2 * n - 1] = string[1:]
        targets[row, 2 * n - 1] = 2  # the end marker after the last b
    return inputs, targets


def anbn_correct(logits: torch.Tensor, ns: Sequence[int]) -> torch.Tensor:
    """Whether a model predicted a legal next symbol at every step of each :math:`a^n b^n`.

    The prediction is the most probable symbol. After each ``a`` read (steps 0 to n - 1 of a
    row) either ``a`` or ``b`` may follow, so either is right and only ``$`` is wrong; after
    each ``b`` read (steps n to 2n - 1) the next symbol is determined (``b``, ..., ``b``, ``$``)
    and the prediction must be it.

    Parameters
    ----------
    logits : Tensor, shape (len(ns), L, 3)
        A model's scores of the next symbol on ``anbn(ns)[0]``, L at least 2 * max(ns).
    ns : sequence of int
        As given to :func:`anbn`.

    Returns
    -------
    Tensor, shape (len(ns),), bool

    Raises
    ------
    TypeError
        If ``logits`` is not a floating tensor, ``ns`` not a sequence of ints.
    ValueError
        If a shape disagrees with ``ns``, ``ns`` is empty or an n is below 1.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.counting import anbn, anbn_correct
    >>> inputs, targets = anbn([1, 2])
    >>> perfect = torch.nn.functional.one_hot(targets.clamp(min=0), 3).double()  # (2, 4, 3)
    >>> anbn_correct(perfect, [1, 2]).tolist()
    [True, True]
    >>> guess = perfect.clone()
    >>> guess[1, 0] = torch.tensor([0.0, 1.0, 0.0])  # "b" after the first a: legal for n = 1
    >>> anbn_correct(guess, [1, 2]).tolist()
    [True, True]
    >>> guess[1, 0] = torch.tensor([0.0, 0.0, 1.0])  # "$" after an a: never legal
    >>> anbn_correct(guess, [1, 2]).tolist()
    [True, False]
    >>> perfect[1, 2] = torch.tensor([0.0, 0.0, 1.0])  # "$" one b too early for n = 2
    >>> anbn_correct(perfect, [1, 2]).tolist()
    [True, False]
    """
    counts = _counts(ns)
    logits = check_tensor("logits", logits, (len(counts), None, 3), "(len(ns), L, 3)")
    if logits.shape[1] < 2 * max(counts):
        raise ValueError(
            f"logits must have L >= 2 * max(ns) = {2 * max(counts)} steps, got {logits.shape[1]}"
        )
    _, targets = anbn(counts)
    predicted = logits.argmax(dim=-1)  # (K, L)
    end = SYMBOLS.index("$")
    rows = []
    for k, n in enumerate(counts):
        a_phase = (predicted[k, :n] != end).all()  # after an a: "a" or "b", never the end
        b_phase = (predicted[k, n : 2 * n] == targets[k, n : 2 * n]).all()  # after a b: determined
        rows.append(bool(a_phase and b_phase))
    return torch.tensor(rows)
