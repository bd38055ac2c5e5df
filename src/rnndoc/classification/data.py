"""The many-to-one classifier's hand-set numbers, once, and the check every function runs on them."""

from __future__ import annotations

from collections.abc import Mapping

import sympy
import torch

from .._validate import (
    check_bool,
    check_int,
    check_mapping,
    check_same_device,
    check_same_dtype,
    check_tensor,
)

__all__ = ["SEQUENCE", "TARGET", "VOCABULARY", "exact", "tensors"]

#: Token names; token k is the k-th one-hot vector of size 3.
VOCABULARY = ("the", "cat", "sat")
_NUMBERS = {
    "weight_ih_l0": (("0.5", "-0.3", "0.2"), ("0.1", "0.4", "-0.2")),  # (H, V)
    "weight_hh_l0": (("0.3", "-0.1"), ("0.2", "0.4")),  # (H, H)
    "linear.weight": (("0.6", "-0.4"), ("-0.3", "0.5")),  # (C, H)
    "linear.bias": (("0.1",), ("-0.1",)),  # (C, 1)
    "h_0": (("0.2",), ("-0.1",)),  # (H, 1): not zero, so all three paths of W_hh are active
}
#: The sequence (token indices) and its class.
SEQUENCE = (0, 2, 1)
TARGET = 1
#: The parameters the loss is differentiated by, in ``named_parameters()`` order.
WEIGHTS = ("weight_ih_l0", "weight_hh_l0", "linear.weight", "linear.bias")


def exact(h_0_zero: bool = False) -> dict[str, sympy.Matrix]:
    """The hand-set numbers as exact rationals (``inputs`` is (T, V), one one-hot row per step).

    Parameters
    ----------
    h_0_zero : bool, default False
        Replace ``h_0`` by zeros (the study notes' choice).

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih_l0`` (H, V), ``weight_hh_l0`` (H, H), ``linear.weight`` (C, H), ``linear.bias`` (C, 1),
        ``h_0`` (H, 1), ``inputs`` (T, V).

    Raises
    ------
    TypeError
        If ``h_0_zero`` is not a bool.

    Examples
    --------
    >>> from rnndoc.classification import exact
    >>> exact()["weight_hh_l0"]
    Matrix([
    [3/10, -1/10],
    [ 1/5,   2/5]])
    """
    h_0_zero = check_bool("h_0_zero", h_0_zero)
    values = {
        name: sympy.Matrix([[sympy.Rational(v) for v in row] for row in rows])
        for name, rows in _NUMBERS.items()
    }
    if h_0_zero:
        values["h_0"] = sympy.zeros(*values["h_0"].shape)
    values["inputs"] = sympy.Matrix([[int(k == token) for k in range(len(VOCABULARY))] for token in SEQUENCE])
    return values


def tensors(h_0_zero: bool = False) -> dict[str, torch.Tensor]:
    """The hand-set numbers as float64 tensors (column vectors become (n,)).

    Parameters
    ----------
    h_0_zero : bool, default False

    Returns
    -------
    dict of str to Tensor
        As :func:`exact`, with ``linear.bias`` (C,) and ``h_0`` (H,).

    Raises
    ------
    TypeError
        As :func:`exact`.

    Examples
    --------
    >>> from rnndoc.classification import tensors
    >>> tensors()["inputs"]
    tensor([[1., 0., 0.],
            [0., 0., 1.],
            [0., 1., 0.]], dtype=torch.float64)
    """
    out = {}
    for name, m in exact(h_0_zero).items():
        t = torch.tensor([[float(v) for v in m.row(i)] for i in range(m.rows)], dtype=torch.float64)
        out[name] = t.flatten() if m.cols == 1 else t
    return out


def check_values(values: object) -> dict[str, torch.Tensor]:
    """``values`` as :func:`tensors` lays them out, each entry checked and named in any error."""
    values = check_mapping("values", values, (*WEIGHTS, "h_0", "inputs"))
    w_ih = check_tensor("weight_ih_l0", values["weight_ih_l0"], (None, None), "(H, V)")
    hidden_size, vocabulary = w_ih.shape
    classes = check_tensor("linear.weight", values["linear.weight"], (None, hidden_size), "(C, H)").shape[0]
    shapes = {
        "weight_hh_l0": ((hidden_size, hidden_size), "(H, H)"),
        "linear.bias": ((classes,), "(C,)"),
        "h_0": ((hidden_size,), "(H,)"),
        "inputs": ((None, vocabulary), "(T, V)"),
    }
    v = {name: values[name] for name in (*WEIGHTS, "h_0", "inputs")}
    for name, (shape, labels) in shapes.items():
        check_tensor(name, v[name], shape, labels)
    check_same_dtype(**v)
    check_same_device("weight_ih_l0", w_ih, **v)
    return v


def check_target(target: object, values: Mapping[str, torch.Tensor]) -> int:
    """``target`` as a class index below the number of classes (rows of ``linear.weight``)."""
    return check_int("target", target, minimum=0, maximum=values["linear.weight"].shape[0] - 1)
