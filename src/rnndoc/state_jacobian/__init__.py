r"""The Jacobian of a late state with respect to an early one, over the whole state.

BPTT carries the gradient from step T back to step t through

.. math:: \frac{\partial s_T}{\partial s_t} = J_T J_{T-1} \cdots J_{t+1},
          \qquad J_k = \frac{\partial s_k}{\partial s_{k-1}},

where :math:`s_k` is everything the cell passes on: :math:`s_k = (h_k, c_k)` for the LSTM,
:math:`s_k = h_k` for the GRU and the Elman RNN. For the LSTM the cell state carries the path
:math:`\partial c_k / \partial c_{k-1} = \operatorname{diag}(f_k)`, the forget gate
(Gers, Schmidhuber and Cummins 2000); :math:`\partial h_T / \partial h_t` with :math:`c_t` held
fixed is the top-left block of the product and leaves that path out at step t. Here each
:math:`J_k` is written out from the cell's equations (:func:`lstm_step_jacobian`,
:func:`gru_step_jacobian`, :func:`rnn_step_jacobian`), the products are
:func:`state_jacobians`, and :func:`autograd_state_jacobians` is the independent witness:
autograd through the PyTorch module itself. :func:`raise_forget_bias` shifts the forget gate
towards 1, as Gers et al. (2000) and Jozefowicz, Zaremba and Sutskever (2015) advise.
The modules: :mod:`~rnndoc.state_jacobian.steps` (one step's Jacobian, per cell kind),
:mod:`~rnndoc.state_jacobian.chain` (their products over a sequence, and the autograd
witness), :mod:`~rnndoc.state_jacobian.gates` (the gate values along a sequence, and the
gate biases raised).
"""

from .chain import autograd_state_jacobians, state_jacobians
from .gates import gate_values, raise_forget_bias, raise_update_bias
from .steps import gru_step_jacobian, lstm_step_jacobian, rnn_step_jacobian

__all__ = [
    "autograd_state_jacobians",
    "gate_values",
    "gru_step_jacobian",
    "lstm_step_jacobian",
    "raise_forget_bias",
    "raise_update_bias",
    "rnn_step_jacobian",
    "state_jacobians",
]
