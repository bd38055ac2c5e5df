r"""The classifier's loss and gradients in float64 torch: autograd, path by path, one SGD step."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from .._autograd import grad_on, plain
from .._validate import check_float
from .data import TARGET, WEIGHTS, check_target, check_values, tensors

__all__ = ["loss_and_gradients", "path_contributions", "sgd_step"]


def _hidden_states(v: Mapping[str, torch.Tensor]) -> list[torch.Tensor]:
    hidden = [v["h_0"]]  # h_0 ... h_T, each (H,)
    for x_t in v["inputs"]:
        hidden.append(torch.tanh(v["weight_hh_l0"] @ hidden[-1] + v["weight_ih_l0"] @ x_t))  # h_t = tanh(a_t)
    return hidden


def loss_and_gradients(
    values: Mapping[str, torch.Tensor], target: int = TARGET
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    r"""Cross-entropy loss of the last step's class scores, and its gradients by autograd.

    .. math:: v = W_{hy} h_T + b_y,\quad \mathcal{L} = -\log \operatorname{softmax}(v)_\kappa

    Parameters
    ----------
    values : mapping of str to Tensor
        As :func:`rnndoc.classification.tensors` returns them: ``weight_ih_l0`` (H, V),
        ``weight_hh_l0`` (H, H), ``linear.weight`` (C, H), ``linear.bias`` (C,), ``h_0`` (H,),
        ``inputs`` (T, V), all of one floating dtype.
    target : int
        The class index y, in [0, C - 1].

    Returns
    -------
    loss : Tensor, shape ()
    gradients : dict of str to Tensor
        ``weight_ih_l0``, ``weight_hh_l0``, ``linear.weight``, ``linear.bias``, shaped like the parameters.

    Raises
    ------
    TypeError, ValueError
        If ``values`` is not a mapping, an entry is missing, not a floating tensor or of the
        wrong shape (the message names it), the dtypes or devices differ, or ``target`` is
        not a class index.

    Notes
    -----
    Entries that require grad are read as values (detached); the answer does not depend on
    the caller's grad mode (autograd runs inside ``torch.no_grad()`` or
    ``torch.inference_mode()`` too, on copies of inference tensors). T = 0 steps gives
    :math:`h_T = h_0` and zero gradients for ``weight_ih_l0`` and ``weight_hh_l0``; NaN and
    infinities propagate as through torch.
    The book's :eq:`eq-many-to-one` (chapter "Many-to-one classification, derived"): an Elman
    RNN without biases (PyTorch's ``torch.nn.RNN``, ``bias=False``), an ``nn.Linear`` head on
    the last state and ``torch.nn.functional.cross_entropy``; the witness against it is
    :func:`rnndoc.classification.symbolic_gradients`.

    Examples
    --------
    >>> from rnndoc.classification import loss_and_gradients, tensors
    >>> loss, grads = loss_and_gradients(tensors())
    >>> round(loss.item(), 6), grads["weight_hh_l0"].shape
    (0.534187, torch.Size([2, 2]))
    """
    v = check_values(values)
    target = check_target(target, v)
    with grad_on():  # the same loss and gradients under no_grad or inference_mode
        v = {name: plain(value.detach()) for name, value in v.items()}  # the graph starts here
        leaves = {name: v[name].clone().requires_grad_() for name in WEIGHTS}
        h_T = _hidden_states(v | leaves)[-1]  # (H,)
        scores = leaves["linear.weight"] @ h_T + leaves["linear.bias"]  # v = W_hy h_T + b_y, (C,)
        kappa = torch.tensor([target], device=scores.device)
        loss = torch.nn.functional.cross_entropy(scores.unsqueeze(0), kappa)
        # T = 0: W_ih and W_hh are unused, and their gradient is zero
        gradients = torch.autograd.grad(
            loss, list(leaves.values()), allow_unused=True, materialize_grads=True
        )
        return loss.detach(), dict(zip(leaves, gradients, strict=True))


def path_contributions(values: Mapping[str, torch.Tensor], target: int = TARGET) -> torch.Tensor:
    r"""The W_hh gradient split by the step that uses W_hh: one path per use, :math:`\delta_t h_{t-1}^\top`.

    .. math::

        \begin{aligned}
        \frac{\partial \mathcal{L}}{\partial W_{hh}} &= \sum_{t=1}^{T} \delta_t h_{t-1}^\top, \\
        \delta_T &= W_{hy}^\top (p - e_\kappa) \odot (1 - h_T^2), \qquad
        \delta_t = W_{hh}^\top \delta_{t+1} \odot (1 - h_t^2)
        \end{aligned}

    with :math:`\delta_t = \partial \mathcal{L} / \partial a_t`, :math:`W_{hy}` the head's
    ``linear.weight``, :math:`p - e_\kappa = \partial \mathcal{L} / \partial v` (the probabilities
    minus the one-hot target) and no loss term before step T. For the book's T = 3 the sum is
    the three paths of :eq:`eq-three-paths`:

    .. math::

        \frac{\partial \mathcal{L}}{\partial W_{hh}} =
        \underbrace{\delta_3 h_2^\top}_{\text{use at step 3}} +
        \underbrace{\delta_2 h_1^\top}_{\text{step 2, through } h_3} +
        \underbrace{\delta_1 h_0^\top}_{\text{step 1, through } h_2, h_3}

    Row t - 1 of the result is the path through the use at step t.

    Parameters
    ----------
    values : mapping of str to Tensor
        As :func:`loss_and_gradients`.
    target : int
        The class index y, in [0, C - 1].

    Returns
    -------
    Tensor, shape (T, H, H)
        Summed over the first axis: the W_hh gradient (T = 0: empty, and the gradient zero).

    Raises
    ------
    TypeError, ValueError
        As :func:`loss_and_gradients`.

    Notes
    -----
    The book's :eq:`eq-three-paths` (chapter "Many-to-one classification, derived"); the δ
    recursion of BPTT (Werbos 1990) with the softmax cross-entropy's gradient
    :math:`p - e_\kappa` at the last step.

    Examples
    --------
    >>> from rnndoc.classification import path_contributions, tensors
    >>> path_contributions(tensors()).shape
    torch.Size([3, 2, 2])
    """
    v = check_values(values)
    target = check_target(target, v)
    hidden = _hidden_states(v)  # h_0 ... h_T, each (H,)
    p = torch.softmax(v["linear.weight"] @ hidden[-1] + v["linear.bias"], dim=0)  # (C,)
    e_kappa = torch.nn.functional.one_hot(torch.tensor(target), p.shape[0]).to(p)  # (C,)
    delta = (v["linear.weight"].T @ (p - e_kappa)) * (
        1 - hidden[-1] ** 2
    )  # delta_T = W_hy^T (p - e_kappa) * (1 - h_T^2), (H,)
    parts = []
    for t in range(len(hidden) - 1, 0, -1):  # t = T ... 1
        parts.append(torch.outer(delta, hidden[t - 1]))  # (H, H): delta_t h_(t-1)^T
        delta = (v["weight_hh_l0"].T @ delta) * (1 - hidden[t - 1] ** 2)  # delta_(t-1)
    if not parts:  # T = 0: no use of W_hh, no path
        return v["weight_hh_l0"].new_zeros(0, *v["weight_hh_l0"].shape)  # (0, H, H)
    return torch.stack(parts[::-1])  # (T, H, H), step 1 first


def sgd_step(learning_rate: float = 0.5) -> dict:
    r"""One SGD step, :math:`\theta \leftarrow \theta - \eta \nabla_\theta \mathcal{L}`, by hand and by ``torch.optim.SGD``.

    By hand: :func:`loss_and_gradients`, then the update. By torch: an ``nn.RNN`` (``bias=False``)
    and an ``nn.Linear`` loaded with the same numbers, ``cross_entropy``, ``backward()`` and
    ``torch.optim.SGD.step()``.

    Parameters
    ----------
    learning_rate : float, default 0.5
        :math:`\eta`, positive.

    Returns
    -------
    dict
        ``by_hand`` : dict of str to Tensor
            The updated ``weight_ih_l0``, ``weight_hh_l0``, ``linear.weight``, ``linear.bias``.
        ``by_torch`` : dict of str to Tensor
            The same four, as ``torch.optim.SGD`` updated the modules' parameters.
        ``loss_before`` : float
            :math:`\mathcal{L}` before the step, by :func:`loss_and_gradients`.
        ``torch_loss_before`` : float
            :math:`\mathcal{L}` before the step, as the ``nn.RNN`` and ``nn.Linear`` compute it.
        ``loss_after`` : float
            :math:`\mathcal{L}` at the parameters updated by hand.

    Raises
    ------
    TypeError, ValueError
        If ``learning_rate`` is not a positive finite number.

    Notes
    -----
    Plain gradient descent, as PyTorch's ``torch.optim.SGD`` documents it with no momentum,
    dampening or weight decay; chapter "Many-to-one classification, derived".
    The answer does not depend on the caller's grad mode: autograd runs inside
    ``torch.no_grad()`` or ``torch.inference_mode()`` too.

    Examples
    --------
    >>> from rnndoc.classification import sgd_step
    >>> step = sgd_step()
    >>> step["loss_after"] < step["loss_before"]
    True
    """
    learning_rate = check_float("learning_rate", learning_rate, positive=True)
    with grad_on():  # the same step under no_grad or inference_mode
        return _sgd_step(learning_rate)


def _sgd_step(learning_rate: float) -> dict:
    """The body of :func:`sgd_step`, with autograd on."""
    values = tensors()
    loss, grads = loss_and_gradients(values)
    by_hand = {k: values[k] - learning_rate * grads[k] for k in grads}  # theta - lr * grad
    rnn = torch.nn.RNN(
        values["weight_ih_l0"].shape[1], values["weight_ih_l0"].shape[0], bias=False, dtype=torch.float64
    )
    classes, hidden_size = values["linear.weight"].shape
    head = torch.nn.Linear(hidden_size, classes, dtype=torch.float64)
    parameters = dict(rnn.named_parameters()) | {f"linear.{k}": p for k, p in head.named_parameters()}
    with torch.no_grad():
        for name, parameter in parameters.items():
            parameter.copy_(values[name])
    optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=learning_rate)
    _, h_n = rnn(values["inputs"], values["h_0"].unsqueeze(0))  # unbatched: (1, H)
    torch_loss = torch.nn.functional.cross_entropy(head(h_n), torch.tensor([TARGET]))
    optimizer.zero_grad()
    torch_loss.backward()
    optimizer.step()
    after, _ = loss_and_gradients(values | by_hand)
    return {
        "by_hand": by_hand,
        "by_torch": {k: p.detach() for k, p in parameters.items()},
        "loss_before": float(loss),
        "torch_loss_before": float(torch_loss.detach()),
        "loss_after": float(after),
    }
