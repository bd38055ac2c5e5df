r"""The gates of an LSTM or GRU along a sequence, and the gate biases raised towards 1.

:func:`~rnndoc.state_jacobian.gate_values` reads :math:`i, f, g, o` or :math:`r, z, n` at
every step; :func:`~rnndoc.state_jacobian.raise_forget_bias` and
:func:`~rnndoc.state_jacobian.raise_update_bias` shift the forget gate of an LSTM, or the
update gate of a GRU, towards 1 (Gers et al. 2000; Jozefowicz et al. 2015).
"""

from __future__ import annotations

from typing import TypeVar

import torch
from torch import nn

from .._recurrent import check_flat_weights, own_parameter
from .._validate import check_float, check_instance
from ..layers import gates
from ._arguments import check_module_input

__all__ = ["gate_values", "raise_forget_bias", "raise_update_bias"]

_Module = TypeVar("_Module", bound=nn.RNNBase)


def gate_values(module: nn.LSTM | nn.GRU, input: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""The gates of an LSTM or GRU along one sequence, from :math:`s_0 = 0`, by :func:`rnndoc.layers.gates`.

    Parameters
    ----------
    module : nn.LSTM or nn.GRU
        One layer, one direction, no projection.
    input : Tensor, shape (T, H_in)

    Returns
    -------
    dict of str to Tensor, each shape (T, H)
        ``i, f, g, o`` for the LSTM, ``r, z, n`` for the GRU (PyTorch's names); row t - 1 is
        the gate at step t.

    Raises
    ------
    TypeError, ValueError
        As :func:`state_jacobians`; TypeError also for an ``nn.RNN``, which has no gates.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import gate_values
    >>> lstm = torch.nn.LSTM(1, 2, bias=False)
    >>> with torch.no_grad():
    ...     _ = lstm.weight_hh_l0.zero_()
    >>> gate_values(lstm, torch.zeros(3, 1))["f"]  # sigmoid(0) at every step
    tensor([[0.5000, 0.5000],
            [0.5000, 0.5000],
            [0.5000, 0.5000]])
    """
    check_instance("module", module, (nn.LSTM, nn.GRU), "an nn.LSTM or nn.GRU (an nn.RNN has no gates)")
    check_module_input(module, input)
    names = "ifgo" if isinstance(module, nn.LSTM) else "rzn"
    if not len(input):  # T = 0: no step, no gate (layers.gates refuses an empty sequence, as torch)
        return {name: input.new_zeros(0, module.hidden_size) for name in names}
    with torch.no_grad():
        found = gates(module, input)  # by layer: "f_l0", ... each (T, H)
    return {name: found[f"{name}_l0"] for name in names}


def _raise_bias(
    name: str, module: _Module, kind: type[_Module], block: int, gate: str, delta: float
) -> _Module:
    """Add ``delta`` to gate block ``block`` of every ``bias_ih_l{k}[_reverse]``, in place.

    A tensor shared by several layers (tied) is raised once; a bias the module recomputes on
    every call (parametrized, pruned, weight-normed) is refused, as raising it would do nothing.
    Each layer's gate sets in on ``b_ih + b_hh``: where a ``bias_hh`` is one of the raised
    tensors (tied to its ``bias_ih``), the sum holds it twice, so every raised tensor gets
    ``delta / 2`` and each sum rises by ``delta``; a tie that would raise some sums by one
    share and others by two is refused (ValueError).
    """
    check_instance(name, module, kind, f"an nn.{kind.__name__}")
    check_flat_weights(module, name)  # num_layers, bias, bidirectional as the module was built
    delta = check_float("delta", delta)
    if not module.bias:
        raise ValueError(f"{name} has no biases (bias=False): there is no {gate} bias to raise")
    size = module.hidden_size
    suffixes = ["", "_reverse"] if module.bidirectional else [""]
    layers = [f"_l{k}{suffix}" for k in range(module.num_layers) for suffix in suffixes]
    biases = {
        id(b): b for b in (own_parameter(name, module, f"bias_ih{layer}") for layer in layers)
    }  # tied: once
    # how many of the raised tensors each layer's sum b_ih + b_hh holds: 1, or 2 with bias_hh tied in
    shares = {1 + (id(module._parameters.get(f"bias_hh{layer}")) in biases) for layer in layers}
    if len(shares) > 1:
        raise ValueError(
            f"{name}'s biases are tied so that raising bias_ih would raise some layers' "
            f"{gate} sums b_ih + b_hh by delta and others by 2 * delta: untie them first"
        )
    (share,) = shares
    with torch.no_grad():
        for bias in biases.values():
            bias[block * size : (block + 1) * size] += delta / share
    return module


def raise_forget_bias(lstm: nn.LSTM, delta: float) -> nn.LSTM:
    r"""Add ``delta`` to the forget gate's bias of every layer and direction of an LSTM, in place.

    The forget gate is :math:`f_t = \sigma(W_{if} x_t + b_{if} + W_{hf} h_{t-1} + b_{hf})`:
    PyTorch keeps two bias vectors, ``bias_ih`` and ``bias_hh``, and only their sum
    :math:`b_{if} + b_{hf}` matters. This adds ``delta`` to :math:`b_{if}` (rows H to 2H of
    ``bias_ih_l{k}[_reverse]``) and leaves :math:`b_{hf}` alone, so the sum rises by ``delta``.

    Parameters
    ----------
    lstm : nn.LSTM
        With ``bias=True``.
    delta : float
        The shift; 1 is the advice of Gers et al. (2000) and Jozefowicz et al. (2015).

    Returns
    -------
    nn.LSTM
        The same module, for chaining.

    Raises
    ------
    TypeError
        If ``lstm`` is not an ``nn.LSTM`` or ``delta`` is not a number.
    ValueError
        If the LSTM has no biases, a ``bias_ih`` is recomputed by the module on every call
        (parametrized, pruned, weight-normed: raising it in place would change nothing), or
        ``delta`` is not finite. A bias shared by several layers (tied) is raised once; a
        ``bias_hh`` tied to its ``bias_ih`` (one tensor, counted twice in the sum) is raised
        by ``delta / 2``, so the sum still rises by ``delta``; ties that would raise some
        layers' sums by ``delta`` and others by ``2 delta`` are refused (ValueError).

    Notes
    -----
    Gers, Schmidhuber and Cummins (2000), section 2; Jozefowicz, Zaremba and Sutskever (2015),
    section 3 (a forget-gate bias of 1 or more).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import raise_forget_bias
    >>> lstm = torch.nn.LSTM(1, 2)
    >>> with torch.no_grad():
    ...     _ = lstm.bias_ih_l0.zero_()
    >>> raise_forget_bias(lstm, 3.0).bias_ih_l0.tolist()  # blocks i, f, g, o
    [0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]
    """
    return _raise_bias("lstm", lstm, nn.LSTM, 1, "forget-gate", delta)


def raise_update_bias(gru: nn.GRU, delta: float) -> nn.GRU:
    r"""Add ``delta`` to the update gate's bias :math:`b_{iz}` of every layer and direction of a GRU.

    The GRU's counterpart of :func:`raise_forget_bias`: :math:`z_t = \sigma(W_{iz} x_t + b_{iz}
    + W_{hz} h_{t-1} + b_{hz})` moves towards 1, and with it the additive path
    :math:`z_t \odot h_{t-1}`. In place; ``bias_hh`` is left alone.

    Parameters
    ----------
    gru : nn.GRU
        With ``bias=True``.
    delta : float

    Returns
    -------
    nn.GRU
        The same module.

    Raises
    ------
    TypeError
        If ``gru`` is not an ``nn.GRU`` or ``delta`` is not a number.
    ValueError
        If the GRU has no biases, a ``bias_ih`` is recomputed by the module on every call,
        ``delta`` is not finite, or the biases are tied unevenly (as :func:`raise_forget_bias`;
        a ``bias_hh`` tied to its ``bias_ih`` is handled as there: :math:`b_{iz} + b_{hz}`
        rises by ``delta``).

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation (rows H to 2H of ``bias_ih`` are :math:`b_{iz}`).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import raise_update_bias
    >>> gru = torch.nn.GRU(1, 1)
    >>> with torch.no_grad():
    ...     _ = gru.bias_ih_l0.zero_()
    >>> raise_update_bias(gru, 2.0).bias_ih_l0.tolist()  # blocks r, z, n
    [0.0, 2.0, 0.0]
    """
    return _raise_bias("gru", gru, nn.GRU, 1, "update-gate", delta)
