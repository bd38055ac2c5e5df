r"""The hand-set two-unit RNN: one source of truth for every number in the book.

The numbers are written once, as decimal strings, in PyTorch's orientation
(``weight_ih_l0`` is ``(hidden_size, input_size)``). Everything else reads them:
:func:`exact` turns them into exact ``sympy.Rational`` matrices, :func:`tensors`
into float64 tensors, :func:`make_rnn` into a ``torch.nn.RNN`` with those weights.

The network is

.. math:: h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),\qquad t = 1, 2, 3,

read on the sequence A, B, C, with the hidden-state loss
:math:`L = \tfrac12 \sum_t \sum_k (h_t[k] - \mathrm{target}_t[k])^2`.
"""

from __future__ import annotations

import sympy
import torch

__all__ = [
    "HIDDEN_SIZE",
    "INPUT_SIZE",
    "PARAMETER_NAMES",
    "SEQUENCE",
    "exact",
    "inputs",
    "make_rnn",
    "tensors",
]

Numbers = tuple[str, ...] | tuple[tuple[str, ...], ...]

#: Parameters of ``nn.RNN`` layer 0 in PyTorch's orientation, and the initial state.
_PARAMETERS: dict[str, Numbers] = {
    "weight_ih_l0": (("0.4", "-0.2"), ("0.1", "0.3")),  # (H, H_in)
    "weight_hh_l0": (("0.5", "0.15"), ("-0.25", "0.4")),  # (H, H)
    "bias_ih_l0": ("0.05", "-0.10"),  # (H,)
    "bias_hh_l0": ("-0.02", "0.03"),  # (H,)
    "h_0": ("0.10", "-0.20"),  # (H,); as nn.RNN's h_0 it is (num_layers*D, N, H) = (1, 1, 2)
}
#: The three input tokens, as vectors of size ``input_size``.
_TOKENS: dict[str, tuple[str, ...]] = {"A": ("1", "0"), "B": ("0", "1"), "C": ("1", "1")}
#: One target per time step, shape (L, H); artificial: the loss only exercises BPTT.
_TARGETS: Numbers = (("0.2", "-0.1"), ("-0.2", "0.3"), ("0.1", "0.2"))

#: The order the network reads the tokens in.
SEQUENCE = "ABC"
INPUT_SIZE = 2
HIDDEN_SIZE = 2
#: The five quantities BPTT differentiates with respect to, by PyTorch's names.
PARAMETER_NAMES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "h_0")


def _check_order(order: str) -> str:
    if not isinstance(order, str):
        raise TypeError(f"order must be a str of token names such as 'ABC', got {type(order).__name__}")
    unknown = sorted(set(order) - set(_TOKENS))
    if unknown or not order:
        raise ValueError(
            f"order must be a non-empty string over the tokens {''.join(_TOKENS)}, got {order!r}"
        )
    return order


def _raw(order: str) -> dict[str, Numbers]:
    order = _check_order(order)
    return {
        **_PARAMETERS,
        "inputs": tuple(_TOKENS[token] for token in order),  # (L, H_in)
        "targets": _TARGETS,
    }


def exact(order: str = SEQUENCE) -> dict[str, sympy.Matrix]:
    """The hand-set numbers as exact rationals.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order; each of A, B, C may appear.

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), and column vectors
        ``bias_ih_l0``, ``bias_hh_l0``, ``h_0`` (H, 1); ``inputs`` (L, H_in) with one
        row per step, L = ``len(order)``; ``targets`` (3, H), one row per step of the
        hand-set three-step sequence whatever ``order`` is. Entries are ``sympy.Rational``.

    Raises
    ------
    TypeError, ValueError
        If ``order`` is not a non-empty string over A, B, C.

    Examples
    --------
    >>> from rnndoc.handset import exact
    >>> exact()["weight_hh_l0"]
    Matrix([
    [ 1/2, 3/20],
    [-1/4,  2/5]])
    >>> exact()["h_0"].T, exact()["inputs"].shape
    (Matrix([[1/10, -1/5]]), (3, 2))
    """
    return {name: sympy.Matrix(_rationals(value)) for name, value in _raw(order).items()}


