"""The machine-readable mechanics report: every hand-set result as JSON-ready data.

:func:`mechanics_report` gathers the forward pass, the loss, the five gradients by four
witnesses, the order and chunking experiments, and the environment; ``python -m rnndoc
mechanics`` prints it.
"""

from __future__ import annotations

import platform

import sympy
import torch

from . import __version__, handset
from .bptt import gradient_split, hidden_state_loss
from .verdict import EXACT_ATOL, FINITE_DIFF_ATOL, FINITE_DIFF_EPS, FORWARD_ATOL, max_abs_difference
from .mechanics import (
    autograd_gradients,
    bptt_handset_gradients,
    chunked_forward,
    exact_loss,
    finite_difference_gradients,
    forward,
    order_sensitivity,
    sympy_gradients,
)

__all__ = ["WITNESSES", "mechanics_report"]

#: The three witnesses compared with sympy, and the tolerance each must meet.
WITNESSES = {"bptt": EXACT_ATOL, "autograd": EXACT_ATOL, "finite_difference": FINITE_DIFF_ATOL}


def _flat_max(per_name: dict[str, dict[str, torch.Tensor]], witness: str) -> float:
    return max(max_abs_difference(g[witness], g["sympy"]) for g in per_name.values())


def mechanics_report(eps: float = FINITE_DIFF_EPS) -> dict:
    """Compute every hand-set result and return it as JSON-serialisable data.

    Parameters
    ----------
    eps : float, default 1e-6
        Step of the central finite differences.

    Returns
    -------
    dict
        Keys ``scope``, ``environment``, ``setup``, ``loss``, ``forward``, ``gradients``
        (per parameter name, the keys ``sympy``, ``bptt``, ``autograd``,
        ``finite_difference``, nested lists in PyTorch's orientation),
        ``weight_hh_split``, ``order``, ``chunks`` and ``checks``: per witness its
        largest gap to sympy, and for the forward pass, the loss and the W_hh split
        their largest gap; each with its ``atol`` and whether it ``passed``.

    Raises
    ------
    ValueError
        If ``eps`` is not positive and finite.

    Examples
    --------
    >>> from rnndoc.report import mechanics_report
    >>> report = mechanics_report()
    >>> sorted(report["gradients"]["h_0"])
    ['autograd', 'bptt', 'finite_difference', 'sympy']
    >>> all(check["passed"] for check in report["checks"].values())
    True
    """
    values = handset.tensors()
    fwd = forward()
    order = order_sensitivity("CAB")
    chunks = chunked_forward(2)
    witnesses = {
        "sympy": sympy_gradients(),
        "bptt": bptt_handset_gradients(),
        "autograd": autograd_gradients(),
        "finite_difference": finite_difference_gradients(eps),
    }
    gradients = {
        name: {witness: grads[name] for witness, grads in witnesses.items()}
        for name in handset.PARAMETER_NAMES
    }
    split = gradient_split(
        *(values[k] for k in ("inputs", "targets", "h_0")),
        *(values[k] for k in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")),
    )  # (use s, loss t, H, H)
    checks = {}
    for witness, atol in WITNESSES.items():
        gap = _flat_max(gradients, witness)
        checks[witness] = {"max_abs_difference_to_sympy": gap, "atol": atol, "passed": gap <= atol}
    loss_exact = float(exact_loss())
    loss_gap = max_abs_difference(hidden_state_loss(fwd.output[0], values["targets"]), loss_exact)
    split_gap = max_abs_difference(split.sum((0, 1)), gradients["weight_hh_l0"]["sympy"])  # (H, H)
    for name, gap, atol in (
        ("forward", fwd.max_abs_error, FORWARD_ATOL),
        ("loss", loss_gap, EXACT_ATOL),
        ("weight_hh_split", split_gap, EXACT_ATOL),
    ):
        checks[name] = {"max_abs_difference": gap, "atol": atol, "passed": gap <= atol}
    return {
        "scope": "Hand-set two-unit tanh RNN (float64, CPU): forward, loss, BPTT gradients by four witnesses.",
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "sympy": sympy.__version__,
            "rnndoc": __version__,
            "dtype": "float64",
            "device": "cpu",
        },
        "setup": {
            "parameters": {name: values[name].tolist() for name in handset.PARAMETER_NAMES if name != "h_0"},
            "h_0": values["h_0"].view(1, 1, -1).tolist(),
            "sequence": handset.SEQUENCE,
            "inputs": values["inputs"].tolist(),
            "targets": values["targets"].tolist(),
            "batch_first": True,
            "shapes": {
                "input": list(handset.inputs().shape),
                "output": list(fwd.output.shape),
                "h_0": list(values["h_0"].view(1, 1, -1).shape),
                "h_n": list(fwd.h_n.shape),
            },
            "finite_difference_eps": eps,
        },
        "loss": loss_exact,
        "forward": {
            "preactivations": fwd.preactivations,
            "hidden": fwd.hidden,
            "hidden_torch": fwd.output[0].tolist(),
            "h_n": fwd.h_n.tolist(),
            "max_abs_error": fwd.max_abs_error,
        },
        "gradients": {
            name: {witness: value.tolist() for witness, value in per.items()}
            for name, per in gradients.items()
        },
        "weight_hh_split": {
            "per_use": split.sum(1).tolist(),
            "per_loss_term": split.sum(0).tolist(),
            "use_by_loss_term": split.tolist(),
            "note": "Use s of the shared W_hh feeds every loss term t >= s; loss term t receives every use s <= t. "
            "Summing the (s, t) table by rows or by columns gives different parts, one total.",
        },
        "order": {
            "order": order.order,
            "reordered": order.reordered,
            "h_n": order.h_n.tolist(),
            "reordered_h_n": order.reordered_h_n.tolist(),
            "max_abs_difference": order.max_abs_difference,
        },
        "chunks": {
            "split_lengths": [chunks.split, fwd.output.shape[1] - chunks.split],
            "carry_max_abs_error": chunks.carry_max_abs_error,
            "reset_h_n": chunks.reset_h_n.tolist(),
            "reset_max_abs_difference": chunks.reset_max_abs_difference,
        },
        "checks": checks,
    }
