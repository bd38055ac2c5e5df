"""A ``PackedSequence`` taken apart and built again, with the checks torch itself skips.

torch's recurrent kernels trust a ``PackedSequence``: a hand-built one with increasing or
zero batch sizes, more or fewer rows than the sizes add up to, or ``sorted_indices`` that
are not a permutation gives a raw error from deep inside, or other numbers. Here each is
refused by name.
"""

from __future__ import annotations

import torch
from torch.nn.utils.rnn import PackedSequence

from .._validate import check_tensor

__all__: list[str] = []  # internal: used by the dispatch


def check_packed(packed: PackedSequence, input_size: int) -> None:
    """Raise ``TypeError``/``ValueError`` naming the field of ``input`` that is malformed."""
    check_tensor("input.data", packed.data, (None, input_size), "(sum of lengths, H_in)")
    sizes = packed.batch_sizes
    if not isinstance(sizes, torch.Tensor) or sizes.dim() != 1 or sizes.dtype != torch.int64:
        got = f"{sizes.dim()}-D {sizes.dtype}" if isinstance(sizes, torch.Tensor) else type(sizes).__name__
        raise ValueError(
            f"input.batch_sizes must be a 1-D int64 tensor (as pack_sequence makes it), got {got}"
        )
    if sizes.numel() == 0:
        raise ValueError("input is an empty PackedSequence (no time steps): pack at least one step")
    if bool((sizes < 1).any()):
        raise ValueError(f"input.batch_sizes must be positive, got {sizes.tolist()}")
    if bool((sizes[1:] > sizes[:-1]).any()):
        raise ValueError(f"input.batch_sizes must be non-increasing (longest first), got {sizes.tolist()}")
    rows = int(sizes.sum())
    if packed.data.shape[0] != rows:
        raise ValueError(
            f"input.data must have {rows} rows (the sum of batch_sizes {sizes.tolist()}), "
            f"got shape {tuple(packed.data.shape)}"
        )
    batch = int(sizes[0])
    for name in ("sorted_indices", "unsorted_indices"):
        order = getattr(packed, name)
        if order is None:
            continue
        ok = order.dim() == 1 and order.numel() == batch and not order.is_floating_point()
        if not ok or not torch.equal(order.sort().values.cpu(), torch.arange(batch, device="cpu")):
            raise ValueError(
                f"input.{name} must be a permutation of range({batch}) (the batch size), got {order.tolist()}"
            )
    order, inverse = packed.sorted_indices, packed.unsorted_indices
    if (
        order is not None
        and inverse is not None
        and not torch.equal(order[inverse].cpu(), torch.arange(batch, device="cpu"))
    ):
        raise ValueError("input.unsorted_indices must be the inverse of input.sorted_indices")


def pack_like(output: torch.Tensor, packed: PackedSequence) -> PackedSequence:
    """Pack time-first ``output`` (L, N, F), in the caller's batch order, as ``packed`` is packed."""
    order = (
        packed.sorted_indices
        if packed.sorted_indices is not None
        else torch.arange(output.shape[1], device=output.device)
    )
    by_length = output[:, order.to(output.device)]  # (L, N, F): longest sequence first
    sizes = packed.batch_sizes.tolist()
    data = torch.cat([by_length[t, :size] for t, size in enumerate(sizes)])  # (sum len, F)
    return PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
