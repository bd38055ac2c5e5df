"""The command line: `python -m rnndoc mechanics` and its JSON report."""

import json
import subprocess
import sys

import pytest

from rnndoc.cli import main
from rnndoc.handset import PARAMETER_NAMES

WITNESSES = ["sympy", "bptt", "autograd", "finite_difference"]


@pytest.fixture(scope="module")
def report():
    result = subprocess.run(
        [sys.executable, "-m", "rnndoc", "mechanics"], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(result.stdout)


def test_report_has_the_promised_keys(report):
    assert {"loss", "forward", "gradients", "order", "chunks", "environment", "checks"} <= set(report)
    assert {"preactivations", "hidden"} <= set(report["forward"])
    assert list(report["gradients"]) == list(PARAMETER_NAMES)
    for name in PARAMETER_NAMES:
        assert list(report["gradients"][name]) == WITNESSES
    assert {"python", "torch", "sympy"} <= set(report["environment"])


def _flatten(value):
    return [v for item in value for v in _flatten(item)] if isinstance(value, list) else [value]


def test_witnesses_agree_in_the_report(report):
    for name, per in report["gradients"].items():
        exact = _flatten(per["sympy"])
        for witness, atol in (("bptt", 1e-13), ("autograd", 1e-13), ("finite_difference", 1e-7)):
            values = _flatten(per[witness])
            assert len(values) == len(exact)
            assert max(abs(a - b) for a, b in zip(values, exact, strict=True)) <= atol, (name, witness)
    assert all(check["passed"] for check in report["checks"].values())
    assert report["gradients"]["h_0"]["autograd"][0][0] == pytest.approx(
        [0.15687160631987568, 0.053118021304737056]
    )
    assert report["loss"] == pytest.approx(0.0948162673501513, abs=1e-16)


def test_report_order_and_chunks(report):
    assert report["order"]["reordered"] == "CAB"
    assert report["order"]["max_abs_difference"] > 0.1
    assert report["chunks"]["carry_max_abs_error"] <= 1e-14
    assert report["chunks"]["reset_max_abs_difference"] > 1e-3


def test_help_explains_the_report(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["mechanics", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for word in ("JSON", "sympy", "bptt", "autograd", "finite_difference", "--eps"):
        assert word in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mechanics", "--eps", "-1"], "argument --eps: expected a positive finite number, got '-1'"),
        (
            ["mechanics", "--eps", "small"],
            "argument --eps: expected a positive number such as 1e-6, got 'small'",
        ),
        (["mechanics", "--indent", "-2"], "argument --indent: expected 0 or more spaces, got -2"),
        (["nonsense"], "invalid choice: 'nonsense'"),
        ([], "the following arguments are required: COMMAND"),
        (["mechanics", "--bogus"], "rnndoc mechanics: error: unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_get_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_failing_check_exits_1(capsys):
    assert main(["mechanics", "--eps", "1e-2", "--indent", "0"]) == 1
    captured = capsys.readouterr()
    assert "check failed: finite_difference" in captured.err
    assert json.loads(captured.out)["checks"]["finite_difference"]["passed"] is False
