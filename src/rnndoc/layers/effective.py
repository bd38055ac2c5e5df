"""What a module's call computes with, read as torch reads it, and what else the call would run.

``module(input)`` runs more than the class's equations: its forward pre-hooks (pruning
recomputes ``weight = weight_orig * weight_mask`` in one), its forward hooks, and an
overridden ``forward``. The hooks that recompute a weight are followed (pruning,
``torch.nn.utils.weight_norm``, and ``spectral_norm`` in eval mode, where it does no power
iteration); everything else is refused by name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from torch import nn
from torch.nn.modules import module as _module_hooks
from torch.nn.utils import prune
from torch.nn.utils.spectral_norm import SpectralNorm
from torch.nn.utils.weight_norm import WeightNorm

__all__: list[str] = []  # internal: used by the dispatch


def _weight_hooks(module: nn.Module) -> dict[str, Callable[[nn.Module], torch.Tensor]]:
    """The forward pre-hooks that recompute a weight on every call, by the weight's name."""
    hooks: dict[str, Callable[[nn.Module], torch.Tensor]] = {}
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, prune.BasePruningMethod):
            hooks[hook._tensor_name] = hook.apply_mask  # weight = weight_orig * weight_mask
        elif isinstance(hook, WeightNorm):
            hooks[hook.name] = hook.compute_weight  # weight = g * v / |v|
        elif isinstance(hook, SpectralNorm) and not module.training:
            hooks[hook.name] = functools.partial(hook.compute_weight, do_power_iteration=False)
    return hooks


def effective_tensor(module: nn.Module, name: str) -> torch.Tensor:
    """The module's tensor ``name``, as the module computes with it (parametrized or pruned too).

    A weight that a forward pre-hook recomputes on every call (pruning's
    ``weight_orig * weight_mask``, ``weight_norm``'s ``g * v / |v|``) is recomputed so: the
    attribute itself is stale after ``weight_orig`` or ``v`` changes.
    """
    hooks = _weight_hooks(module)
    if name in hooks:
        return hooks[name](module)
    value = getattr(module, name, None)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"module has no tensor {name!r} (got {type(value).__name__}); it cannot be run")
    return value


def check_runs_as_torch_class(module: nn.Module, kinds: tuple[type[nn.Module], ...]) -> None:
    """Refuse what ``module(input)`` would run besides the class's equations: hooks, an own forward."""
    base = next(kind for kind in kinds if isinstance(module, kind))
    if type(module).forward is not base.forward:
        raise TypeError(
            f"module is a {type(module).__name__}, which overrides {base.__name__}.forward: rnndoc.layers "
            f"computes {base.__name__}'s equations only"
        )
    followed = len(_weight_hooks(module))  # each weight hook recomputes one weight
    pre_hooks = len(module._forward_pre_hooks) > followed
    global_hooks = _module_hooks._global_forward_hooks or _module_hooks._global_forward_pre_hooks
    if pre_hooks or module._forward_hooks or global_hooks:
        raise TypeError(
            "module has forward hooks (or global module hooks are registered), which module(input) runs "
            "and rnndoc.layers cannot: remove them, or apply them to the result yourself"
        )


def check_no_backward_hooks(module: nn.Module) -> None:
    """Refuse backward hooks: they change what autograd returns through ``module(input)``."""
    global_hooks = _module_hooks._global_backward_hooks or _module_hooks._global_backward_pre_hooks
    if module._backward_hooks or module._backward_pre_hooks or global_hooks:
        raise TypeError(
            "module has backward hooks (or global module backward hooks are registered), which change "
            "the gradients autograd gives and rnndoc.layers "
            "cannot run: remove them, or apply them to the result yourself"
        )
