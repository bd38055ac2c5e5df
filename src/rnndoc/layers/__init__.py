"""From-scratch forward passes of PyTorch's recurrent layers (tensor algebra only)."""

from .rnn import rnn_tanh_layer

__all__ = ["rnn_tanh_layer"]