def _rationals(value: Numbers) -> list:
    if isinstance(value[0], str):
        return [sympy.Rational(v) for v in value]
    return [[sympy.Rational(v) for v in row] for row in value]


def tensors(order: str = SEQUENCE, dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    """The hand-set numbers as tensors, each the correctly rounded float of its decimal.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order.
    dtype : torch.dtype, default ``torch.float64``
        A floating dtype.

    Returns
    -------
    dict of str to Tensor
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``,
        ``bias_hh_l0``, ``h_0`` (H,), ``inputs`` (L, H_in) with L = ``len(order)``,
        ``targets`` (3, H) whatever ``order`` is.

    Raises
    ------
    TypeError, ValueError
        If ``dtype`` is not floating, or ``order`` is not a string over A, B, C.

    Examples
    --------
    >>> from rnndoc.handset import tensors
    >>> t = tensors()
    >>> t["weight_ih_l0"]
    tensor([[ 0.4000, -0.2000],
            [ 0.1000,  0.3000]], dtype=torch.float64)
    >>> t["inputs"].shape, t["targets"].shape
    (torch.Size([3, 2]), torch.Size([3, 2]))
    """
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype, got {dtype!r}")
    return {name: torch.tensor(_floats(value), dtype=dtype) for name, value in _raw(order).items()}


def _floats(value: Numbers) -> list:
    if isinstance(value[0], str):
        return [float(v) for v in value]
    return [[float(v) for v in row] for row in value]


def inputs(order: str = SEQUENCE, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The token sequence as ``nn.RNN`` input with ``batch_first=True``.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order.
    dtype : torch.dtype, default ``torch.float64``

    Returns
    -------
    Tensor, shape (N, L, H_in) = (1, len(order), 2)
        Batch of one sequence; ``L`` is the number of time steps.

    Raises
    ------
    TypeError, ValueError
        As :func:`tensors`.

    Examples
    --------
    >>> from rnndoc.handset import inputs
    >>> inputs("CAB")
    tensor([[[1., 1.],
             [1., 0.],
             [0., 1.]]], dtype=torch.float64)
    """
    return tensors(order, dtype)["inputs"].unsqueeze(0)  # (1, L, H_in)


def make_rnn(dtype: torch.dtype = torch.float64) -> torch.nn.RNN:
    """A ``torch.nn.RNN`` (tanh, one layer, ``batch_first=True``) holding the hand-set weights.

    Parameters
    ----------
    dtype : torch.dtype, default ``torch.float64``

    Returns
    -------
    torch.nn.RNN
        ``input_size=2, hidden_size=2``; parameters ``weight_ih_l0`` (2, 2),
        ``weight_hh_l0`` (2, 2), ``bias_ih_l0`` (2,), ``bias_hh_l0`` (2,) copied from
        :func:`tensors`. Its ``h_0`` is not a parameter: pass
        ``tensors()["h_0"].view(1, 1, 2)``.

    Raises
    ------
    TypeError
        If ``dtype`` is not a floating dtype.

    Examples
    --------
    >>> from rnndoc.handset import inputs, make_rnn, tensors
    >>> rnn = make_rnn()
    >>> output, h_n = rnn(inputs(), tensors()["h_0"].view(1, 1, 2))
    >>> output.shape, h_n.shape
    (torch.Size([1, 3, 2]), torch.Size([1, 1, 2]))
    >>> round(h_n[0, 0, 0].item(), 12)
    0.25336085289
    """
    values = tensors(dtype=dtype)
    rnn = torch.nn.RNN(
        INPUT_SIZE, HIDDEN_SIZE, num_layers=1, nonlinearity="tanh", batch_first=True, dtype=dtype
    )
    with torch.no_grad():
        for name, parameter in rnn.named_parameters():
            parameter.copy_(values[name])
    return rnn
