"""The exact witnesses: sympy's gradients, loss and W_hh splits of the hand-set network, from exact rationals.

Each differentiates or evaluates the unrolled sympy network at the exact hand-set values to
``digits`` digits and rounds once to float64; each compares nothing.
"""

from __future__ import annotations

import functools

import sympy
import torch

from .. import handset
from .._validate import check_int
from ..symbolic import bptt, direct_gradients, evaluate, symbolic_parameters, to_tensor, unroll

__all__ = ["exact_loss", "sympy_gradients", "sympy_weight_hh_split"]


def _check_digits(digits: object) -> int:
    # float64 needs 17 significant digits to round correctly; fewer would return a
    # value that only looks exact.
    return check_int("digits", digits, minimum=17)


@functools.cache
def _symbolic_handset():
    """The unrolled hand-set network with symbolic parameters and exact inputs/targets."""
    values = handset.exact()
    params = symbolic_parameters(handset.INPUT_SIZE, handset.HIDDEN_SIZE)
    net = unroll(params, values["inputs"], values["targets"])
    at = {s: values[name][k] for name in handset.PARAMETER_NAMES for k, s in enumerate(params[name])}
    return net, at


def sympy_gradients(digits: int = 50) -> dict[str, torch.Tensor]:
    r"""Gradients by direct differentiation of the unrolled sympy loss, evaluated exactly.

    sympy differentiates :math:`\mathcal{L}` (a nested expression in 14 parameter symbols) by each
    entry, then evaluates at the exact rational hand-set values to ``digits`` digits;
    the result is rounded once to float64.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    dict of str to Tensor
        As :func:`autograd_gradients`, float64.

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Examples
    --------
    >>> from rnndoc.witnesses import sympy_gradients
    >>> round(sympy_gradients()["bias_hh_l0"][0].item(), 12)
    0.73283966584
    """
    digits = _check_digits(digits)
    net, at = _symbolic_handset()
    like = handset.tensors()
    return {
        name: to_tensor(evaluate(grad, digits, subs=at), like=like[name])
        for name, grad in direct_gradients(net).items()
    }


def exact_loss(digits: int = 50) -> sympy.Float:
    """The hand-set loss, evaluated from the exact rationals to ``digits`` digits.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    sympy.Float

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Examples
    --------
    >>> from rnndoc.witnesses import exact_loss
    >>> exact_loss(20)
    0.094816267350151306784
    """
    digits = _check_digits(digits)
    net, at = _symbolic_handset()
    return evaluate(net.loss, digits, subs=at)


def sympy_weight_hh_split(digits: int = 50) -> dict[str, torch.Tensor]:
    r"""The :math:`W_{hh}` gradient of the hand-set loss split two ways by sympy, evaluated exactly.

    .. math::

        \frac{\partial \mathcal{L}}{\partial W_{hh}}
        = \sum_{s=1}^{L} \delta_s h_{s-1}^\top
        = \sum_{t=1}^{L} \frac{\partial \ell_t}{\partial W_{hh}}

    Per use s (the BPTT chapter's t'): the contribution of step s's use of :math:`W_{hh}`,
    from the rules sympy derived (:func:`rnndoc.symbolic.bptt`'s ``contributions``). Per loss
    term t: ``sympy.diff`` of :math:`\ell_t` alone (:func:`rnndoc.symbolic.direct_gradients`).
    Both are evaluated at the exact hand-set values to ``digits`` digits and rounded once.

    Parameters
    ----------
    digits : int, default 50
        Working precision, at least 17.

    Returns
    -------
    dict of str to Tensor
        ``per_use`` and ``per_loss_term``, each shape (L, H, H), float64: the references for
        :func:`rnndoc.bptt.gradient_split` summed over its loss-term axis and over its use axis.

    Raises
    ------
    TypeError, ValueError
        If ``digits`` is not an int of at least 17.

    Notes
    -----
    The two splits of the BPTT chapter's section on the shared weight (the per-use terms of
    :eq:`eq-gradients`; per loss term, :math:`\partial \ell_t / \partial W_{hh}`); the
    reference against which :func:`rnndoc.verdict.handset_gaps` holds
    :func:`rnndoc.bptt.gradient_split`.

    Examples
    --------
    >>> from rnndoc.witnesses import sympy_gradients, sympy_weight_hh_split
    >>> split = sympy_weight_hh_split()
    >>> split["per_use"].shape, bool(split["per_use"][0].eq(split["per_loss_term"][0]).all())
    (torch.Size([3, 2, 2]), False)
    >>> total = sympy_gradients()["weight_hh_l0"]
    >>> bool((split["per_use"].sum(0) - total).abs().max() < 1e-15)
    True
    """
    digits = _check_digits(digits)
    net, at = _symbolic_handset()
    like = handset.tensors()["weight_hh_l0"]  # (H, H)

    def exact(matrix: sympy.Matrix) -> torch.Tensor:
        return to_tensor(evaluate(matrix, digits, subs=at), like=like)  # (H, H)

    uses = bptt(net).contributions["weight_hh_l0"]  # delta_s h_(s-1)^T, s = 1 ... L
    terms = [direct_gradients(net, loss=ell)["weight_hh_l0"] for ell in net.step_losses]  # d l_t / d W_hh
    return {
        "per_use": torch.stack([exact(m) for m in uses]),  # (L, H, H)
        "per_loss_term": torch.stack([exact(m) for m in terms]),  # (L, H, H)
    }
