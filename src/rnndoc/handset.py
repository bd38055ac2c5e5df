r"""The hand-set two-unit RNN: one source of truth for every number in the book.

The numbers are written once, as decimal strings, in the layout of ``torch.nn.RNN`` with
``batch_first=True`` (``weight_ih_l0`` is ``(hidden_size, input_size)``, ``h_0`` is
``(num_layers * D, N, H)``, the inputs ``(N, L, H_in)``). Everything else reads them:
:func:`exact` turns them into exact ``sympy.Rational`` matrices, :func:`floats` into plain
Python numbers (for the torch-free witness, :mod:`rnndoc.reference`), :func:`tensors` into
float64 tensors, :func:`make_rnn` into a ``torch.nn.RNN`` with those weights and its ``h_0``.
This module imports sympy and torch only inside the functions that return their objects, so
reading the constants (or importing a module that does) loads neither. The network, read on
the sequence A, B, C with the hidden-state loss
:math:`\mathcal{L} = \tfrac12 \sum_t \sum_k (h_t[k] - y_t[k])^2` (:eq:`eq-loss`), is

.. math:: h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}),\qquad t = 1, 2, 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._validate import check_dtype, check_str

if TYPE_CHECKING:
    import sympy
    import torch

__all__ = [
    "HIDDEN_SIZE",
    "INPUT_SIZE",
    "PARAMETER_NAMES",
    "SEQUENCE",
    "exact",
    "floats",
    "inputs",
    "make_rnn",
    "tensors",
]

#: Parameters of ``nn.RNN`` layer 0 in PyTorch's orientation, and the initial state.
_PARAMETERS: dict[str, tuple] = {
    "weight_ih_l0": (("0.4", "-0.2"), ("0.1", "0.3")),  # (H, H_in)
    "weight_hh_l0": (("0.5", "0.15"), ("-0.25", "0.4")),  # (H, H)
    "bias_ih_l0": ("0.05", "-0.10"),  # (H,)
    "bias_hh_l0": ("-0.02", "0.03"),  # (H,)
    "h_0": ((("0.10", "-0.20"),),),  # (num_layers * D, N, H) = (1, 1, 2), as nn.RNN takes it
}
#: The three input tokens, as vectors of size ``input_size``.
_TOKENS: dict[str, tuple[str, ...]] = {"A": ("1", "0"), "B": ("0", "1"), "C": ("1", "1")}
#: One target per time step, shape (N, L, H) = (1, 3, 2); artificial: the loss only exercises BPTT.
_TARGETS = ((("0.2", "-0.1"), ("-0.2", "0.3"), ("0.1", "0.2")),)

#: The order the network reads the tokens in.
SEQUENCE = "ABC"
INPUT_SIZE = 2
HIDDEN_SIZE = 2
#: The five quantities BPTT differentiates with respect to, by PyTorch's names.
PARAMETER_NAMES = tuple(_PARAMETERS)


def _raw(order: object) -> dict[str, tuple]:
    """The decimal strings of ``_PARAMETERS``, the inputs in ``order`` and the targets."""
    order = check_str("order", order)
    if not order or set(order) - set(_TOKENS):
        raise ValueError(
            f"order must be a non-empty string over the tokens {''.join(_TOKENS)}, got {order!r}"
        )
    inputs = (tuple(_TOKENS[token] for token in order),)  # (N, L, H_in) = (1, L, 2)
    return {**_PARAMETERS, "inputs": inputs, "targets": _TARGETS}  # targets: (1, 3, H)


def _convert(value, leaf):
    """The nested tuple of decimal strings ``value`` as nested lists of ``leaf(string)``."""
    return leaf(value) if isinstance(value, str) else [_convert(v, leaf) for v in value]


def floats(order: str = SEQUENCE) -> dict[str, list]:
    """The hand-set numbers as plain Python floats, for the torch-free witness (no torch imported).

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order; each of A, B, C may appear.

    Returns
    -------
    dict of str to list
        The keys and nesting (nested lists) of :func:`tensors`; each float is the correctly
        rounded value of its decimal.

    Raises
    ------
    TypeError, ValueError
        If ``order`` is not a non-empty string over A, B, C.

    Examples
    --------
    >>> from rnndoc.handset import floats
    >>> floats()["h_0"], floats("CA")["inputs"]
    ([[[0.1, -0.2]]], [[[1.0, 1.0], [1.0, 0.0]]])
    """
    return {name: _convert(value, float) for name, value in _raw(order).items()}


def exact(order: str = SEQUENCE) -> dict[str, sympy.Matrix]:
    """The hand-set numbers as exact rationals, in sympy's two-dimensional layout.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order; each of A, B, C may appear.

    Returns
    -------
    dict of str to sympy.Matrix
        ``sympy.Rational`` entries: ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), and
        column vectors ``bias_ih_l0``, ``bias_hh_l0``, ``h_0`` (H, 1); ``inputs`` (L, H_in), one
        row per step, L = ``len(order)``; ``targets`` (3, H), one row per step of the hand-set
        three-step sequence whatever ``order`` is (the batch axis of one sequence is dropped).

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
    import sympy  # noqa: PLC0415

    values = {name: _convert(value, sympy.Rational) for name, value in _raw(order).items()}
    values["h_0"] = values["h_0"][0][0]  # (H,): one layer, one sequence
    values["inputs"], values["targets"] = values["inputs"][0], values["targets"][0]  # (L, .)
    return {name: sympy.Matrix(value) for name, value in values.items()}


