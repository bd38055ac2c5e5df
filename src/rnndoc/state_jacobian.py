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
"""

from __future__ import annotations

from typing import TypeVar

import torch
from torch import nn

from ._validate import check_float, check_instance, check_same_dtype, check_tensor
from .layers import gru_cell, lstm_cell, rnn_cell

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


def _preactivation(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh) -> torch.Tensor:
    """:math:`W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}` for one unbatched step, all gate blocks."""
    a = weight_ih @ x_t + weight_hh @ h_prev  # (G*H,)
    for bias in (bias_ih, bias_hh):
        if bias is not None:
            a = a + bias  # (G*H,)
    return a


def _lstm_gates(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh) -> tuple[torch.Tensor, ...]:
    """i, f, g, o of one unbatched LSTM step, each (H,)."""
    a_i, a_f, a_g, a_o = _preactivation(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh).chunk(4)
    return torch.sigmoid(a_i), torch.sigmoid(a_f), torch.tanh(a_g), torch.sigmoid(a_o)


def _gru_gates(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh) -> tuple[torch.Tensor, ...]:
    """r, z, n of one unbatched GRU step and W_hn h_(t-1) + b_hn, each (H,)."""
    x_r, x_z, x_n = (weight_ih @ x_t if bias_ih is None else weight_ih @ x_t + bias_ih).chunk(3)
    hh_r, hh_z, hh_n = (weight_hh @ h_prev if bias_hh is None else weight_hh @ h_prev + bias_hh).chunk(3)
    r, z = torch.sigmoid(x_r + hh_r), torch.sigmoid(x_z + hh_z)
    return r, z, torch.tanh(x_n + r * hh_n), hh_n


def _step_args(
    gates: int,
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None,
    bias_hh: torch.Tensor | None,
    c_prev: torch.Tensor | None = None,
) -> int:
    """Check one unbatched step's arguments (shapes, one dtype, one device); return H."""
    check_tensor("weight_hh", weight_hh, (None, None), "(G*H, H)")
    size = weight_hh.shape[1]
    check_tensor("weight_hh", weight_hh, (gates * size, size), f"({gates}H, H)")
    check_tensor("h_prev", h_prev, (size,), "(H,)")
    check_tensor("x_t", x_t, (None,), "(H_in,)")
    check_tensor("weight_ih", weight_ih, (gates * size, x_t.shape[0]), f"({gates}H, H_in)")
    given = {"x_t": x_t, "h_prev": h_prev, "weight_ih": weight_ih, "weight_hh": weight_hh}
    for name, bias in (("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if bias is not None:
            given[name] = check_tensor(name, bias, (gates * size,), f"({gates}H,)")
    if gates == 4:
        given["c_prev"] = check_tensor("c_prev", c_prev, (size,), "(H,)")
    check_same_dtype(**given)
    _check_same_device(**given)
    return size


def _check_same_device(**tensors: torch.Tensor) -> None:
    """Raise ValueError naming the first tensor on another device than the first one."""
    (first, reference), *others = tensors.items()
    for name, tensor in others:
        if tensor.device != reference.device:
            raise ValueError(
                f"{name} must be on the device of {first} ({reference.device}), got {tensor.device}"
            )


def rnn_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The step Jacobian of the tanh RNN, :math:`\partial h_t / \partial h_{t-1}`.

    .. math:: h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),\qquad
              \frac{\partial h_t}{\partial h_{t-1}} = \operatorname{diag}(1 - h_t^2)\, W_{hh}

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (H, H_in)
    weight_hh : Tensor, shape (H, H)
    bias_ih, bias_hh : Tensor, shape (H,), optional

    Returns
    -------
    Tensor, shape (H, H)

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    Pascanu, Mikolov and Bengio (2013), section 2; PyTorch's ``torch.nn.RNN`` documentation.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import rnn_step_jacobian
    >>> rnn_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(2, 1), 0.5 * torch.eye(2))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    _step_args(1, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)
    h_t = torch.tanh(_preactivation(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh))  # (H,)
    return (1 - h_t**2)[:, None] * weight_hh  # (H, H): diag(1 - h_t^2) W_hh


