r"""The unrolled tanh RNN as sympy expressions.

Unrolling the recurrence :math:`h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})`
for T steps turns the network into one nested expression per hidden state; the loss
:math:`\mathcal{L} = \tfrac12 \sum_t \sum_k (h_t[k] - y_t[k])^2` is then an ordinary function of
the parameters, which sympy can differentiate directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy

from .._validate import check_int, check_mapping, check_matrix
from ..handset import PARAMETER_NAMES
from .symbols import symbol_matrix

__all__ = ["Unrolled", "symbolic_parameters", "symbolic_sequence", "unroll"]


def symbolic_parameters(input_size: int = 2, hidden_size: int = 2) -> dict[str, sympy.Matrix]:
    r"""Real symbols for every parameter of a one-layer tanh RNN, and for h_0.

    Entries are indexed from 0 as in PyTorch (``weight_hh_l0[i, j]`` is
    :math:`W^{hh}_{i,j}`).

    Parameters
    ----------
    input_size, hidden_size : int
        :math:`H_{in}` and :math:`H`, at least 1.

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H); ``bias_ih_l0``,
        ``bias_hh_l0`` and ``h_0`` as column vectors (H, 1).

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive int.

    Examples
    --------
    >>> from rnndoc.symbolic import symbolic_parameters
    >>> p = symbolic_parameters()
    >>> p["weight_hh_l0"]
    Matrix([
    [W^{hh}_{0,0}, W^{hh}_{0,1}],
    [W^{hh}_{1,0}, W^{hh}_{1,1}]])
    >>> p["h_0"].shape
    (2, 1)
    """
    input_size = check_int("input_size", input_size, minimum=1)
    hidden_size = check_int("hidden_size", hidden_size, minimum=1)
    return {
        "weight_ih_l0": symbol_matrix("W^{ih}", (hidden_size, input_size)),
        "weight_hh_l0": symbol_matrix("W^{hh}", (hidden_size, hidden_size)),
        "bias_ih_l0": symbol_matrix("b^{ih}", (hidden_size,)),
        "bias_hh_l0": symbol_matrix("b^{hh}", (hidden_size,)),
        "h_0": symbol_matrix("h", (hidden_size,), prefix="0"),
    }


def symbolic_sequence(
    length: int = 3, input_size: int = 2, hidden_size: int = 2
) -> tuple[sympy.Matrix, sympy.Matrix]:
    r"""Real symbols for the inputs :math:`x_t` and targets :math:`y_t`, t = 1 ... length.

    Parameters
    ----------
    length, input_size, hidden_size : int
        L, :math:`H_{in}` and :math:`H`, at least 1.

    Returns
    -------
    inputs : sympy.Matrix, shape (L, H_in)
        Row ``t - 1`` holds :math:`x_t`.
    targets : sympy.Matrix, shape (L, H)
        Row ``t - 1`` holds :math:`y_t`.

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive int.

    Examples
    --------
    >>> from rnndoc.symbolic import symbolic_sequence
    >>> x, y = symbolic_sequence(length=2)
    >>> x
    Matrix([
    [x_{1,0}, x_{1,1}],
    [x_{2,0}, x_{2,1}]])
    """
    length = check_int("length", length, minimum=1)
    input_size = check_int("input_size", input_size, minimum=1)
    hidden_size = check_int("hidden_size", hidden_size, minimum=1)
    inputs = symbol_matrix("x", (length, input_size), start=1)  # row t - 1 holds x_t
    targets = symbol_matrix("y", (length, hidden_size), start=1)
    return inputs, targets


def check_parameters(parameters: object) -> dict[str, sympy.Matrix]:
    """``parameters`` as :func:`symbolic_parameters` lays them out, each entry's shape checked."""
    parameters = check_mapping("parameters", parameters, PARAMETER_NAMES)
    weight_ih = check_matrix("parameters['weight_ih_l0']", parameters["weight_ih_l0"])
    if weight_ih.shape[0] < 1 or weight_ih.shape[1] < 1:
        raise ValueError(f"parameters['weight_ih_l0'] must have shape (H, H_in), got {weight_ih.shape}")
    size = weight_ih.shape[0]
    shapes = {
        "weight_hh_l0": (size, size),
        "bias_ih_l0": (size, 1),
        "bias_hh_l0": (size, 1),
        "h_0": (size, 1),
    }
    return {"weight_ih_l0": weight_ih} | {
        name: check_matrix(f"parameters[{name!r}]", parameters[name], shape) for name, shape in shapes.items()
    }


