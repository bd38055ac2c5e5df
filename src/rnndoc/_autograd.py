"""Autograd inside a helper whatever the caller's grad mode, and whether autograd records a tensor.

A helper whose answer is a gradient (or a Jacobian) computes the same numbers under
``torch.no_grad()``, ``torch.inference_mode()`` or neither: :func:`grad_on` turns autograd
back on for its body, and :func:`plain` gives an ordinary tensor of an inference tensor's
values (which autograd cannot save for backward), so the caller's context changes nothing.
:func:`recorded` tells the layers' sweeps when autograd tracks a tensor (then no in-place
update and no oneDNN product, which has no derivative).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch.autograd import forward_ad

__all__: list[str] = []  # internal: the helpers' bodies run here


@contextlib.contextmanager
def grad_on() -> Iterator[None]:
    """Run the body with autograd on, outside inference mode, whatever the caller's mode."""
    with torch.inference_mode(False), torch.enable_grad():
        yield


def plain(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor`` itself, or a copy of an inference tensor's values that autograd can use.

    Call inside :func:`grad_on`: a clone made outside inference mode is an ordinary tensor.
    """
    return tensor.clone() if tensor.is_inference() else tensor


def recorded(tensor: torch.Tensor) -> bool:
    """Whether autograd (reverse or forward mode, or a torch.func transform) tracks ``tensor``."""
    return (
        (tensor.requires_grad and torch.is_grad_enabled())
        or forward_ad.unpack_dual(tensor).tangent is not None
        or torch._C._functorch.is_functorch_wrapped_tensor(tensor)
    )
