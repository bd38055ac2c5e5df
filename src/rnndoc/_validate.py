"""Argument checks shared by the tensor functions: clear errors instead of deep tracebacks."""

from __future__ import annotations

import torch


def check_tensor(name: str, value: object, shape: tuple[int | None, ...], labels: str) -> torch.Tensor:
    """Return ``value`` if it is a floating tensor of ``shape`` (``None``: any size), else raise.

    ``labels`` names the axes, e.g. ``"(L, N, H_in)"``; it is quoted in the message with the
    expected and the actual shape.
    """
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if not value.is_floating_point():
        raise TypeError(f"{name} must have a floating dtype, got {value.dtype}")
    ok = value.dim() == len(shape) and all(
        e is None or e == a for e, a in zip(shape, value.shape, strict=False)
    )
    if not ok:
        entries = ["*" if e is None else str(e) for e in shape]
        expected = f"({entries[0]},)" if len(entries) == 1 else f"({', '.join(entries)})"
        raise ValueError(f"{name} must have shape {labels} = {expected}, got {tuple(value.shape)}")
    return value


def check_same_dtype(**tensors: torch.Tensor) -> None:
    """Raise TypeError naming the first tensor whose dtype differs from the first one's."""
    dtypes = {name: t.dtype for name, t in tensors.items()}
    reference_name, reference = next(iter(dtypes.items()))
    for name, dtype in dtypes.items():
        if dtype != reference:
            raise TypeError(f"{name} must have the dtype of {reference_name} ({reference}), got {dtype}")