@dataclass(frozen=True)
class Unrolled:
    """The unrolled network: every node of the computation graph as an expression.

    Attributes
    ----------
    parameters : dict of str to sympy.Matrix
        As :func:`symbolic_parameters` returns them (symbols or numbers).
    inputs : list of sympy.Matrix, each (H_in, 1)
        :math:`x_1 \\dots x_T`.
    targets : list of sympy.Matrix, each (H, 1)
        :math:`y_1 \\dots y_T`.
    preactivations : list of sympy.Matrix, each (H, 1)
        :math:`a_1 \\dots a_T`, written in the parameters (nested through :math:`h_{t-1}`).
    hidden : list of sympy.Matrix, each (H, 1)
        :math:`h_1 \\dots h_T`, :math:`h_t = \\tanh(a_t)`.
    step_losses : list of sympy.Expr
        :math:`\\ell_t = \\tfrac12 \\sum_k (h_t[k] - y_t[k])^2`.
    loss : sympy.Expr
        :math:`\\mathcal{L} = \\sum_t \\ell_t`.

    Examples
    --------
    >>> from rnndoc.symbolic import symbolic_parameters, unroll
    >>> net = unroll(symbolic_parameters(1, 1), [[1], [2]], [[0], [1]])
    >>> net.length, len(net.step_losses), net.loss == sum(net.step_losses)
    (2, 2, True)
    """

    parameters: dict[str, sympy.Matrix]
    inputs: list[sympy.Matrix]
    targets: list[sympy.Matrix]
    preactivations: list[sympy.Matrix]
    hidden: list[sympy.Matrix]
    step_losses: list[sympy.Expr]
    loss: sympy.Expr

    @property
    def length(self) -> int:
        """The number of time steps T."""
        return len(self.inputs)


def unroll(
    parameters: Mapping[str, sympy.Matrix],
    inputs: sympy.Matrix | Sequence[Sequence[object]] | None = None,
    targets: sympy.Matrix | Sequence[Sequence[object]] | None = None,
) -> Unrolled:
    r"""Unroll the tanh RNN over a sequence and write its loss as one expression.

    The recursion :eq:`eq-rnn-forward` (column form: :math:`x_t`, :math:`h_t` are (H_in, 1),
    (H, 1)) for T steps, and the loss :eq:`eq-loss` of its states.

    Parameters
    ----------
    parameters : mapping of str to sympy.Matrix
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``,
        ``bias_hh_l0``, ``h_0`` (H, 1): symbols (:func:`symbolic_parameters`) or exact
        numbers (:func:`rnndoc.handset.exact`, whose mapping also holds the sequence).
    inputs : sympy.Matrix or nested sequence, shape (T, H_in), optional
        One row per time step; default ``parameters["inputs"]``.
    targets : sympy.Matrix or nested sequence, shape (at least T, H), optional
        Row ``t - 1`` is the target of :math:`h_t`; extra rows are ignored; default
        ``parameters["targets"]``.

    Returns
    -------
    Unrolled
        Every graph node as an expression in the parameters.

    Raises
    ------
    TypeError
        If ``parameters`` is not a mapping, or a value is not a matrix.
    ValueError
        If a parameter is missing or a shape disagrees (the message names the argument,
        the expected and the actual shape).

    Notes
    -----
    Equation as in PyTorch's ``torch.nn.RNN`` documentation; loss as in the book's
    hand-set example.

    Examples
    --------
    >>> import sympy
    >>> from rnndoc.symbolic import symbolic_parameters, unroll
    >>> net = unroll(symbolic_parameters(input_size=1, hidden_size=1), [[1]], [[0]])
    >>> net.preactivations[0][0]
    W^{hh}_{0,0}*h_{0,0} + W^{ih}_{0,0} + b^{hh}_{0} + b^{ih}_{0}
    >>> net.loss
    tanh(W^{hh}_{0,0}*h_{0,0} + W^{ih}_{0,0} + b^{hh}_{0} + b^{ih}_{0})**2/2
    >>> from rnndoc.handset import exact
    >>> unroll(exact()).length  # the hand-set mapping passes straight in
    3
    """
    params = check_parameters(parameters)
    hidden_size, input_size = params["weight_ih_l0"].shape
    for name, value in (("inputs", inputs), ("targets", targets)):
        if value is None and name not in parameters:
            raise ValueError(f"{name} must be given, or held by parameters[{name!r}]")
    x = check_matrix("inputs", parameters["inputs"] if inputs is None else inputs)  # (T, H_in)
    y = check_matrix("targets", parameters["targets"] if targets is None else targets)  # (>= T, H)
    if x.shape[1] != input_size or x.shape[0] < 1:
        raise ValueError(f"inputs must have shape (T, {input_size}), got {x.shape}")
    if y.shape[1] != hidden_size or y.shape[0] < x.shape[0]:
        raise ValueError(f"targets must have shape ({x.shape[0]}, {hidden_size}), got {y.shape}")

    xs = [x[t, :].T for t in range(x.shape[0])]  # each (H_in, 1)
    ys = [y[t, :].T for t in range(x.shape[0])]  # each (H, 1)
    h = params["h_0"]
    preactivations, hidden, step_losses = [], [], []
    for x_t, y_t in zip(xs, ys, strict=True):
        # a_t = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh
        a = (
            params["weight_ih_l0"] * x_t
            + params["bias_ih_l0"]
            + params["weight_hh_l0"] * h
            + params["bias_hh_l0"]
        )
        h = a.applyfunc(sympy.tanh)  # h_t = tanh(a_t), (H, 1)
        preactivations.append(a)
        hidden.append(h)
        # l_t = 1/2 sum_k (h_t[k] - y_t[k])^2
        step_losses.append(sum((h - y_t).applyfunc(lambda e: e**2)) / 2)
    return Unrolled(params, xs, ys, preactivations, hidden, step_losses, sum(step_losses))
