r"""Many-to-one classification with a tanh RNN: read a sequence, classify it at the last step.

.. math::

    \begin{aligned}
    a_t &= W_{ih} x_t + W_{hh} h_{t-1}, \\
    h_t &= \tanh(a_t), \\
    v &= W_{hy} h_T + b_y, \\
    p &= \operatorname{softmax}(v), \\
    \mathcal{L} &= -\log p_{y}
    \end{aligned}

(:math:`W_{ih}` is an ``nn.RNN``'s ``weight_ih_l0``, :math:`W_{hh}` its ``weight_hh_l0``, with
``bias=False``; :math:`W_{hy}` and :math:`b_y` are an ``nn.Linear`` head's, keyed ``linear.weight`` and
``linear.bias`` as ``named_parameters()`` names them in a model whose head is called ``linear``.)
The hand-set numbers live in :mod:`rnndoc.classification.data`; the gradients by autograd, path by
path and after one SGD step, in :mod:`rnndoc.classification.by_torch`; by sympy in
:mod:`rnndoc.classification.by_sympy`. Because the loss reads only :math:`h_T`, :math:`W_{hh}`
reaches it along three paths: its use at step 3, at step 2 (through :math:`h_3`) and at step 1
(through :math:`h_2` and :math:`h_3`); :func:`path_contributions` computes each.
"""

from .by_sympy import symbolic_gradients
from .by_torch import loss_and_gradients, path_contributions, sgd_step
from .data import SEQUENCE, TARGET, VOCABULARY, exact, tensors

__all__ = [
    "SEQUENCE",
    "TARGET",
    "VOCABULARY",
    "exact",
    "loss_and_gradients",
    "path_contributions",
    "sgd_step",
    "symbolic_gradients",
    "tensors",
]
