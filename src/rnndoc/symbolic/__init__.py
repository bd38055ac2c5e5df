"""sympy: the unrolled network, BPTT derived from the chain rule, and the identity proof."""

from .derivation import (
    BPTT,
    GRADIENT_NAMES,
    DeltaRule,
    bptt,
    check_identity,
    derive_delta_rule,
    derive_parameter_rules,
    direct_gradients,
    textbook_delta,
)
from .evaluation import evaluate, to_tensor
from .network import Unrolled, symbolic_parameters, symbolic_sequence, unroll

__all__ = [
    "BPTT",
    "GRADIENT_NAMES",
    "DeltaRule",
    "Unrolled",
    "bptt",
    "check_identity",
    "derive_delta_rule",
    "derive_parameter_rules",
    "direct_gradients",
    "evaluate",
    "symbolic_parameters",
    "symbolic_sequence",
    "textbook_delta",
    "to_tensor",
    "unroll",
]
