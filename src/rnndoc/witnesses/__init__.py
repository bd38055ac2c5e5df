r"""The witnesses: each computes one result of the hand-set network its own way, and compares nothing.

* the plain-Python forward (:func:`rnndoc.reference.handset_forward`, no torch) and
  ``nn.RNN`` with the loss of its output (:func:`forward` runs both);
* the gradients of the loss four ways: sympy (:func:`sympy_gradients`), the numeric δ
  recursion (:func:`bptt_handset_gradients`), autograd (:func:`autograd_gradients`) and
  central finite differences (:func:`rnndoc.finite_differences.finite_difference_gradients`);
* the exact loss (:func:`exact_loss`);
* sympy's two splits of the :math:`W_{hh}` gradient, per use and per loss term
  (:func:`sympy_weight_hh_split`), the reference for :func:`rnndoc.bptt.gradient_split`.

Every gradient comes back keyed and shaped like :func:`rnndoc.handset.tensors`
(PyTorch's names; ``h_0`` in ``nn.RNN``'s layout (1, 1, H)). :mod:`rnndoc.verdict`
compares them.

The modules: :mod:`~rnndoc.witnesses.numeric` (float64: the forward pass by plain Python and
``nn.RNN``, the gradients by the δ recursion and by autograd), :mod:`~rnndoc.witnesses.exact`
(sympy, from the exact rationals: the gradients, the loss and the :math:`W_{hh}` splits); the
table of gradient witnesses, :data:`GRADIENT_WITNESSES`, is here.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..finite_differences import finite_difference_gradients
from .exact import exact_loss, sympy_gradients, sympy_weight_hh_split
from .numeric import Forward, autograd_gradients, bptt_handset_gradients, forward

__all__ = [
    "GRADIENT_WITNESSES",
    "Forward",
    "autograd_gradients",
    "bptt_handset_gradients",
    "exact_loss",
    "forward",
    "sympy_gradients",
    "sympy_weight_hh_split",
]

#: The gradient witnesses by the names the report and the verdict use; sympy is the reference:
#: ``"sympy"`` is :func:`sympy_gradients`, ``"bptt"`` :func:`bptt_handset_gradients`,
#: ``"autograd"`` :func:`autograd_gradients` and ``"finite_difference"``
#: :func:`rnndoc.finite_differences.finite_difference_gradients`.
#:
#: :meta hide-value:
GRADIENT_WITNESSES: dict[str, Callable[..., dict[str, torch.Tensor]]] = {
    "sympy": sympy_gradients,
    "bptt": bptt_handset_gradients,
    "autograd": autograd_gradients,
    "finite_difference": finite_difference_gradients,
}
