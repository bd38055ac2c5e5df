"""From-scratch forward and backward passes of PyTorch's recurrent layers (tensor algebra only).

:func:`forward` and :func:`backward` are the entry points: ``forward(module, input, hx)``
returns what ``module(input, hx)`` returns, ``backward(module, input, hx, grad_output,
grad_hx)`` the gradients autograd gives through it. The modules, lowest first:
:mod:`~rnndoc.layers.products` (the products by a weight, plain or through oneDNN);
:mod:`~rnndoc.layers.shared` (the input projection, the argument checks);
:mod:`~rnndoc.layers.rnn`, :mod:`~rnndoc.layers.lstm`, :mod:`~rnndoc.layers.gru` (each
kind's step and its backward side by side); :mod:`~rnndoc.layers.cells` (the three
``torch.nn`` cells); :mod:`~rnndoc.layers.direction` (the loop over time of one layer and
direction, and its BPTT); :mod:`~rnndoc.layers.stack` and :mod:`~rnndoc.layers.stack_backward` (the sweeps over
layers and directions, with :mod:`~rnndoc.layers.stack_arguments`, their checks);
:mod:`~rnndoc.layers.layer` (one tanh layer); :mod:`~rnndoc.layers.modules`,
:mod:`~rnndoc.layers.effective`, :mod:`~rnndoc.layers.packed` and
:mod:`~rnndoc.layers.dispatch` (reading a ``torch.nn`` module, its weights and its
arguments; ``forward``, ``backward``).
"""

from .cells import gru_cell, lstm_cell, rnn_cell
from .dispatch import backward, forward
from .gru import gru_bias_hn, gru_step, gru_step_backward
from .layer import rnn_tanh_layer
from .lstm import lstm_step, lstm_step_backward
from .rnn import rnn_step, rnn_step_backward
from .shared import input_projection

__all__ = [
    "backward",
    "forward",
    "gru_bias_hn",
    "gru_cell",
    "gru_step",
    "gru_step_backward",
    "input_projection",
    "lstm_cell",
    "lstm_step",
    "lstm_step_backward",
    "rnn_cell",
    "rnn_step",
    "rnn_step_backward",
    "rnn_tanh_layer",
]
