r"""Many-to-one classification with a tanh RNN: read a sequence, classify it at the last step.

.. math::

    \begin{aligned}
    a_t &= W_{ih} x_t + W_{hh} h_{t-1}, \\
    h_t &= \tanh(a_t), \\
    O &= W h_T + b, \\
    p &= \operatorname{softmax}(O), \\
    L &= -\log p_{y}
    \end{aligned}

(:math:`W_{ih}` is an ``nn.RNN``'s ``weight_ih_l0``, :math:`W_{hh}` its ``weight_hh_l0``, with
``bias=False``; :math:`W` and :math:`b` are an ``nn.Linear`` head's, keyed ``linear.weight`` and
``linear.bias`` as ``named_parameters()`` names them in a model whose head is called ``linear``.) The one-hot inputs, the weights and ``h_0`` are hand-set here,
once. Because the loss reads only :math:`h_T`, :math:`W_{hh}` reaches it along three paths:
its use at step 3, at step 2 (through :math:`h_3`) and at step 1 (through :math:`h_2` and
:math:`h_3`); :func:`path_contributions` computes each.
"""

from __future__ import annotations

import sympy
import torch

from ._validate import check_tensor
from .symbolic import evaluate, symbol_matrix

__all__ = [
    "VOCABULARY",
    "exact",
    "loss_and_gradients",
    "path_contributions",
    "sgd_step",
    "symbolic_gradients",
    "tensors",
]

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

    Examples
    --------
    >>> from rnndoc.classification import exact
    >>> exact()["weight_hh_l0"]
    Matrix([
    [3/10, -1/10],
    [ 1/5,   2/5]])
    """
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


def loss_and_gradients(values: dict[str, torch.Tensor], target: int = TARGET) -> tuple[torch.Tensor, dict]:
    r"""Cross-entropy loss of the last step's class scores, and its gradients by autograd.

    Parameters
    ----------
    values : dict of str to Tensor
        As :func:`tensors` returns them (float64).
    target : int
        The class index y.

    Returns
    -------
    loss : Tensor, shape ()
    gradients : dict of str to Tensor
        ``weight_ih_l0``, ``weight_hh_l0``, ``linear.weight``, ``linear.bias``, shaped like the parameters.

    Raises
    ------
    TypeError, ValueError
        If a tensor is missing its floating dtype or shape.

    Examples
    --------
    >>> from rnndoc.classification import loss_and_gradients, tensors
    >>> loss, grads = loss_and_gradients(tensors())
    >>> round(loss.item(), 6), grads["weight_hh_l0"].shape
    (0.534187, torch.Size([2, 2]))
    """
    vocabulary = values["weight_ih_l0"].shape[1]
    check_tensor("inputs", values["inputs"], (None, vocabulary), "(T, V)")
    leaves = {
        k: values[k].clone().requires_grad_()
        for k in ("weight_ih_l0", "weight_hh_l0", "linear.weight", "linear.bias")
    }
    h = values["h_0"]  # (H,)
    for x_t in values["inputs"]:
        h = torch.tanh(leaves["weight_hh_l0"] @ h + leaves["weight_ih_l0"] @ x_t)  # (H,)
    scores = leaves["linear.weight"] @ h + leaves["linear.bias"]  # (C,)
    loss = torch.nn.functional.cross_entropy(scores.unsqueeze(0), torch.tensor([target]))
    loss.backward()
    return loss.detach(), {k: v.grad for k, v in leaves.items()}


def path_contributions(values: dict[str, torch.Tensor], target: int = TARGET) -> torch.Tensor:
    r"""The W_hh gradient split by the step that uses W_hh: :math:`\delta_t h_{t-1}^\top`.

    .. math::

        \delta_T = W_{yh}^\top (p - e_y) \odot (1 - h_T^2),\qquad
        \delta_t = W_{hh}^\top \delta_{t+1} \odot (1 - h_t^2)

    (only step T has a loss term). Row t - 1 of the result is the path through the use at step t.

    Parameters
    ----------
    values : dict of str to Tensor
        As :func:`tensors`.
    target : int

    Returns
    -------
    Tensor, shape (T, H, H)
        Summed over the first axis: the W_hh gradient.

    Examples
    --------
    >>> from rnndoc.classification import path_contributions, tensors
    >>> path_contributions(tensors()).shape
    torch.Size([3, 2, 2])
    """
    w_ih, w_hh, w_out, b_out = (
        values[k] for k in ("weight_ih_l0", "weight_hh_l0", "linear.weight", "linear.bias")
    )
    hidden = [values["h_0"]]  # h_0 ... h_T, each (H,)
    for x_t in values["inputs"]:
        hidden.append(torch.tanh(w_hh @ hidden[-1] + w_ih @ x_t))
    p = torch.softmax(w_out @ hidden[-1] + b_out, dim=0)  # (C,)
    residual = p - torch.nn.functional.one_hot(torch.tensor(target), p.shape[0]).to(p.dtype)  # dL/dO, (C,)
    delta = (w_out.T @ residual) * (1 - hidden[-1] ** 2)  # delta_T, (H,)
    parts = []
    for t in range(len(hidden) - 1, 0, -1):  # t = T ... 1
        parts.append(torch.outer(delta, hidden[t - 1]))  # (H, H): delta_t h_(t-1)^T
        delta = (w_hh.T @ delta) * (1 - hidden[t - 1] ** 2)  # delta_(t-1)
    return torch.stack(parts[::-1])  # (T, H, H), step 1 first


def symbolic_gradients(
    h_0_zero: bool = False, target: int = TARGET, digits: int = 50
) -> dict[str, sympy.Matrix]:
    r"""The gradients by sympy: direct differentiation of the unrolled loss, then 50-digit evaluation.

    The three weight matrices are symbols; inputs, ``h_0`` and ``linear.bias`` are the hand-set
    rationals. ``sympy.diff`` of :math:`L = -\log \operatorname{softmax}(W h_3 + b)_y`.

    Parameters
    ----------
    h_0_zero : bool, default False
    target : int
    digits : int, default 50

    Returns
    -------
    dict of str to sympy.Matrix
        ``weight_ih_l0``, ``weight_hh_l0``, ``linear.weight`` (Floats) and ``loss`` (1 x 1).

    Examples
    --------
    >>> from rnndoc.classification import symbolic_gradients
    >>> symbolic_gradients()["loss"][0].round(6)
    0.534187
    """
    values = exact(h_0_zero)
    stems = {"weight_ih_l0": "W^{ih}", "weight_hh_l0": "W^{hh}", "linear.weight": "W"}
    symbols = {name: symbol_matrix(stem, values[name].shape) for name, stem in stems.items()}
    h = values["h_0"]
    for t in range(values["inputs"].rows):
        h = (symbols["weight_hh_l0"] * h + symbols["weight_ih_l0"] * values["inputs"].row(t).T).applyfunc(
            sympy.tanh
        )
    scores = symbols["linear.weight"] * h + values["linear.bias"]  # (C, 1)
    loss = sympy.log(sum(sympy.exp(s) for s in scores)) - scores[target]  # -log softmax_y
    at = {s: values[name][k] for name in symbols for k, s in enumerate(symbols[name])}
    out = {
        name: evaluate(m.applyfunc(lambda theta: sympy.diff(loss, theta)), digits, subs=at)
        for name, m in symbols.items()
    }
    out["loss"] = sympy.Matrix([[evaluate(loss, digits, subs=at)]])
    return out


def sgd_step(learning_rate: float = 0.5) -> dict:
    r"""One SGD step, :math:`\theta \leftarrow \theta - \eta \nabla_\theta L`, by hand and by ``torch.optim.SGD``.

    Parameters
    ----------
    learning_rate : float, default 0.5

    Returns
    -------
    dict
        ``by_hand`` and ``by_torch`` (dicts of updated parameters), ``loss_before`` and
        ``loss_after`` (floats, the latter from the updated parameters).

    Examples
    --------
    >>> from rnndoc.classification import sgd_step
    >>> step = sgd_step()
    >>> step["loss_after"] < step["loss_before"]
    True
    """
    values = tensors()
    loss, grads = loss_and_gradients(values)
    by_hand = {k: values[k] - learning_rate * grads[k] for k in grads}  # theta - lr * grad
    rnn = torch.nn.RNN(
        values["weight_ih_l0"].shape[1], values["weight_ih_l0"].shape[0], bias=False, dtype=torch.float64
    )
    head = torch.nn.Linear(*values["linear.weight"].shape[::-1], dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(values["weight_ih_l0"])
        rnn.weight_hh_l0.copy_(values["weight_hh_l0"])
        head.weight.copy_(values["linear.weight"])
        head.bias.copy_(values["linear.bias"])
    optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=learning_rate)
    _, h_n = rnn(values["inputs"], values["h_0"].unsqueeze(0))  # unbatched: (1, H)
    torch_loss = torch.nn.functional.cross_entropy(head(h_n), torch.tensor([TARGET]))
    optimizer.zero_grad()
    torch_loss.backward()
    optimizer.step()
    by_torch = {
        "weight_ih_l0": rnn.weight_ih_l0,
        "weight_hh_l0": rnn.weight_hh_l0,
        "linear.weight": head.weight,
        "linear.bias": head.bias,
    }
    after, _ = loss_and_gradients(values | by_hand)
    return {
        "by_hand": by_hand,
        "by_torch": {k: v.detach() for k, v in by_torch.items()},
        "loss_before": float(loss),
        "torch_loss_before": float(torch_loss.detach()),
        "loss_after": float(after),
    }