def tensors(order: str = SEQUENCE, dtype: torch.dtype | None = None) -> dict[str, torch.Tensor]:
    """The hand-set numbers as tensors, each the correctly rounded float of its decimal.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order.
    dtype : torch.dtype, optional
        A floating dtype; default ``torch.float64``.

    Returns
    -------
    dict of str to Tensor
        ``weight_ih_l0`` (H, H_in), ``weight_hh_l0`` (H, H), ``bias_ih_l0``, ``bias_hh_l0`` (H,),
        ``h_0`` (num_layers * D, N, H) = (1, 1, H), ``inputs`` (N, L, H_in) = (1, L, H_in),
        L = ``len(order)``, ``targets`` (1, 3, H) whatever ``order`` is: ``nn.RNN``'s layout.

    Raises
    ------
    TypeError, ValueError
        If ``dtype`` is not a floating ``torch.dtype``, or ``order`` is not a string over A, B, C.

    Examples
    --------
    >>> from rnndoc.handset import tensors
    >>> t = tensors()
    >>> t["weight_ih_l0"]
    tensor([[ 0.4000, -0.2000],
            [ 0.1000,  0.3000]], dtype=torch.float64)
    >>> t["inputs"].shape, t["h_0"].shape, t["targets"].shape
    (torch.Size([1, 3, 2]), torch.Size([1, 1, 2]), torch.Size([1, 3, 2]))
    """
    import torch  # noqa: PLC0415

    dtype = check_dtype("dtype", dtype)
    return {name: torch.tensor(value, dtype=dtype) for name, value in floats(order).items()}


def inputs(order: str = SEQUENCE, dtype: torch.dtype | None = None) -> torch.Tensor:
    """The token sequence as ``nn.RNN`` input with ``batch_first=True``.

    Parameters
    ----------
    order : str, default ``"ABC"``
        Token names in reading order.
    dtype : torch.dtype, optional
        Default ``torch.float64``.

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
    return tensors(order, dtype)["inputs"]


def make_rnn(dtype: torch.dtype | None = None) -> tuple[torch.nn.RNN, torch.Tensor]:
    """A ``torch.nn.RNN`` (tanh, one layer, ``batch_first=True``) holding the hand-set weights.

    Parameters
    ----------
    dtype : torch.dtype, optional
        Default ``torch.float64``.

    Returns
    -------
    rnn : torch.nn.RNN
        ``input_size=2, hidden_size=2``; parameters ``weight_ih_l0`` (2, 2),
        ``weight_hh_l0`` (2, 2), ``bias_ih_l0`` (2,), ``bias_hh_l0`` (2,) copied from
        :func:`tensors`.
    h_0 : Tensor, shape (num_layers * D, N, H) = (1, 1, 2)
        The initial state, ready to pass beside :func:`inputs`.

    Raises
    ------
    TypeError, ValueError
        If ``dtype`` is not a floating ``torch.dtype``.

    Examples
    --------
    >>> from rnndoc.handset import inputs, make_rnn
    >>> rnn, h_0 = make_rnn()
    >>> output, h_n = rnn(inputs(), h_0)
    >>> output.shape, h_n.shape
    (torch.Size([1, 3, 2]), torch.Size([1, 1, 2]))
    >>> round(h_n[0, 0, 0].item(), 12)
    0.25336085289
    """
    import torch  # noqa: PLC0415

    dtype = check_dtype("dtype", dtype)
    rnn = torch.nn.RNN(INPUT_SIZE, HIDDEN_SIZE, nonlinearity="tanh", batch_first=True, dtype=dtype)
    values = tensors(dtype=dtype)
    with torch.no_grad():
        for name, parameter in rnn.named_parameters():
            parameter.copy_(values[name])
    return rnn, values["h_0"]
