r"""The classifier's gradients by sympy: direct differentiation of the unrolled loss."""

from __future__ import annotations

import sympy

from .._validate import check_int
from ..symbolic import evaluate, symbol_matrix
from .data import TARGET, check_target, exact

__all__ = ["symbolic_gradients"]


def symbolic_gradients(
    h_0_zero: bool = False, target: int = TARGET, digits: int = 50
) -> dict[str, sympy.Matrix]:
    r"""The gradients by sympy: direct differentiation of the unrolled loss, then 50-digit evaluation.

    The three weight matrices are symbols; inputs, ``h_0`` and ``linear.bias`` are the hand-set
    rationals. ``sympy.diff`` of :math:`\mathcal{L} = -\log \operatorname{softmax}(W_{hy} h_3 + b_y)_\kappa`.

    Parameters
    ----------
    h_0_zero : bool, default False
    target : int
        The class index y, in [0, C - 1].
    digits : int, default 50
        Working precision, at least 1.

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih_l0``, ``weight_hh_l0``, ``linear.weight`` (Floats) and ``loss`` (1 x 1).

    Raises
    ------
    TypeError, ValueError
        If ``h_0_zero`` is not a bool, ``target`` not a class index or ``digits`` not a
        positive int.

    Notes
    -----
    The book's :eq:`eq-many-to-one` (chapter "Many-to-one classification, derived"), written
    out for T = 3 steps and differentiated by ``sympy.diff``: the independent witness for
    :func:`rnndoc.classification.loss_and_gradients`.

    Examples
    --------
    >>> from rnndoc.classification import symbolic_gradients
    >>> symbolic_gradients()["loss"][0].round(6)
    0.534187
    """
    values = exact(h_0_zero)
    target = check_target(target, {"linear.weight": values["linear.weight"]})
    digits = check_int("digits", digits, minimum=1)
    stems = {"weight_ih_l0": "W^{ih}", "weight_hh_l0": "W^{hh}", "linear.weight": "W^{hy}"}
    symbols = {name: symbol_matrix(stem, values[name].shape) for name, stem in stems.items()}
    h = values["h_0"]
    for t in range(values["inputs"].rows):
        # h_t = tanh(W_hh h_{t-1} + W_ih x_t)
        a = symbols["weight_hh_l0"] * h + symbols["weight_ih_l0"] * values["inputs"].row(t).T  # (H, 1)
        h = a.applyfunc(sympy.tanh)
    scores = symbols["linear.weight"] * h + values["linear.bias"]  # v = W_hy h_T + b_y, (C, 1)
    loss = sympy.log(sum(sympy.exp(s) for s in scores)) - scores[target]  # L = -log softmax(v)_kappa
    at = {s: values[name][k] for name in symbols for k, s in enumerate(symbols[name])}
    out = {
        name: evaluate(m.applyfunc(lambda theta: sympy.diff(loss, theta)), digits, subs=at)
        for name, m in symbols.items()
    }
    out["loss"] = sympy.Matrix([[evaluate(loss, digits, subs=at)]])
    return out
