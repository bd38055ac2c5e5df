"""From-scratch forward passes of PyTorch's recurrent layers (tensor algebra only).

:func:`forward` is the one entry point: ``forward(module, input, hx)`` returns what
``module(input, hx)`` returns. Below it, the cell equations (:func:`rnn_cell`,
:func:`lstm_cell`, :func:`gru_cell`) and the layer stack (:mod:`rnndoc.layers.stack`)
take tensors and PyTorch's hyperparameter names.
"""

from .cells import gru_cell, lstm_cell, rnn_cell
from .modules import forward
from .rnn import rnn_tanh_layer

__all__ = ["forward", "gru_cell", "lstm_cell", "rnn_cell", "rnn_tanh_layer"]
