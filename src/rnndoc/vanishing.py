r"""How the gradient of a late state with respect to an early one grows or shrinks.

For the tanh RNN, :math:`h_k = \tanh(a_k)` with :math:`a_k = W_{ih} x_k + b_{ih} + W_{hh} h_{k-1} + b_{hh}`, so

.. math::

    \frac{\partial h_T}{\partial h_t} = \prod_{k=T}^{t+1} \operatorname{diag}(1 - h_k^2)\, W_{hh},
    \qquad
    \Bigl\lVert \frac{\partial h_T}{\partial h_t} \Bigr\rVert_2 \le \sigma_{\max}(W_{hh})^{T-t}

since :math:`|\tanh'| \le 1`. LSTM and GRU weights are stacked per gate, so there the same
norm is obtained by autograd through the from-scratch cells.
"""

from __future__ import annotations

import torch
from torch import nn

from ._autograd import grad_on, plain
from ._recurrent import as_weights, check_kind_and_hooks, check_one_layer, layer_weights, rnn_nonlinearity
from ._validate import check_same_device, check_same_dtype, check_tensor
from .layers import gru_cell, lstm_cell, rnn_cell

__all__ = ["autograd_state_gradient_norms", "state_gradient_norms"]


def _spectral_norm(matrix: torch.Tensor) -> torch.Tensor:
    r""":math:`\lVert A \rVert_2`; NaN if an entry is NaN, else infinity if one is infinite.

    torch's SVD refuses a non-finite matrix; the norm is at least the largest entry's magnitude,
    so an infinite entry makes it infinite, and a NaN propagates as it does through torch.
    """
    if bool(torch.isfinite(matrix).all()):
        return torch.linalg.matrix_norm(matrix, ord=2)
    return matrix.new_tensor(float("nan") if bool(matrix.isnan().any()) else float("inf"))


def _check_norm_input(name: str, tensor: torch.Tensor) -> None:
    """Refuse what ``torch.linalg.matrix_norm`` cannot take: a low-precision dtype, or no values."""
    if tensor.dtype in (torch.float16, torch.bfloat16):
        raise TypeError(
            f"{name} must be float32 or float64, got {tensor.dtype}: torch.linalg.matrix_norm "
            "(the spectral norm) does not support low-precision dtypes; convert with .float() first"
        )
    if tensor.device.type == "meta":
        raise ValueError(f"{name} must hold values, got a tensor on the meta device")


