"""What a recurrent layer costs: parameter counts and multiply-adds per step."""

from __future__ import annotations

from .._validate import check_bool, check_int

__all__ = ["lstm_costs"]


def lstm_costs(input_size: int, hidden_size: int, proj_size: int = 0, bias: bool = True) -> dict[str, int]:
    r"""Parameters and multiply-adds per step of one LSTM layer and direction, with or without LSTMP.

    With :math:`H_{out}` = ``proj_size`` if set, else :math:`H`:

    .. math::

        \begin{aligned}
        \text{parameters} &= 4H\,H_{in} + 4H\,H_{out} + 8H\,[\text{bias}] + P\,H\,[\text{proj}], \\
        \text{multiply-adds} &= 4H\,H_{in} + 4H\,H_{out} + P\,H\,[\text{proj}]
        \end{aligned}

    per sample and step (the matrix products; the element-wise gate work is :math:`O(H)`).
    The projection shrinks every recurrent product from :math:`4H \cdot H` to
    :math:`4H \cdot P` at the price of one :math:`P \times H` product (Sak et al. 2014).

    Parameters
    ----------
    input_size, hidden_size : int
        :math:`H_{in}` and :math:`H`, at least 1.
    proj_size : int, default 0
        :math:`P`, 0 (no projection) or between 1 and ``hidden_size - 1``.
    bias : bool, default True

    Returns
    -------
    dict
        ``parameters`` and ``multiply_adds`` (per sample and step), both int.

    Raises
    ------
    TypeError, ValueError
        If ``bias`` is not a bool, or a size is not an int in its range (``proj_size`` must be below ``hidden_size``,
        as ``nn.LSTM`` requires).

    Examples
    --------
    >>> import torch
    >>> from rnndoc.layers.costs import lstm_costs
    >>> lstm_costs(3, 8, proj_size=2)
    {'parameters': 240, 'multiply_adds': 176}
    >>> sum(p.numel() for p in torch.nn.LSTM(3, 8, proj_size=2).parameters())
    240
    """
    check_bool("bias", bias)
    h_in, h = check_int("input_size", input_size, minimum=1), check_int("hidden_size", hidden_size, minimum=1)
    p = check_int("proj_size", proj_size, minimum=0)
    if p >= h:
        raise ValueError(f"proj_size must be below hidden_size = {h}, got {p}")
    h_out = p or h
    multiply_adds = 4 * h * h_in + 4 * h * h_out + p * h
    return {"parameters": multiply_adds + (8 * h if bias else 0), "multiply_adds": multiply_adds}
