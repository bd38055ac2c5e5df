"""The machine-readable mechanics report: every hand-set result as JSON-ready data.

:func:`mechanics_report` runs every witness once on one build of the hand-set data
(:func:`rnndoc.witnesses.witness_all`), hands that one frozen result to :mod:`rnndoc.verdict`
for the checks, runs the experiments (:mod:`rnndoc.experiments`) and adds the environment;
``python -m rnndoc mechanics`` prints it. It compares nothing itself.

Only ``checks`` is judged: one entry per row of :data:`rnndoc.verdict.TOLERANCES`, each the
largest absolute gap with its ``atol`` and whether it ``passed``; each gap is stated there
only (the forward pass's is ``checks["forward"]["max_abs_difference"]``). ``order`` and
``chunks`` are printed for information, not judged: the two orders differ, as they should, and
the carried and reset chunk runs show what carrying the state changes.
"""

from __future__ import annotations

import platform

import sympy
import torch

from . import __version__, experiments, handset
from .finite_differences import FINITE_DIFF_EPS
from .verdict import check_finite_difference_eps, handset_gaps, judge
from .witnesses import _witness_all

__all__ = ["mechanics_report"]


def mechanics_report(eps: float = FINITE_DIFF_EPS) -> dict:
    """Compute every hand-set result and return it as JSON-serialisable data.

    Parameters
    ----------
    eps : float, default 1e-6
        Step of the central finite differences, in :data:`rnndoc.finite_differences.FINITE_DIFF_EPS_RANGE`
        (1e-8 to 1e-4), where the finite-difference tolerance holds.

    Returns
    -------
    dict
        Keys ``scope``, ``environment``, ``setup``, ``loss`` (sympy's exact loss),
        ``loss_nn_rnn`` (the loss of ``nn.RNN``'s output), ``loss_note``, ``forward``, ``gradients``
        (per parameter name, the keys ``sympy``, ``bptt``, ``autograd``,
        ``finite_difference``, nested lists in PyTorch's orientation),
        ``weight_hh_split`` (the (use s, loss term t) table of
        :func:`rnndoc.bptt.gradient_split` and its sums over t and over s), ``order``,
        ``chunks`` and ``checks``: per witness its largest gap to sympy, and for the forward
        pass, the loss and the W_hh split their largest gap; each with its ``atol`` and
        whether it ``passed``. Only ``checks`` is judged (see the module's description).

    Raises
    ------
    TypeError
        If ``eps`` is not a number.
    ValueError
        If ``eps`` lies outside :data:`rnndoc.finite_differences.FINITE_DIFF_EPS_RANGE`.

    Examples
    --------
    >>> from rnndoc.report import mechanics_report
    >>> report = mechanics_report()
    >>> sorted(report["gradients"]["h_0"])
    ['autograd', 'bptt', 'finite_difference', 'sympy']
    >>> all(check["passed"] for check in report["checks"].values())
    True
    """
    # the hand-set data built once, every witness run on it
    witnessed = _witness_all(check_finite_difference_eps(eps))
    values, fwd, split = witnessed.values, witnessed.forward, witnessed.split  # split: (use s, loss t, H, H)
    checks = judge(handset_gaps(witnessed))
    order = experiments.order_sensitivity("CAB")
    chunks = experiments.chunked_forward(2)
    return {
        "scope": "Hand-set two-unit tanh RNN (float64, CPU): forward, loss, BPTT gradients by four witnesses.",
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "sympy": sympy.__version__,
            "rnndoc": __version__,
            "dtype": str(fwd.output.dtype).removeprefix("torch."),  # as nn.RNN computed the report's numbers
            "device": str(fwd.output.device),
        },
        "setup": {
            "parameters": {name: values[name].tolist() for name in handset.PARAMETER_NAMES if name != "h_0"},
            "h_0": values["h_0"].tolist(),
            "sequence": handset.SEQUENCE,
            "inputs": values["inputs"][0].tolist(),  # the one sequence: (L, H_in)
            "targets": values["targets"][0].tolist(),  # (L, H)
            "batch_first": True,
            "shapes": {
                "input": list(values["inputs"].shape),
                "output": list(fwd.output.shape),
                "h_0": list(values["h_0"].shape),
                "h_n": list(fwd.h_n.shape),
            },
            "finite_difference_eps": eps,
        },
        "loss": float(witnessed.exact_loss),  # exact: sympy's, rounded once to float64
        "loss_nn_rnn": fwd.loss,  # of nn.RNN's output, in float64
        "loss_note": "loss: the exact loss by sympy, rounded once to float64; loss_nn_rnn: the loss of "
        'nn.RNN\'s output, in float64; their gap is checks["loss"].',
        "forward": {
            "preactivations": fwd.preactivations,
            "hidden": fwd.hidden,
            "hidden_torch": fwd.output[0].tolist(),
            "h_n": fwd.h_n.tolist(),
        },
        "gradients": {  # per parameter, each witness's gradient
            name: {witness: grads[name].tolist() for witness, grads in witnessed.gradients.items()}
            for name in handset.PARAMETER_NAMES
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
            "reordered_h_n": order.reordered_h_n.tolist(),  # (1, 1, H); in the order itself h_n is forward.h_n
            "note": "h_n in the original order is forward.h_n (the same run), so it is not repeated here.",
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
