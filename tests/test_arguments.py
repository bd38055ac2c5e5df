"""Every public function refuses bad arguments with a TypeError or ValueError that names the argument.

Generated from one table: for every callable in every public module's ``__all__`` (the package
walked with pkgutil), :data:`TABLE` gives a spec per parameter, a valid value the generator
perturbs by kind (tests/arguments.py): wrong type, wrong shape, wrong dtype, out of range.
Each bad value, with every other argument valid, must raise the error the rule says (wrong
type: TypeError; wrong value: ValueError) and the message must name the argument (or the key
of the mapping entry). A public function missing from the table, or a parameter without a
spec, fails :func:`test_the_table_covers_every_public_function`: new API needs its row.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest
import sympy
import torch
from arguments import (
    Bad,
    Bool,
    Choice,
    Columns,
    Entries,
    Float,
    Function,
    Instance,
    Int,
    Ints,
    Matrix,
    Numbers,
    Rows,
    Spec,
    Str,
    Tensor,
    custom,
    optional,
)
from arguments_layers import LAYERS_TABLE

import rnndoc
from rnndoc import classification, handset, witnesses
from rnndoc.adding import AddingModel, AddingRun
from rnndoc.charlm import CharLM
from rnndoc.symbolic import derive_delta_rule, symbolic_parameters, unroll
from rnndoc.symbolic.gated import handset_point, step_symbols

# ---- valid values, made fresh for each call ------------------------------------------------


def _f64(*shape: int) -> torch.Tensor:
    return torch.zeros(*shape, dtype=torch.float64)


def _entries(make, shapes=None) -> Entries:
    """A mapping of tensors: every entry perturbed by type, dtype and (unless told) shape."""
    value = make()
    return Entries(make, entries={key: Tensor(lambda key=key: make()[key]) for key in value})


def _symbolic_network():
    return unroll(symbolic_parameters(1, 1), [[1]], [[0]])


LENGTHS = custom(
    lambda: torch.tensor([2, 3, 1]),
    ("type", [2, 3, 1], TypeError),
    ("dtype", torch.tensor([2.0, 3.0, 1.0]), TypeError),
    ("shape", torch.tensor([[2, 3, 1]]), ValueError),
    ("range", torch.tensor([0, 3, 1]), ValueError),
)
ORDER = custom(lambda: "ABC", ("type", 3, TypeError), ("range", "ABD", ValueError), ("range", "", ValueError))
DTYPE = custom(lambda: None, ("type", "float64", TypeError), ("range", torch.int64, ValueError))
HANDSET_VALUES = _entries(handset.tensors)
CLASSIFIER_VALUES = _entries(classification.tensors)
TARGET = Int(lambda: 1, minimum=0, maximum=1)
DIGITS_17 = Int(lambda: 50, minimum=17)
EPS = Float(lambda: 1e-6, positive=True)
SIZE = Int(lambda: 1, minimum=1)
NUMBERS = custom(lambda: [1.0, 2.0], ("type", "x", TypeError), ("type", {"a": 1}, TypeError))
SYMBOLIC_PARAMETERS = Entries(
    lambda: symbolic_parameters(1, 1),
    entries={
        "weight_ih_l0": Matrix(
            lambda: symbolic_parameters(1, 1)["weight_ih_l0"], shape=lambda m: sympy.zeros(0, 1)
        ),
        **{
            name: Matrix(lambda name=name: symbolic_parameters(1, 1)[name])
            for name in ("weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "h_0")
        },
    },
)


def _step(kind: str) -> Entries:
    make = lambda: step_symbols(kind, 1, 1)
    return Entries(make, entries={key: Matrix(lambda key=key: make()[key]) for key in make()})


def _rnn():
    return handset.make_rnn()[0]


def _step_jacobian(gates: int) -> dict[str, Spec]:
    """Specs of one unbatched step (H = 2, H_in = 1; c_prev for the LSTM's four gates)."""
    state = {"h_prev": Tensor(lambda: _f64(2))} | ({"c_prev": Tensor(lambda: _f64(2))} if gates == 4 else {})
    return {
        "x_t": Tensor(lambda: _f64(1)),
        **state,
        "weight_ih": Tensor(lambda: _f64(gates * 2, 1)),
        "weight_hh": Tensor(
            lambda: _f64(gates * 2, 2),
            extra=(
                Bad("shape", lambda: _f64(gates * 2 + 1, 2), ValueError),
                Bad("dtype", lambda: torch.zeros(gates * 2, 2, dtype=torch.float32), TypeError),
            ),
        ),
        "bias_ih": optional(Tensor(lambda: _f64(gates * 2)), valid_none=False),
        "bias_hh": optional(Tensor(lambda: _f64(gates * 2))),
    }


def _figure_with_text():
    import matplotlib.figure  # noqa: PLC0415

    fig = matplotlib.figure.Figure(figsize=(2.0, 1.0))
    fig.text(0.5, 0.5, "x")
    return fig


RECURRENT = Instance(
    lambda: torch.nn.LSTM(2, 3, dtype=torch.float64),
    extra=(
        Bad("type", lambda: torch.nn.Linear(2, 2), TypeError),
        Bad("range", lambda: torch.nn.GRU(2, 3, num_layers=2, dtype=torch.float64), ValueError),
        Bad("range", lambda: torch.nn.RNN(2, 3, nonlinearity="relu", dtype=torch.float64), ValueError),
    ),
)
SEQUENCE = Tensor(
    lambda: _f64(4, 2),
    extra=(
        Bad("shape", lambda: _f64(4, 3), ValueError),
        Bad("dtype", lambda: torch.zeros(4, 2), TypeError),  # the module's dtype is float64
    ),
)

RNN = Instance(
    _rnn,
    extra=(
        Bad("type", lambda: torch.nn.Linear(2, 2), TypeError),
        Bad(
            "range",
            lambda: torch.nn.RNN(2, 2, num_layers=2, batch_first=True, dtype=torch.float64),
            ValueError,
        ),
    ),
)

#: For every public callable, by its defining module and name: one spec per parameter.
TABLE: dict[str, dict[str, Spec]] = {
    # handset: the data
    "rnndoc.handset.exact": {"order": ORDER},
    "rnndoc.handset.floats": {"order": ORDER},
    "rnndoc.handset.tensors": {"order": ORDER, "dtype": DTYPE},
    "rnndoc.handset.inputs": {"order": ORDER, "dtype": DTYPE},
    "rnndoc.handset.make_rnn": {"dtype": DTYPE},
    # the torch-free witness
    "rnndoc.reference.handset_forward": {"order": ORDER},
    "rnndoc.reference.rnn_forward": {
        "inputs": Rows(lambda: [[1.0, 0.0]]),
        "h_0": Numbers(lambda: [0.0, 0.0], fixed_length=True),
        "weight_ih": custom(
            lambda: [[1.0, 0.0], [0.0, 1.0]],
            ("type", "x", TypeError),
            ("shape", [], ValueError),
            ("dtype", [["a", 0.0], [0.0, 1.0]], TypeError),
        ),
        "weight_hh": Rows(lambda: [[0.0, 0.0], [0.0, 0.0]]),
        "bias_ih": Numbers(lambda: [0.0, 0.0], fixed_length=True),
        "bias_hh": Numbers(lambda: [0.0, 0.0], fixed_length=True),
    },
    # the δ recursion, the loss, truncation
    "rnndoc.loss.hidden_state_loss": {
        "hidden": Tensor(lambda: _f64(1, 3, 2), shape=lambda t: t[0, 0]),
        "targets": Tensor(lambda: _f64(1, 3, 2)),
    },
    "rnndoc.bptt.bptt_gradients": {
        "values": HANDSET_VALUES,
        "truncation": optional(Int(lambda: 2, minimum=1)),
    },
    "rnndoc.bptt.gradient_split": {"values": HANDSET_VALUES},
    "rnndoc.truncated.chunked_autograd_gradients": {
        "rnn": RNN,
        "values": Entries(
            handset.tensors,
            entries={
                key: Tensor(lambda key=key: handset.tensors()[key]) for key in ("inputs", "targets", "h_0")
            },
        ),
        "truncation": Int(lambda: 2, minimum=1),
        "detach": Bool(lambda: True),
    },
    # finite differences
    "rnndoc.finite_differences.central_difference": {
        "function": Function(lambda: lambda v: v.sum()),
        "point": Tensor(lambda: _f64(2), shape=None),
        "eps": EPS,
    },
    "rnndoc.finite_differences.finite_difference_gradients": {"eps": EPS},
    "rnndoc.finite_differences.handset_loss": {
        "rnn": RNN,
        "overrides": custom(
            dict,
            ("type", [], TypeError),
            ("range", {"nope": _f64(2)}, ValueError),
            ("shape", {"weight_hh_l0": _f64(3, 3)}, ValueError),
            ("dtype", {"weight_hh_l0": torch.zeros(2, 2, dtype=torch.int64)}, TypeError),
        ),
        "h_0": Tensor(lambda: handset.make_rnn()[1]),
    },
    # witnesses and experiments
    "rnndoc.witnesses.forward": {},
    "rnndoc.witnesses.autograd_gradients": {},
    "rnndoc.witnesses.bptt_handset_gradients": {},
    "rnndoc.witnesses.sympy_gradients": {"digits": DIGITS_17},
    "rnndoc.witnesses.exact_loss": {"digits": DIGITS_17},
    "rnndoc.witnesses.sympy_weight_hh_split": {"digits": DIGITS_17},
    "rnndoc.witnesses.witness_all": {"eps": EPS},
    "rnndoc.experiments.order_sensitivity": {
        "reordered": custom(lambda: "CAB", ("type", 3, TypeError), ("range", "AAB", ValueError))
    },
    "rnndoc.experiments.chunked_forward": {"split": Int(lambda: 2, minimum=1, maximum=2)},
    "rnndoc.experiments.finite_difference_error": {"eps_values": Numbers(lambda: [1e-6], positive=True)},
    # verdict and its comparisons
    "rnndoc.compare.max_abs_difference": {
        "actual": NUMBERS,
        "expected": custom(lambda: [1.0, 2.0], ("type", "x", TypeError), ("shape", [1.0], ValueError)),
    },
    "rnndoc.compare.assert_close": {
        "actual": NUMBERS,
        "expected": NUMBERS,
        "atol": Float(lambda: 1e-12, minimum=0.0),
        "what": Str(lambda: "values"),
    },
    "rnndoc.verdict.gradient_gaps": {
        "gradients": custom(
            lambda: {"sympy": {"w": [1.0]}, "guess": {"w": [1.5]}},
            ("type", [], TypeError),
            ("range", {}, ValueError),
            ("type", {"sympy": 3}, TypeError),
            ("range", {"sympy": {"w": [1.0]}, "guess": {}}, ValueError),
            ("type", {"sympy": {"w": [1.0]}, "guess": {"w": "x"}}, TypeError),
        ),
        "reference": custom(lambda: "sympy", ("type", 3, TypeError), ("range", "nope", ValueError)),
    },
    "rnndoc.verdict.handset_gaps": {"witnessed": Instance(witnesses.witness_all)},
    "rnndoc.verdict.check_finite_difference_eps": {
        "eps": custom(
            lambda: 1e-6,
            ("type", "1e-6", TypeError),
            ("range", 0.0, ValueError),
            ("range", 1e-2, ValueError),
            ("range", 1e-300, ValueError),
        )
    },
    "rnndoc.verdict.judge": {
        "gaps": custom(
            lambda: {"loss": 0.0},
            ("type", [], TypeError),
            ("range", {"nope": 0.0}, ValueError),
            ("type", {"loss": "x"}, TypeError),
            ("range", {"loss": -1.0}, ValueError),
        )
    },
    "rnndoc.report.mechanics_report": {
        "eps": custom(lambda: 1e-6, ("type", "1e-6", TypeError), ("range", 1e-2, ValueError))
    },
    "rnndoc.cli.build_parser": {},
    "rnndoc.cli.main": {
        "argv": optional(
            custom(lambda: ["--version"], ("type", "mechanics", TypeError), ("type", [1], TypeError))
        )
    },
    # the many-to-one classifier
    "rnndoc.classification.data.exact": {"h_0_zero": Bool(lambda: False)},
    "rnndoc.classification.data.tensors": {"h_0_zero": Bool(lambda: False)},
    "rnndoc.classification.by_torch.loss_and_gradients": {"values": CLASSIFIER_VALUES, "target": TARGET},
    "rnndoc.classification.by_torch.path_contributions": {"values": CLASSIFIER_VALUES, "target": TARGET},
    "rnndoc.classification.by_torch.sgd_step": {"learning_rate": Float(lambda: 0.5, positive=True)},
    "rnndoc.classification.by_sympy.symbolic_gradients": {
        "h_0_zero": Bool(lambda: False),
        "target": TARGET,
        "digits": Int(lambda: 50, minimum=1),
    },
    # vanishing gradients
    "rnndoc.vanishing.state_gradient_norms": {
        "weight_hh": Tensor(lambda: 0.5 * torch.eye(2, dtype=torch.float64)),
        "hidden": Tensor(lambda: _f64(3, 2)),
    },
    "rnndoc.vanishing.autograd_state_gradient_norms": {
        "module": Instance(
            lambda: torch.nn.RNN(2, 3, dtype=torch.float64),
            extra=(Bad("range", lambda: torch.nn.RNN(2, 3, num_layers=2, dtype=torch.float64), ValueError),),
        ),
        "input": Tensor(lambda: _f64(4, 2)),
        "h_0": optional(Tensor(lambda: _f64(3))),
    },
    # sympy
    "rnndoc.symbolic.symbols.symbol_matrix": {
        "stem": Str(lambda: "h"),
        "shape": custom(
            lambda: (2,),
            ("type", [2], TypeError),
            ("range", (), ValueError),
            ("range", (0,), ValueError),
            ("type", (2.5,), TypeError),
        ),
        "prefix": optional(Str(lambda: "t")),
        "start": Int(lambda: 0, minimum=0),
    },
    "rnndoc.symbolic.network.symbolic_parameters": {"input_size": SIZE, "hidden_size": SIZE},
    "rnndoc.symbolic.network.symbolic_sequence": {"length": SIZE, "input_size": SIZE, "hidden_size": SIZE},
    "rnndoc.symbolic.network.unroll": {
        "parameters": SYMBOLIC_PARAMETERS,
        "inputs": optional(Matrix(lambda: [[1]]), valid_none=False),
        "targets": optional(Matrix(lambda: [[0]]), valid_none=False),
    },
    "rnndoc.symbolic.derivation.derive_delta_rule": {"weight_hh": Matrix(lambda: [[2]])},
    "rnndoc.symbolic.derivation.textbook_delta": {"rule": Instance(lambda: derive_delta_rule([[2]]))},
    "rnndoc.symbolic.parameter_rules.derive_parameter_rules": {
        "parameters": Entries(
            SYMBOLIC_PARAMETERS.make,
            entries=dict(SYMBOLIC_PARAMETERS.entries)
            | {"bias_ih_l0": custom(lambda: [[1]], ("range", [[1]], ValueError))},  # numbers, not symbols
        )
    },
    "rnndoc.symbolic.gradients.bptt": {
        "network": Instance(lambda: unroll(handset.exact())),
        "truncation": optional(Int(lambda: 2, minimum=1)),
    },
    "rnndoc.symbolic.gradients.direct_gradients": {
        "network": Instance(_symbolic_network),
        "loss": optional(Instance(lambda: sympy.Symbol("x"))),
    },
    "rnndoc.symbolic.gradients.check_identity": {"network": Instance(_symbolic_network)},
    "rnndoc.symbolic.evaluation.evaluate": {
        "value": custom(lambda: sympy.Rational(1, 3), ("type", "x", TypeError), ("type", None, TypeError)),
        "digits": Int(lambda: 15, minimum=1),
        "subs": optional(custom(dict, ("type", [1], TypeError))),
    },
    "rnndoc.symbolic.evaluation.to_tensor": {
        "value": custom(
            lambda: sympy.Matrix([1, 2]),
            ("type", "x", TypeError),
            ("shape", sympy.Matrix([1, 2, 3]), ValueError),
        ),
        "like": Tensor(lambda: _f64(2), shape=None),
    },
    "rnndoc.symbolic.derivation_cost.derivation_costs": {
        "hidden_size": SIZE,
        "method": Choice(lambda: "recursion"),
        "budget_seconds": Float(lambda: 60.0, positive=True),
        "max_length": SIZE,
        "input_size": SIZE,
        "min_length": SIZE,
    },
    "rnndoc.symbolic.gate_symbols.step_symbols": {
        "kind": Choice(lambda: "GRU"),
        "input_size": SIZE,
        "hidden_size": SIZE,
    },
    "rnndoc.symbolic.gated.lstm_step": {"s": _step("LSTM")},
    "rnndoc.symbolic.gated.gru_step": {"s": _step("GRU")},
    "rnndoc.symbolic.gate_symbols.handset_point": {
        "symbols": custom(
            lambda: step_symbols("GRU", 1, 1), ("type", [], TypeError), ("type", {"h": "x"}, TypeError)
        )
    },
    "rnndoc.symbolic.gated.lstm_bptt": {
        "symbols": _step("LSTM"),
        "point": custom(lambda: handset_point(step_symbols("LSTM", 1, 1)), ("type", [], TypeError)),
        "inputs": Columns(lambda: [sympy.Matrix([1])]),
        "targets": Columns(lambda: [sympy.Matrix([0])]),
        "h_0": Matrix(lambda: sympy.Matrix([sympy.Rational(1, 2)])),
        "c_0": Matrix(lambda: sympy.Matrix([0])),
        "digits": Int(lambda: 20, minimum=1),
    },
    # figures
    "rnndoc.plots.draw_many_to_one": {
        "path_sizes": optional(
            custom(
                lambda: [0.5, 0.25, 0.125],
                ("type", "x", TypeError),
                ("type", [0.5, "a", 0.125], TypeError),
                ("shape", [0.5, 0.25], ValueError),
                ("range", [0.5, -0.25, 0.125], ValueError),
            )
        ),
    },
    "rnndoc.plots.draw_unrolled": {
        "tokens": custom(
            lambda: "ABC", ("type", 3, TypeError), ("range", "", ValueError), ("type", [1], TypeError)
        ),
        "hidden": optional(
            custom(
                lambda: [[0.1, 0.2]] * 3,
                ("type", "x", TypeError),
                ("shape", [[0.1, 0.2]] * 2, ValueError),
                ("dtype", [["a", 0.2]] * 3, TypeError),
            )
        ),
        "h_0": optional(Numbers(lambda: [0.1, 0.2])),
    },
    "rnndoc.plots.plot_finite_difference_error": {
        "eps": Numbers(lambda: [1e-6, 1e-3], positive=True),
        "error": Numbers(lambda: [1e-10, 1e-7], fixed_length=True),
        "chosen": optional(Float(lambda: 1e-6, positive=True)),
    },
    "rnndoc.plots.smallest_text_px": {
        "fig": Instance(_figure_with_text),
        "shown_px": Float(lambda: 342.0, positive=True),
    },
    "rnndoc.colors.network_colors": {
        "labels": custom(
            lambda: ["LSTM", "GRU"],
            ("type", "LSTM", TypeError),
            ("type", ["LSTM", 3], TypeError),
        ),
    },
    "rnndoc.gradient_plots.plot_gradient_norms": {
        "curves": custom(
            lambda: {"a": [1.0, 0.5]},
            ("type", [], TypeError),
            ("type", {"a": "x"}, TypeError),
            ("range", {"a": []}, ValueError),
        ),
        "bounds": optional(
            custom(
                lambda: {"a": 0.5},
                ("type", [], TypeError),
                ("range", {"a": -1.0}, ValueError),
                ("type", {"a": "x"}, TypeError),
                ("range", {"not a curve": 0.5}, ValueError),
            )
        ),
        "measured": Choice(lambda: "solid"),
    },
    "rnndoc.gradient_plots.plot_step_gradients": {
        "panels": custom(
            lambda: {"forward": [[1.0, 0.5]]},
            ("type", [], TypeError),
            ("range", {}, ValueError),
            ("type", {"forward": "x"}, TypeError),
            ("range", {"forward": [[1.0], [2.0]]}, ValueError),
        ),
        "labels": custom(lambda: ["b = 0"], ("type", 3, TypeError), ("range", ["a", "b"], ValueError)),
    },
    "rnndoc.gradient_plots.plot_truncation": {
        "lengths": custom(
            lambda: [1, 2, 3],
            ("type", "x", TypeError),
            ("range", [], ValueError),
            ("range", [0, 1, 2], ValueError),
            ("type", [1.5, 2, 3], TypeError),
        ),
        "errors": Numbers(
            lambda: [0.1, 0.01, 0.0],
            fixed_length=True,
            extra=(Bad("range", lambda: [0.1, -1.0, 0.0], ValueError),),
        ),
    },
    "rnndoc.derivation_cost_plot.plot_derivation_costs": {
        "costs": custom(
            lambda: {(2, "recursion"): [{"length": 1, "size": None, "size_cse": 4}]},
            ("type", [], TypeError),
            ("type", {2: []}, TypeError),
            ("range", {(0, "direct"): []}, ValueError),
            ("range", {(2, "numeric"): []}, ValueError),
            ("type", {(2, "direct"): "x"}, TypeError),
            ("range", {(2, "direct"): [{"length": 1, "size_cse": 4}]}, ValueError),
            ("type", {(2, "direct"): [{"length": 1, "size": "x", "size_cse": 4}]}, TypeError),
        )
    },
    "rnndoc.display.latex_matrix": {
        "values": custom(
            lambda: [[0.5, -0.25], [0.0, 1.0]],
            ("type", "x", TypeError),
            ("type", {"a": 1}, TypeError),
            ("shape", [[[0.5], [1.0]], [[0.0], [1.0]]], ValueError),
        ),
        "digits": optional(Int(lambda: 3, minimum=0)),
    },
    "rnndoc.masking.length_mask": {
        "lengths": LENGTHS,
        "total_length": Int(lambda: 3, minimum=0),
    },
    "rnndoc.masking.masked_mean": {"losses": Tensor(lambda: _f64(3, 3)), "lengths": LENGTHS},
    "rnndoc.cell_diagrams.draw_lstm_cell": {},
    "rnndoc.cell_diagrams.draw_gru_cell": {},
    "rnndoc.cell_diagrams.draw_lstm_gates": {},
    "rnndoc.cell_diagrams.draw_gru_gates": {},
    "rnndoc.cell_diagrams.draw_lstm_deltas": {},
    "rnndoc.cell_diagrams.draw_gru_deltas": {},
    "rnndoc.cell_diagrams.draw_rnn_deltas": {},
    "rnndoc.layer_diagrams.draw_bidirectional": {
        "length": Int(lambda: 4, minimum=2, maximum=5),
        "forward_final": Int(lambda: 3, minimum=0, maximum=3),
        "reverse_final": Int(lambda: 0, minimum=0, maximum=3),
    },
    "rnndoc.layer_diagrams.draw_h_n_rows": {
        "rows": custom(
            lambda: [(0, "forward"), (0, "reverse")],
            ("type", "x", TypeError),
            ("range", [], ValueError),
            ("range", [(0, "forward")] * 9, ValueError),
            ("type", [(0.5, "forward"), (0, "reverse")], TypeError),
            ("range", [(0, "sideways"), (0, "reverse")], ValueError),
            ("range", [(-1, "forward"), (0, "reverse")], ValueError),
            ("shape", [(0,), (0, "reverse")], ValueError),
        ),
        "notes": custom(
            lambda: ["a", "b"],
            ("type", "x", TypeError),
            ("type", ["a", 1], TypeError),
            ("shape", ["a"], ValueError),
        ),
    },
    "rnndoc.layer_diagrams.draw_lstm_state_jacobian": {},
    "rnndoc.layer_diagrams.draw_packed": {
        "lengths": custom(
            lambda: [2, 1],
            ("type", "x", TypeError),
            ("range", [], ValueError),
            ("range", [1] * 5, ValueError),
            ("range", [6, 1], ValueError),
            ("type", [1.5, 1], TypeError),
        ),
        "data": custom(
            lambda: [(0, 1), (1, 1), (0, 2)],
            ("type", "x", TypeError),
            ("shape", [(0, 1, 2), (1, 1), (0, 2)], ValueError),
            ("range", [(0, 1), (1, 1)], ValueError),
            ("range", [(0, 1), (1, 2), (0, 2)], ValueError),
            ("range", [(0, 1), (2, 1), (0, 2)], ValueError),
            ("type", [(0.0, 1), (1, 1), (0, 2)], TypeError),
        ),
        "batch_sizes": custom(
            lambda: [2, 1],
            ("type", "x", TypeError),
            ("type", [2.0, 1], TypeError),
            ("range", [2, 2], ValueError),
            ("range", [0, 3], ValueError),
        ),
    },
    # the gated state Jacobians
    **{
        f"rnndoc.state_jacobian.steps.{kind}_step_jacobian": _step_jacobian(gates)
        for kind, gates in (("rnn", 1), ("lstm", 4), ("gru", 3))
    },
    "rnndoc.state_jacobian.chain.state_jacobians": {"module": RECURRENT, "input": SEQUENCE},
    "rnndoc.state_jacobian.chain.autograd_state_jacobians": {"module": RECURRENT, "input": SEQUENCE},
    "rnndoc.state_jacobian.gates.gate_values": {
        "module": Instance(
            lambda: torch.nn.GRU(2, 3, dtype=torch.float64),
            extra=(Bad("type", lambda: torch.nn.RNN(2, 3, dtype=torch.float64), TypeError),),
        ),
        "input": SEQUENCE,
    },
    "rnndoc.state_jacobian.gates.raise_forget_bias": {
        "lstm": Instance(
            lambda: torch.nn.LSTM(2, 3),
            extra=(
                Bad("type", lambda: torch.nn.GRU(2, 3), TypeError),
                Bad("range", lambda: torch.nn.LSTM(2, 3, bias=False), ValueError),
            ),
        ),
        "delta": Float(lambda: 1.0),
    },
    "rnndoc.state_jacobian.gates.raise_update_bias": {
        "gru": Instance(
            lambda: torch.nn.GRU(2, 3),
            extra=(
                Bad("type", lambda: torch.nn.LSTM(2, 3), TypeError),
                Bad("range", lambda: torch.nn.GRU(2, 3, bias=False), ValueError),
            ),
        ),
        "delta": Float(lambda: 1.0),
    },
    # the adding problem
    "rnndoc.adding.task.adding_batch": {
        "batch_size": SIZE,
        "length": Int(lambda: 6, minimum=6),  # 2 * first_window + 2
        "first_window": Int(lambda: 2, minimum=1, maximum=2),  # length >= 2 * first_window + 2
        "generator": Instance(lambda: torch.Generator().manual_seed(0)),
        "dtype": custom(
            lambda: torch.float64,
            ("type", "float64", TypeError),
            ("type", None, TypeError),
            ("range", torch.int64, ValueError),
        ),
    },
    "rnndoc.adding.training.AddingModel": {
        "mode": Choice(lambda: "LSTM"),
        "hidden_size": SIZE,
        "forget_bias": Float(lambda: 1.0, extra=(Bad("range", lambda: float("inf"), ValueError),)),
    },
    "rnndoc.adding.task.evaluate": {
        "model": Function(lambda: lambda x: x[:, 0, 0]),
        "inputs": Tensor(lambda: _f64(3, 4, 2)),
        "targets": Tensor(lambda: _f64(3), extra=(Bad("shape", lambda: _f64(2), ValueError),)),
    },
    "rnndoc.adding.training.train_adding": {
        "model": Instance(lambda: AddingModel("GRU", 2)),
        "steps": SIZE,
        "seed": Int(lambda: 0, minimum=0),
        "batch_size": SIZE,
        "lr": Float(lambda: 0.01, positive=True),
        "length": Int(lambda: 6, minimum=6),
        "first_window": Int(lambda: 2, minimum=1, maximum=2),
        "eval_every": SIZE,
        "held_out": optional(
            custom(
                lambda: (_f64(3, 6, 2), _f64(3)),
                ("type", "x", TypeError),
                ("range", (_f64(3, 6, 2),), ValueError),
                ("shape", (_f64(3, 6, 1), _f64(3)), ValueError),
                ("shape", (_f64(3, 6, 2), _f64(2)), ValueError),
                ("dtype", (_f64(3, 6, 2).long(), _f64(3)), TypeError),
            )
        ),
        "probe": optional(Function(lambda: lambda model: 0.0)),
    },
    "rnndoc.adding.plotting.plot_learning_curves": {
        "runs": custom(
            lambda: {"a": AddingRun([0, 10], [0.2, 0.01], [0.1, 0.9], [1.0, 0.5])},
            ("type", [], TypeError),
            ("type", {"a": [0.2, 0.01]}, TypeError),
            ("type", {1: AddingRun([0, 10], [0.2, 0.01], [0.1, 0.9], [1.0, 0.5])}, TypeError),
            ("range", {"a": AddingRun([0, 10], [0.2], [0.1, 0.9])}, ValueError),
        ),
        "colors": optional(
            custom(
                lambda: {"a": "C0"},
                ("type", ["C0"], TypeError),
                ("range", {"a": "not a colour"}, ValueError),
            )
        ),
        "probe_label": optional(Str(lambda: "norm")),
        "probe_threshold": optional(Float(lambda: 0.5, positive=True)),
    },
    # the character-level language model
    "rnndoc.charlm.bracket_text": {"lines": SIZE, "seed": Int(lambda: 0, minimum=0)},
    "rnndoc.charlm.encode": {
        "text": custom(lambda: "(cat)\n", ("type", 3, TypeError), ("range", "cat!", ValueError)),
    },
    "rnndoc.charlm.decode": {
        "indices": custom(
            lambda: torch.tensor([0, 1]),
            ("type", [0, 1], TypeError),
            ("dtype", torch.tensor([0.0]), TypeError),
            ("shape", torch.tensor([[0]]), ValueError),
            ("range", torch.tensor([-1]), ValueError),
            ("range", torch.tensor([99]), ValueError),
        ),
    },
    "rnndoc.charlm.CharLM": {"mode": Choice(lambda: "GRU"), "hidden_size": SIZE},
    "rnndoc.charlm.evaluate": {
        "model": Instance(
            lambda: CharLM("GRU", 2), extra=(Bad("type", lambda: torch.nn.GRU(2, 2), TypeError),)
        ),
        "text": custom(
            lambda: "(cat)\n", ("type", 3, TypeError), ("range", "c", ValueError), ("range", "c!", ValueError)
        ),
    },
    "rnndoc.charlm.sample": {
        "model": Instance(lambda: CharLM("GRU", 2)),
        "start": custom(
            lambda: "(", ("type", 3, TypeError), ("range", "", ValueError), ("range", "!", ValueError)
        ),
        "length": SIZE,
        "temperature": Float(lambda: 1.0, minimum=0.0),
        "generator": optional(Instance(lambda: torch.Generator().manual_seed(0))),
    },
    "rnndoc.charlm.closing_brackets": {
        "text": custom(
            lambda: "(a [b])",
            ("type", 3, TypeError),
            ("range", "(a]", ValueError),
            ("range", "((a)", ValueError),
        ),
    },
    "rnndoc.counting.anbn": {
        "ns": custom(
            lambda: [1, 3],
            ("type", 3, TypeError),
            ("type", [1.5], TypeError),
            ("range", [0], ValueError),
            ("range", [], ValueError),
        ),
    },
    "rnndoc.counting.anbn_correct": {
        "logits": custom(
            lambda: torch.zeros(2, 6, 3),
            ("type", [0.0], TypeError),
            ("dtype", torch.zeros(2, 6, 3, dtype=torch.int64), TypeError),
            ("shape", torch.zeros(2, 5, 3), ValueError),
            ("shape", torch.zeros(3, 6, 3), ValueError),
        ),
        "ns": custom(lambda: [1, 3], ("type", 3, TypeError), ("range", [0, 3], ValueError)),
    },
    "rnndoc.charlm.nesting_depth": {
        "text": custom(lambda: "(a [b])", ("type", 3, TypeError), ("range", "(a]", ValueError)),
    },
    "rnndoc.charlm.bootstrap_interval": {
        "values": Tensor(lambda: torch.tensor([0.2, 0.4, 0.6], dtype=torch.float64)),
        "groups": custom(
            lambda: torch.tensor([0, 0, 1]),
            ("type", [0, 0, 1], TypeError),
            ("dtype", torch.zeros(3), TypeError),
            ("shape", torch.tensor([0, 1]), ValueError),
        ),
        "draws": Int(lambda: 20, minimum=1),
        "level": Float(lambda: 0.9, positive=True, maximum=1.0),
        "seed": Int(lambda: 0, minimum=0),
    },
    "rnndoc.charlm.closer_probabilities": {
        "model": Instance(lambda: CharLM("LSTM", 2)),
        "text": custom(
            lambda: "(cat)",
            ("type", 3, TypeError),
            ("range", "(cat", ValueError),
            ("range", "(c!)", ValueError),
        ),
    },
    # wording: the sentences chosen from measurements
    "rnndoc.wording.minus": {
        "value": Float(lambda: -1.02),
        "spec": Str(lambda: "+.2f", extra=(Bad("range", lambda: "zz", ValueError),)),
    },
    "rnndoc.wording.listed": {
        "items": custom(lambda: [0, 1, 2], ("type", 3, TypeError), ("type", "abc", TypeError)),
    },
    "rnndoc.wording.seeds": {"items": Ints(lambda: [1, 2], minimum=0, non_empty=True)},
    "rnndoc.wording.in_runs": {
        "held": Int(lambda: 2, minimum=0, maximum=3),
        "runs": Int(lambda: 3, minimum=1, extra=(Bad("range", lambda: 1, ValueError),)),  # below held
        "noun": Str(lambda: "seed", extra=(Bad("range", lambda: "", ValueError),)),
    },
    "rnndoc.wording.compared": {"value": Float(lambda: 0.89), "other": Float(lambda: 0.83)},
    "rnndoc.wording.dip_text": {
        "lowest": Float(lambda: 0.49, minimum=0.0),
        "step": Int(lambda: 700, minimum=0),
        "dipped": Bool(lambda: True),
    },
    "rnndoc.wording.dip_check": {
        "dipped": Bool(lambda: True),
        "last_below": custom(
            lambda: 700,
            ("type", "700", TypeError),
            ("type", 700.0, TypeError),
            ("type", True, TypeError),
            ("range", -1, ValueError),
            ("range", None, ValueError),  # dipped: the step is needed
            ("range", 1200, ValueError),  # not before learned
        ),
        "learned": Int(lambda: 1200, minimum=0, extra=(Bad("range", lambda: 700, ValueError),)),
    },
    "rnndoc.wording.late_text": {
        "last_failed": Int(lambda: 800, minimum=0),
        "budget": Int(lambda: 1000, minimum=1),
    },
    "rnndoc.wording.norm_reach_text": {  # above > 0 exactly when largest > threshold
        "largest": Float(lambda: 1.5, minimum=0.0, extra=(Bad("range", lambda: 0.5, ValueError),)),
        "threshold": Float(lambda: 1.0, positive=True, extra=(Bad("range", lambda: 2.0, ValueError),)),
        "above": Int(lambda: 2, minimum=0, extra=(Bad("range", lambda: 0, ValueError),)),
    },
    "rnndoc.wording.other_depth_cells": {
        "cells": custom(
            lambda: [(21, 1, 0.891), (20, 2, 0.833)],
            ("type", "x", TypeError),
            ("type", [3], TypeError),
            ("shape", [(21, 1)], ValueError),
            ("type", [(21.0, 1, 0.891)], TypeError),
            ("type", [(21, True, 0.891)], TypeError),
            ("type", [(21, 1, "0.9")], TypeError),
            ("range", [(-1, 1, 0.891)], ValueError),
            ("range", [(21, -1, 0.891)], ValueError),
            ("range", [(21, 1, -0.891)], ValueError),  # the absolute value
            ("range", [(21, 1, 1.5)], ValueError),
            ("range", [(21, 1, float("nan"))], ValueError),
        ),
    },
    "rnndoc.wording.step_down_text": {
        "missed": Ints(lambda: [1, 2], minimum=0, extra=(Bad("range", lambda: [1], ValueError),)),
        "forgetting": Ints(lambda: [2], minimum=0, extra=(Bad("range", lambda: [3], ValueError),)),
        "close_write": Float(lambda: -0.02),
        "open_write": Float(lambda: 0.6),
        "close_f": Float(lambda: 0.42, minimum=0.0, maximum=1.0),
        "inside_f": Float(lambda: 0.9, minimum=0.0, maximum=1.0),
    },
    "rnndoc.wording.forget_note": {
        "missed": Ints(lambda: [2], minimum=0),
        "lowest": Float(lambda: 0.904, minimum=0.0, maximum=1.0),
    },
    "rnndoc.wording.output_open_text": {
        "lowest": Float(lambda: 0.6, minimum=0.0, maximum=1.0),
        "threshold": Float(lambda: 0.5, minimum=0.0, maximum=1.0),
    },
    "rnndoc.wording.median_missed_text": {
        "missed": Ints(lambda: [2], minimum=0, extra=(Bad("range", lambda: [3], ValueError),)),
        "medians": custom(
            lambda: {2: 0.42, 3: 0.88},
            ("type", [0.42, 0.88], TypeError),
            ("type", {"2": 0.42}, TypeError),
            ("type", {2: "0.42"}, TypeError),
            ("range", {-1: 0.42, 2: 0.42}, ValueError),
            ("range", {2: 1.5}, ValueError),
            ("range", {3: 0.88}, ValueError),  # no median for seed 2
            ("range", {2: 0.6, 3: 0.88}, ValueError),  # seed 2's median above the level
        ),
        "lower_f": Bool(lambda: True),
        "f_between": custom(
            lambda: {2: 0.9, 3: 0.97},
            ("type", [0.9, 0.97], TypeError),
            ("type", {2.0: 0.9}, TypeError),
            ("type", {2: None}, TypeError),
            ("range", {2: -0.9}, ValueError),
            ("range", {3: 0.97}, ValueError),  # none for seed 2, and lower_f is true
        ),
        "level": Float(
            lambda: 0.5, minimum=0.0, maximum=1.0, extra=(Bad("range", lambda: 0.3, ValueError),)
        ),  # 0.3: below seed 2's median
    },
    "rnndoc.wording.fit_text": {
        "gru_fit": Ints(lambda: [8, 9], minimum=0, extra=(Bad("range", lambda: [8, 12], ValueError),)),
        "lstm_fit": Ints(
            lambda: [12, 20], minimum=0, non_empty=True, extra=(Bad("range", lambda: [9, 20], ValueError),)
        ),
    },
    "rnndoc.wording.gru_loss_text": {
        "rnn_lowest": Float(lambda: 0.3, minimum=0.0),
        "gru_highest": Float(lambda: 0.2, minimum=0.0),
    },
    "rnndoc.wording.first_b_moves": {"first_b": Float(lambda: 0.25)},
    "rnndoc.wording.gru_vs_rnn_text": {
        "rnn": Numbers(lambda: [2.61, 2.62], positive=True),
        "gru": Numbers(lambda: [2.65, 2.68], positive=True, fixed_length=True),
    },
    "rnndoc.wording.first_b_takes_text": {
        "takes": Int(lambda: 1, minimum=0),
        "counting": Int(lambda: 3, minimum=1),
    },
    "rnndoc.wording.short_lead": {"past": Int(lambda: -2)},  # negative: short of the range
    "rnndoc.wording.carry": {"past": Int(lambda: 1)},
    "rnndoc.wording.passes": {"ok": Bool(lambda: True)},
    "rnndoc.wording.short_meaning": {
        "reach_ok": Bool(lambda: True),
        "show_ok": Bool(lambda: False),
        "past": Int(lambda: 1),
    },
}

#: Classes the package returns as results (frozen dataclasses); callers read them, never build them.
RESULTS = {
    "rnndoc.bptt.BPTTGradients",
    "rnndoc.experiments.Chunks",
    "rnndoc.experiments.Order",
    "rnndoc.symbolic.derivation.DeltaRule",
    "rnndoc.symbolic.gradients.BPTT",
    "rnndoc.symbolic.network.Unrolled",
    "rnndoc.symbolic.parameter_rules.ParameterRules",
    "rnndoc.witnesses.Forward",
    "rnndoc.witnesses.Witnessed",
    "rnndoc.adding.training.AddingRun",
}

TABLE |= LAYERS_TABLE

#: Public modules not yet swept (none now). Each entry must still name a public module, so the
#: list cannot outlive them.
NOT_YET: tuple[str, ...] = ()

# ---- the generator ------------------------------------------------------------------------------


def _public_modules():
    for info in pkgutil.walk_packages(rnndoc.__path__, "rnndoc."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            yield importlib.import_module(info.name)


def _public_callables() -> dict[str, object]:
    found = {}
    for module in _public_modules():
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


PUBLIC = _public_callables()
CASES = [
    pytest.param(function, argument, bad, id=f"{function}-{argument}-{bad.kind}{k}")
    for function, specs in TABLE.items()
    for argument, spec in specs.items()
    for k, bad in enumerate(spec.bad())
]


def test_every_public_module_declares_its_api():
    missing = [module.__name__ for module in _public_modules() if not hasattr(module, "__all__")]
    assert missing == []


def test_the_table_covers_every_public_function():
    for prefix in NOT_YET:
        assert any(name.startswith(prefix) for name in PUBLIC), f"{prefix} is no longer public: drop it"
    callables = {name for name in PUBLIC if not name.startswith(NOT_YET)}
    assert callables - set(TABLE) - RESULTS == set(), "public functions without a row in TABLE"
    assert set(TABLE) - callables == set(), "rows in TABLE for names no longer public"
    for name in RESULTS:
        assert dataclasses.is_dataclass(PUBLIC[name])
        assert PUBLIC[name].__dataclass_params__.frozen
    for name, specs in TABLE.items():
        parameters = list(inspect.signature(PUBLIC[name]).parameters)
        assert list(specs) == parameters, f"{name}: the specs must follow the signature"


def test_every_kind_of_bad_argument_is_tried():
    kinds = {bad.values[2].kind for bad in CASES}
    assert kinds == {"type", "shape", "dtype", "range"}


@pytest.mark.parametrize(("function", "argument", "bad"), CASES)
def test_a_bad_argument_is_refused_and_named(function, argument, bad):
    arguments = {name: spec.make() for name, spec in TABLE[function].items()}
    arguments[argument] = bad.make()
    with pytest.raises(bad.error) as info:
        PUBLIC[function](**arguments)
    assert type(info.value) is bad.error, f"{type(info.value).__name__}: {info.value}"
    assert (bad.names or argument) in str(info.value)
