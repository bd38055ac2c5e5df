r"""A per-step loss over a right-padded batch: count each sequence's own steps only.

A padded batch (``pad_sequence``, ``pad_packed_sequence``) holds N sequences of lengths
:math:`T_b` in L >= max T_b steps, time first as in ``nn.RNN``. Here, as in the chapter's
:eq:`eq-masked-mean`, t is the row of the padded tensor, counted from 0: row t of sequence b
is real when :math:`t < T_b` (rows 0 ... T_b - 1 are its steps 1 ... T_b in the 1-based count
of the other chapters). The mean per-step loss counts those and nothing else:

.. math:: \bar\ell = \frac{\sum_{b=1}^{N} \sum_{t < T_b} \ell_{t,b}}{\sum_{b=1}^{N} T_b}

Chapter *Variable-length sequences* checks it against the loss of each sequence run alone
and against the loss on a ``PackedSequence``'s data.
"""

from __future__ import annotations

import torch

from ._validate import check_int, check_lengths, check_same_device, check_tensor

__all__ = ["length_mask", "masked_mean"]


def length_mask(lengths: torch.Tensor, total_length: int) -> torch.Tensor:
    """The (L, N) mask of real steps: ``mask[t, b]`` is True when ``t < lengths[b]``.

    Parameters
    ----------
    lengths : Tensor, shape (N,), integer dtype
        T_b for every sequence, each from 1 to ``total_length``.
    total_length : int
        L, the padded length.

    Returns
    -------
    Tensor, shape (L, N), dtype bool

    Raises
    ------
    TypeError
        If ``lengths`` is not an integer tensor, or ``total_length`` not an int.
    ValueError
        If ``lengths`` is not one-dimensional, a length is below 1 or above ``total_length``,
        ``total_length`` is negative, or ``lengths`` is on the meta device (it holds no values).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.masking import length_mask
    >>> length_mask(torch.tensor([2, 3, 1]), 3).int().tolist()
    [[1, 1, 1], [1, 1, 0], [0, 1, 0]]
    """
    lengths = check_lengths("lengths", lengths)
    total_length = check_int("total_length", total_length, minimum=0)
    if lengths.device.type == "meta":
        raise ValueError("lengths must hold values, got a tensor on the meta device")
    if len(lengths) and not (int(lengths.min()) >= 1 and int(lengths.max()) <= total_length):
        raise ValueError(f"lengths must lie in [1, total_length={total_length}], got {lengths.tolist()}")
    steps = torch.arange(total_length, device=lengths.device)  # (L,)
    return steps[:, None] < lengths[None, :]  # (L, N)


def masked_mean(losses: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    r"""The mean of a per-step loss over the real steps of a padded batch.

    .. math:: \bar\ell = \frac{\sum_{b=1}^{N} \sum_{t < T_b} \ell_{t,b}}{\sum_{b=1}^{N} T_b}

    t is the row of ``losses``, counted from 0 as in the chapter's equation (row t of
    sequence b is real when :math:`t < T_b`); b counts the sequences from 1.

    Padded steps are left out by selection, not multiplied by zero, so a NaN or an infinity
    computed on padding cannot leak into the result or its gradient.

    Parameters
    ----------
    losses : Tensor, shape (L, N), floating dtype
        The loss at every step of every sequence, padded steps included (time first).
    lengths : Tensor, shape (N,), integer dtype
        T_b, each from 1 to L.

    Returns
    -------
    Tensor, shape ()
        Differentiable with respect to ``losses``, in its dtype. A float16 or bfloat16 loss
        is summed and divided in float32, as ``torch.mean`` accumulates it, then rounded
        back once (a float16 sum of large losses would overflow to infinity).

    Raises
    ------
    TypeError
        If ``losses`` is not a floating tensor or ``lengths`` not an integer tensor.
    ValueError
        If ``losses`` is not two-dimensional with one column per length, a length is out
        of range, ``lengths`` is neither on the CPU nor on ``losses``' device, or ``losses``
        is on the meta device (it holds no values to select).
        N = 0 sequences give NaN, 0 / 0, as ``torch.mean`` of nothing does.

    Notes
    -----
    The book's :eq:`eq-masked-mean` (chapter "Variable-length sequences: padding and
    packing"); it equals the mean over a ``PackedSequence``'s ``data``, which holds the real
    steps only, as PyTorch's ``torch.nn.utils.rnn.pack_padded_sequence`` documents.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.masking import masked_mean
    >>> losses = torch.tensor([[1.0, 2.0], [3.0, 100.0]])  # (L, N); 100 is on padding
    >>> masked_mean(losses, torch.tensor([2, 1])).item()  # (1 + 3 + 2) / 3
    2.0
    """
    losses = check_tensor("losses", losses, (None, None), "(L, N)")
    check_lengths("lengths", lengths, losses.shape[1])
    if lengths.device.type != "cpu":  # on the CPU (as pack_padded_sequence wants them) or with losses
        check_same_device("losses", losses, lengths=lengths)
    if losses.device.type == "meta":
        raise ValueError("losses must hold values, got a tensor on the meta device")
    mask = length_mask(lengths, losses.shape[0]).to(losses.device)  # (L, N)
    if losses.dtype in (torch.float16, torch.bfloat16):  # accumulate wider, as torch.mean does
        return (losses[mask].sum(dtype=torch.float32) / mask.sum()).to(losses.dtype)
    return losses[mask].sum() / mask.sum()
