"""A ``torch.nn`` recurrent module read for the chapters' helpers, as :mod:`rnndoc.layers` reads it.

The one module outside :mod:`rnndoc.layers` that imports the layers' readers of a module
(``rnndoc.layers.boundary.effective_tensor``, which follows parametrizations, pruning,
``weight_norm`` and ``spectral_norm`` in eval mode; the refusals of hooks and of an
overridden ``forward``): the helpers of :mod:`rnndoc.vanishing`, :mod:`rnndoc.state_jacobian`
and :mod:`rnndoc.truncated` check a module here, once, at their front door.
"""

from __future__ import annotations

import torch
from torch import nn

from ._validate import check_instance, check_same_device, check_same_dtype, check_tensor
from .layers.boundary import effective_tensor
from .layers.checks import check_flat_weights, check_no_backward_hooks, check_runs_as_torch_class

__all__: list[str] = []  # internal: the chapters' helpers check their module here

Weights = tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]
RECURRENT = (nn.RNN, nn.LSTM, nn.GRU)


def check_kind_and_hooks(
    name: str,
    module: object,
    kinds: tuple[type[nn.Module], ...] = RECURRENT,
    what: str = "an nn.RNN, nn.LSTM or nn.GRU",
    *,
    autograd: bool = False,
) -> None:
    """Refuse what is not one of ``kinds``, or what its call would run besides the class's equations.

    Forward hooks and an overridden ``forward`` are refused (TypeError), as
    :func:`rnndoc.layers.forward` refuses them; with ``autograd`` (the helper differentiates
    through the module) backward hooks too.
    """
    check_instance(name, module, kinds, what)
    assert isinstance(module, nn.Module)
    try:
        check_runs_as_torch_class(module, kinds)
        if autograd:
            check_no_backward_hooks(module)
    except TypeError as error:
        if name == "module":
            raise
        raise TypeError(f"{name}: {error}") from None


def check_one_layer(name: str, module: nn.RNNBase) -> None:
    """Refuse more than one layer, two directions or a projection (ValueError, with the values)."""
    proj_size = getattr(module, "proj_size", 0)  # absent on modules pickled by an old torch
    if module.num_layers != 1 or module.bidirectional or proj_size:
        raise ValueError(
            f"{name} must have one layer, one direction and no projection, got num_layers="
            f"{module.num_layers}, bidirectional={module.bidirectional}, proj_size={proj_size}"
        )


def rnn_nonlinearity(name: str, module: nn.RNN) -> str:
    """``"tanh"`` or ``"relu"``, read from ``module.mode`` as torch dispatches on it (not ``nonlinearity``).

    ``nn.RNN`` sets ``mode`` from ``nonlinearity`` once, in ``__init__``; torch's call reads
    ``mode`` only, so a ``nonlinearity`` changed afterwards changes nothing. Another ``mode``
    is refused (ValueError), as :func:`rnndoc.layers.forward` refuses it.
    """
    mode = module.mode
    if mode not in ("RNN_TANH", "RNN_RELU"):
        raise ValueError(f"{name}.mode must be 'RNN_TANH' or 'RNN_RELU', got {mode!r}")
    return "tanh" if mode == "RNN_TANH" else "relu"


def weight_names(module: nn.RNNBase, name: str = "module") -> tuple[str, ...]:
    """The layer-0 weights the module computes with: the biases only with ``bias=True``.

    ``num_layers``, ``bias`` and ``bidirectional`` changed after construction are refused
    (ValueError naming the attribute), as torch's call refuses them.
    """
    check_flat_weights(module, name)
    kinds = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if module.bias else ())
    return tuple(f"{kind}_l0" for kind in kinds)


def layer_weights(
    name: str, module: nn.RNNBase, input: torch.Tensor, input_name: str = "input"
) -> dict[str, torch.Tensor]:
    """The layer-0 weights as the module computes with them, checked against ``input``.

    Each must be a real floating tensor of ``input``'s dtype and device (the message names
    ``{name}.weight_ih_l0`` and the like, and the input by ``input_name``).
    """
    weights = {}
    for own in weight_names(module, name):
        weights[own] = check_tensor(f"{name}.{own}", effective_tensor(module, own))
    check_same_dtype(**{f"{name}.weight_ih_l0": weights["weight_ih_l0"], input_name: input})
    check_same_dtype(**{f"{name}.{own}": w for own, w in weights.items()})
    check_same_device(input_name, input, **{f"{name}.{own}": w for own, w in weights.items()})
    return weights


def as_weights(weights: dict[str, torch.Tensor]) -> Weights:
    """(weight_ih, weight_hh, bias_ih, bias_hh) from :func:`layer_weights`; a missing bias is None."""
    return (
        weights["weight_ih_l0"],
        weights["weight_hh_l0"],
        weights.get("bias_ih_l0"),
        weights.get("bias_hh_l0"),
    )


def own_parameter(name: str, module: nn.Module, own: str) -> nn.Parameter:
    """``module``'s parameter ``own`` itself, refused (ValueError) where the module computes it.

    A parametrized, pruned or weight-normed tensor is recomputed from others on each call:
    changing it in place would not change what the module computes.
    """
    parameter = module._parameters.get(own)
    if parameter is None or parameter is not effective_tensor(module, own):
        raise ValueError(
            f"{name}.{own} is recomputed from other tensors on every call (a parametrization, pruning, "
            "weight_norm or spectral_norm): changing it in place would not change what the module "
            "computes; change the underlying parameter (or remove the reparametrization) first"
        )
    return parameter