def lstm_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    c_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The LSTM's step Jacobian over its whole state, :math:`\partial (h_t, c_t) / \partial (h_{t-1}, c_{t-1})`.

    With :math:`c_t = f_t \odot c_{t-1} + i_t \odot g_t`, :math:`h_t = o_t \odot \tanh c_t`,
    :math:`\sigma' = \sigma (1 - \sigma)`, :math:`\tanh' = 1 - \tanh^2` and
    :math:`W_{hi}, W_{hf}, W_{hg}, W_{ho}` the (H, H) blocks of ``weight_hh``:

    .. math::

        \frac{\partial c_t}{\partial c_{t-1}} &= \operatorname{diag}(f_t),\\
        \frac{\partial c_t}{\partial h_{t-1}} &= \operatorname{diag}(c_{t-1} \odot f_t') W_{hf}
            + \operatorname{diag}(g_t \odot i_t') W_{hi}\\
            &\quad + \operatorname{diag}(i_t \odot g_t') W_{hg},\\
        \frac{\partial h_t}{\partial c_{t-1}} &= D_t \operatorname{diag}(f_t),\\
        \frac{\partial h_t}{\partial h_{t-1}} &= \operatorname{diag}(\tanh c_t \odot o_t') W_{ho}
            + D_t \frac{\partial c_t}{\partial h_{t-1}},\\
        D_t &= \operatorname{diag}\bigl(o_t \odot (1 - \tanh^2 c_t)\bigr)

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev, c_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (4H, H_in)
        Blocks ``i, f, g, o``, as ``weight_ih_l0`` of ``torch.nn.LSTM``.
    weight_hh : Tensor, shape (4H, H)
    bias_ih, bias_hh : Tensor, shape (4H,), optional

    Returns
    -------
    Tensor, shape (2H, 2H)
        The blocks :math:`\begin{bmatrix} \partial h_t/\partial h_{t-1} & \partial h_t/\partial c_{t-1}
        \\ \partial c_t/\partial h_{t-1} & \partial c_t/\partial c_{t-1} \end{bmatrix}`.

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    The cell of PyTorch's ``torch.nn.LSTM`` documentation (no projection); the forget gate is
    Gers, Schmidhuber and Cummins (2000).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import lstm_step_jacobian
    >>> J = lstm_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(2),
    ...                        torch.zeros(8, 1), torch.zeros(8, 2))
    >>> J[2:, 2:]  # dc_t/dc_(t-1) = diag(f_t), and f_t = sigmoid(0) = 1/2
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    size = _step_args(4, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh, c_prev)
    i, f, g, o = _lstm_gates(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)  # (H,) each
    w_i, w_f, w_g, w_o = weight_hh.split(size)  # (H, H) each
    tanh_c = torch.tanh(f * c_prev + i * g)  # (H,): tanh(c_t)
    dc_dh = (
        (c_prev * f * (1 - f))[:, None] * w_f
        + (g * i * (1 - i))[:, None] * w_i
        + (i * (1 - g**2))[:, None] * w_g
    )  # (H, H)
    dc_dc = torch.diag(f)  # (H, H)
    d = o * (1 - tanh_c**2)  # (H,): the diagonal of D_t = dh_t/dc_t
    dh_dh = (tanh_c * o * (1 - o))[:, None] * w_o + d[:, None] * dc_dh  # (H, H)
    dh_dc = torch.diag(d * f)  # (H, H)
    return torch.cat([torch.cat([dh_dh, dh_dc], dim=1), torch.cat([dc_dh, dc_dc], dim=1)])  # (2H, 2H)


def gru_step_jacobian(
    x_t: torch.Tensor,
    h_prev: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor | None = None,
    bias_hh: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""The GRU's step Jacobian :math:`\partial h_t / \partial h_{t-1}` (PyTorch's GRU, gates r, z, n).

    With :math:`h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}`,
    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn}))` and
    :math:`\sigma' = \sigma(1 - \sigma)`:

    .. math::

        \frac{\partial h_t}{\partial h_{t-1}} &= \operatorname{diag}(z_t)
            + \operatorname{diag}\bigl((h_{t-1} - n_t) \odot z_t'\bigr) W_{hz}\\
            &\quad + \operatorname{diag}\bigl((1 - z_t) \odot (1 - n_t^2)\bigr)\, M_t,\\
        M_t &= \operatorname{diag}(r_t) W_{hn}
            + \operatorname{diag}\bigl((W_{hn} h_{t-1} + b_{hn}) \odot r_t'\bigr) W_{hr}

    (:math:`M_t` is the derivative of the candidate's pre-activation.)
    The first term is the additive path: :math:`z_t \odot h_{t-1}` passes the old state on,
    scaled by the update gate, as :math:`f_t \odot c_{t-1}` does in the LSTM.

    Parameters
    ----------
    x_t : Tensor, shape (H_in,)
    h_prev : Tensor, shape (H,)
    weight_ih : Tensor, shape (3H, H_in)
        Blocks ``r, z, n``, as ``weight_ih_l0`` of ``torch.nn.GRU``.
    weight_hh : Tensor, shape (3H, H)
    bias_ih, bias_hh : Tensor, shape (3H,), optional

    Returns
    -------
    Tensor, shape (H, H)

    Raises
    ------
    TypeError, ValueError
        If an argument is not a floating tensor of the shape above.

    Notes
    -----
    PyTorch's ``torch.nn.GRU`` documentation; Cho et al. (2014).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import gru_step_jacobian
    >>> gru_step_jacobian(torch.zeros(1), torch.zeros(2), torch.zeros(6, 1), torch.zeros(6, 2))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    size = _step_args(3, x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)
    r, z, n, hh_n = _gru_gates(x_t, h_prev, weight_ih, weight_hh, bias_ih, bias_hh)  # (H,) each
    w_r, w_z, w_n = weight_hh.split(size)  # (H, H) each
    dn_dh = r[:, None] * w_n + (hh_n * r * (1 - r))[:, None] * w_r  # (H, H): d(pre-activation of n)/dh
    return (
        torch.diag(z) + ((h_prev - n) * z * (1 - z))[:, None] * w_z + ((1 - z) * (1 - n**2))[:, None] * dn_dh
    )  # (H, H)


Recurrent = nn.RNN | nn.LSTM | nn.GRU
Weights = tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor | None]
_Module = TypeVar("_Module", bound=nn.RNNBase)


def _check_arguments(module: Recurrent, input: torch.Tensor) -> Weights:
    """Check the module (kind, one layer...) and the sequence (shape, dtype, device); its weights."""
    check_instance("module", module, (nn.RNN, nn.LSTM, nn.GRU), "an nn.RNN, nn.LSTM or nn.GRU")
    if module.num_layers != 1 or module.bidirectional or module.proj_size:
        raise ValueError("module must have one layer, one direction and no projection")
    if isinstance(module, nn.RNN) and module.nonlinearity != "tanh":
        raise ValueError(f"module must be a tanh RNN, got nonlinearity={module.nonlinearity!r}")
    check_tensor("input", input, (None, module.input_size), "(T, H_in)")
    weight_ih, weight_hh = (getattr(module, f"weight_{k}_l0") for k in ("ih", "hh"))
    bias_ih, bias_hh = (getattr(module, f"bias_{k}_l0") if module.bias else None for k in ("ih", "hh"))
    check_same_dtype(weight_ih_l0=weight_ih, input=input)
    _check_same_device(weight_ih_l0=weight_ih, input=input)
    return weight_ih, weight_hh, bias_ih, bias_hh


def _state_size(module: Recurrent) -> int:
    return 2 * module.hidden_size if isinstance(module, nn.LSTM) else module.hidden_size


def state_jacobians(module: Recurrent, input: torch.Tensor) -> torch.Tensor:
    r"""Every :math:`\partial s_T / \partial s_t` of one sequence, as products of step Jacobians.

    .. math:: \frac{\partial s_T}{\partial s_{T-d}} = J_T J_{T-1} \cdots J_{T-d+1},
              \qquad J_k = \frac{\partial s_k}{\partial s_{k-1}}

    with :math:`s_k = (h_k, c_k)` for an LSTM (:func:`lstm_step_jacobian`) and :math:`s_k = h_k`
    for a GRU (:func:`gru_step_jacobian`) or a tanh RNN (:func:`rnn_step_jacobian`). The states
    come from :func:`rnndoc.layers.lstm_cell`, ``gru_cell`` or ``rnn_cell`` on the module's
    layer-0 weights, from :math:`s_0 = 0`.

    Parameters
    ----------
    module : nn.RNN (tanh), nn.LSTM or nn.GRU
        One layer, one direction, no projection; ``batch_first`` does not matter.
    input : Tensor, shape (T, H_in)
        One unbatched sequence, in the module's dtype.

    Returns
    -------
    Tensor, shape (T + 1, S, S)
        Entry ``d`` is :math:`\partial s_T / \partial s_{T-d}` for the distance d = 0 ... T
        (entry 0 is the identity); S = 2H for the LSTM (h first, then c), H otherwise. For the
        LSTM, ``[d, :H, :H]`` is :math:`\partial h_T / \partial h_{T-d}` with :math:`c_{T-d}`
        held fixed.

    Raises
    ------
    TypeError
        If ``module`` is not one of the three, or ``input`` not a floating tensor.
    ValueError
        If the module has more than one layer, two directions, a projection or the ReLU
        nonlinearity, or ``input`` is not (T, H_in).

    Notes
    -----
    The chain rule of BPTT (Werbos 1990); the step Jacobians as in their functions.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import state_jacobians
    >>> lstm = torch.nn.LSTM(2, 3, dtype=torch.float64)
    >>> products = state_jacobians(lstm, torch.zeros(4, 2, dtype=torch.float64))
    >>> products.shape, torch.equal(products[0], torch.eye(6, dtype=torch.float64))
    (torch.Size([5, 6, 6]), True)
    """
    weights = _check_arguments(module, input)
    h = c = input.new_zeros(module.hidden_size)  # (H,)
    steps = []
    with torch.no_grad():
        for x_t in input:
            if isinstance(module, nn.LSTM):
                steps.append(lstm_step_jacobian(x_t, h, c, *weights))  # (2H, 2H)
                h, c = lstm_cell(x_t, (h, c), *weights)
            elif isinstance(module, nn.GRU):
                steps.append(gru_step_jacobian(x_t, h, *weights))  # (H, H)
                h = gru_cell(x_t, h, *weights)
            else:
                steps.append(rnn_step_jacobian(x_t, h, *weights))  # (H, H)
                h = rnn_cell(x_t, h, *weights)
        products = [torch.eye(_state_size(module), dtype=input.dtype, device=input.device)]  # ds_T/ds_T
        for jacobian in reversed(steps):  # k = T, T-1, ..., 1
            products.append(products[-1] @ jacobian)  # (S, S): ds_T/ds_(k-1)
    return torch.stack(products)  # (T + 1, S, S)


def autograd_state_jacobians(module: Recurrent, input: torch.Tensor) -> torch.Tensor:
    r"""The same Jacobians as :func:`state_jacobians`, by autograd through the PyTorch module.

    The module is run one step at a time from :math:`s_0 = 0` (``module(x_t, hx)`` on a
    length-1 sequence), so that every state :math:`s_t` is a node of one graph; then one
    backward pass per entry of :math:`s_T` gives that row of every :math:`\partial s_T /
    \partial s_t` at once. Nothing of rnndoc is used: this is the independent witness.

    Parameters
    ----------
    module : nn.RNN (tanh), nn.LSTM or nn.GRU
        One layer, one direction, no projection.
    input : Tensor, shape (T, H_in)

    Returns
    -------
    Tensor, shape (T + 1, S, S)
        As :func:`state_jacobians`.

    Raises
    ------
    TypeError, ValueError
        As :func:`state_jacobians`.

    Examples
    --------
    >>> import torch
    >>> from rnndoc.state_jacobian import autograd_state_jacobians, state_jacobians
    >>> gru = torch.nn.GRU(2, 3, dtype=torch.float64)
    >>> x = torch.ones(5, 2, dtype=torch.float64)
    >>> gap = (autograd_state_jacobians(gru, x) - state_jacobians(gru, x)).abs().max().item()
    >>> gap < 1e-15
    True
    """
    _check_arguments(module, input)
    size = module.hidden_size
    s = input.new_zeros(_state_size(module), requires_grad=True)  # (S,): s_0
    states = [s]
    for x_t in input:
        if isinstance(module, nn.LSTM):
            _, (h, c) = module(x_t[None], (s[None, :size], s[None, size:]))  # (1, H) each
            s = torch.cat([h[0], c[0]])  # (2H,)
        else:
            _, h = module(x_t[None], s[None])  # (1, H)
            s = h[0]  # (H,)
        states.append(s)
    rows = [torch.autograd.grad(s[k], states, retain_graph=True) for k in range(s.shape[0])]
    # rows[k][t] is row k of ds_T/ds_t; the distance d = T - t runs the other way.
    return torch.stack([torch.stack([row[t] for row in rows]) for t in reversed(range(len(states)))])


def gate_values(module: nn.LSTM | nn.GRU, input: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""The gates of an LSTM or GRU along one sequence, from :math:`s_0 = 0`.

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
    if isinstance(module, nn.RNN):
        raise TypeError("module must be an nn.LSTM or nn.GRU (a tanh RNN has no gates)")
    weights = _check_arguments(module, input)
    h = c = input.new_zeros(module.hidden_size)  # (H,)
    names = "ifgo" if isinstance(module, nn.LSTM) else "rzn"
    values: dict[str, list[torch.Tensor]] = {name: [] for name in names}
    with torch.no_grad():
        for x_t in input:
            if isinstance(module, nn.LSTM):
                gates = _lstm_gates(x_t, h, *weights)
                h, c = lstm_cell(x_t, (h, c), *weights)
            else:
                gates = _gru_gates(x_t, h, *weights)[:3]
                h = gru_cell(x_t, h, *weights)
            for name, value in zip(names, gates, strict=True):
                values[name].append(value)  # (H,)
    return {name: torch.stack(v) for name, v in values.items()}  # each (T, H)


def _raise_bias(
    name: str, module: _Module, kind: type[_Module], block: int, gate: str, delta: float
) -> _Module:
    """Add ``delta`` to gate block ``block`` of every ``bias_ih_l{k}[_reverse]``, in place."""
    check_instance(name, module, kind, f"an nn.{kind.__name__}")
    delta = check_float("delta", delta)
    if not module.bias:
        raise ValueError(f"{name} has no biases (bias=False): there is no {gate} bias to raise")
    size = module.hidden_size
    suffixes = ["", "_reverse"] if module.bidirectional else [""]
    with torch.no_grad():
        for k in range(module.num_layers):
            for suffix in suffixes:
                getattr(module, f"bias_ih_l{k}{suffix}")[block * size : (block + 1) * size] += delta
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
        If the LSTM has no biases, or ``delta`` is not finite.

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
        If the GRU has no biases, or ``delta`` is not finite.

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