def state_gradient_norms(weight_hh: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    r"""Spectral norms of :math:`\partial h_T / \partial h_t` for a tanh RNN, from the Jacobian product (:eq:`eq-jacobian-product`).

    .. math:: \frac{\partial h_T}{\partial h_t} = \prod_{k=T}^{t+1} \operatorname{diag}(1 - h_k^2)\, W_{hh}

    Parameters
    ----------
    weight_hh : Tensor, shape (H, H)
    hidden : Tensor, shape (T, H)
        :math:`h_1 \dots h_T` of one sequence (the tanh RNN's output, unbatched).

    Returns
    -------
    Tensor, shape (T + 1,)
        Entry ``d`` is :math:`\lVert \partial h_T / \partial h_{T-d} \rVert_2`, for distances
        d = 0 ... T (entry 0 is the identity's norm, 1).

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above, or the dtypes or devices
        differ; TypeError for float16 or bfloat16, which ``torch.linalg.matrix_norm`` does
        not support, and ValueError on the meta device, which holds no values.

    A product with a NaN entry has norm NaN, one with an infinite entry (and no NaN) infinity:
    NaN and infinities propagate, where ``torch.linalg.matrix_norm`` would refuse them.

    Notes
    -----
    Pascanu, Mikolov and Bengio (2013), section 2.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.vanishing import state_gradient_norms
    >>> state_gradient_norms(0.5 * torch.eye(2), torch.zeros(3, 2))  # tanh' = 1 at h = 0
    tensor([1.0000, 0.5000, 0.2500, 0.1250])
    """
    check_tensor("weight_hh", weight_hh, (None, None), "(H, H)")
    size = weight_hh.shape[0]
    check_tensor("weight_hh", weight_hh, (size, size), "(H, H)")
    check_tensor("hidden", hidden, (None, size), "(T, H)")
    check_same_dtype(weight_hh=weight_hh, hidden=hidden)
    check_same_device("weight_hh", weight_hh, hidden=hidden)
    _check_norm_input("weight_hh", weight_hh)
    product = torch.eye(size, dtype=weight_hh.dtype, device=weight_hh.device)  # dh_T/dh_T
    norms = [_spectral_norm(product)]
    for h_k in reversed(hidden):  # k = T, T-1, ..., 1
        product = product @ (torch.diag(1 - h_k**2) @ weight_hh)  # (H, H): dh_T/dh_(k-1)
        norms.append(_spectral_norm(product))
    return torch.stack(norms)  # (T + 1,)


def autograd_state_gradient_norms(
    module: nn.RNNBase, input: torch.Tensor, h_0: torch.Tensor | None = None
) -> torch.Tensor:
    r"""Spectral norms of :math:`\partial h_T / \partial h_t` by autograd, for a one-layer RNN, LSTM or GRU.

    The sequence is run step by step with :func:`rnndoc.layers.rnn_cell`, ``lstm_cell`` or
    ``gru_cell`` on the module's layer-0 weights; for each t, the steps after t are run again
    from :math:`h_t` as a variable and ``torch.autograd.functional.jacobian`` gives
    :math:`\partial h_T / \partial h_t`. For the LSTM the cell state :math:`c_t` is held at
    its value: this is the Jacobian along the hidden-state path.

    Parameters
    ----------
    module : nn.RNN, nn.LSTM or nn.GRU
        One layer, one direction, no projection.
    input : Tensor, shape (T, H_in)
        One unbatched sequence.
    h_0 : Tensor, shape (H,), optional
        Default zeros (the LSTM's c_0 is zeros).

    Returns
    -------
    Tensor, shape (T + 1,)
        As :func:`state_gradient_norms`: entry ``d`` is the norm at distance ``d``.

    Raises
    ------
    TypeError
        If ``module`` is not an ``nn.RNN``, ``nn.LSTM`` or ``nn.GRU``, has forward hooks or
        overrides ``forward``, ``input`` or ``h_0`` is not a floating tensor, the dtypes
        of ``input``, ``h_0`` and the module differ, or they are float16 or bfloat16 (which
        ``torch.linalg.matrix_norm`` does not support).
    ValueError
        If it has more than one layer, two directions or a projection, ``input`` is not
        (T, H_in), ``h_0`` not (H,), they are not on the module's device or on the meta
        device (no values), or an ``nn.RNN``'s ``mode`` is neither ``'RNN_TANH'`` nor
        ``'RNN_RELU'``.

    Notes
    -----
    An ``nn.RNN`` runs with the nonlinearity of its ``mode``, which torch's call reads (not
    ``nonlinearity``, read by torch only in ``__init__``). The answer does not depend on the
    caller's grad mode: autograd runs inside ``torch.no_grad()`` or ``torch.inference_mode()``
    too, on copies of inference tensors; the result does not require grad.
    The weights are read as the module computes with them (parametrized, pruned,
    ``weight_norm``, or ``spectral_norm`` in eval mode).
    The independent witness for :eq:`eq-jacobian-product` (chapter "Vanishing and exploding
    gradients, measured"); for the LSTM and GRU, the hidden-state path of PyTorch's
    ``torch.nn.LSTM`` and ``torch.nn.GRU`` equations.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.vanishing import autograd_state_gradient_norms
    >>> rnn = torch.nn.RNN(2, 3, dtype=torch.float64)
    >>> autograd_state_gradient_norms(rnn, torch.zeros(4, 2, dtype=torch.float64)).shape
    torch.Size([5])
    """
    check_kind_and_hooks("module", module)
    check_one_layer("module", module)
    check_tensor("input", input, (None, module.input_size), "(T, H_in)")
    weights = as_weights(layer_weights("module", module, input))
    size = module.hidden_size
    h = input.new_zeros(size) if h_0 is None else check_tensor("h_0", h_0, (size,), "(H,)")
    check_same_dtype(input=input, h_0=h)
    check_same_device("input", input, h_0=h)
    _check_norm_input("input", input)
    nonlinearity = rnn_nonlinearity("module", module) if isinstance(module, nn.RNN) else "tanh"
    with grad_on():  # the same norms under no_grad or inference_mode
        ours = [None if w is None else plain(w) for w in weights]  # computed in the caller's mode
        return _autograd_norms(module, plain(input), plain(h), ours, nonlinearity)


def _autograd_norms(module, input, h, weights, nonlinearity):
    """The body of :func:`autograd_state_gradient_norms`, on checked arguments, with autograd on."""
    c = input.new_zeros(module.hidden_size)

    def step(x_t, h, c):
        if isinstance(module, nn.LSTM):
            return lstm_cell(x_t, (h, c), *weights)
        if isinstance(module, nn.GRU):
            return gru_cell(x_t, h, *weights), c
        return rnn_cell(x_t, h, *weights, nonlinearity=nonlinearity), c

    states = [(h, c)]
    with torch.no_grad():
        for x_t in input:
            h, c = step(x_t, h, c)
            states.append((h, c))

    def run_from(t):
        def final_h(h_t):
            h, c = h_t, states[t][1]
            for x_k in input[t:]:
                h, c = step(x_k, h, c)
            return h  # (H,)

        return final_h

    length = input.shape[0]
    norms = []
    for distance in range(length + 1):
        t = length - distance
        jacobian = torch.autograd.functional.jacobian(run_from(t), states[t][0])  # (H, H)
        norms.append(_spectral_norm(jacobian))
    return torch.stack(norms).detach()  # (T + 1,)
