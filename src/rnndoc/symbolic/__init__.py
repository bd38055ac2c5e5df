"""sympy: the unrolled network, BPTT derived from the chain rule, and the identity proof.

One symbol factory (:func:`symbol_matrix`), one evaluation policy (:func:`evaluate`) and one
conversion to tensors (:func:`to_tensor`) serve every module here.
"""

from .derivation import DeltaRule, derive_delta_rule, textbook_delta
from .evaluation import evaluate, to_tensor
from .gradients import BPTT, bptt, check_identity, direct_gradients
from .network import Unrolled, symbolic_parameters, symbolic_sequence, unroll
from .parameter_rules import ParameterRules, derive_parameter_rules
from .symbols import symbol_matrix

__all__ = [
    "BPTT",
    "DeltaRule",
    "ParameterRules",
    "Unrolled",
    "bptt",
    "check_identity",
    "derive_delta_rule",
    "derive_parameter_rules",
    "direct_gradients",
    "evaluate",
    "symbol_matrix",
    "symbolic_parameters",
    "symbolic_sequence",
    "textbook_delta",
    "to_tensor",
    "unroll",
]
