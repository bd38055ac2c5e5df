"""The command line: `python -m rnndoc mechanics` and its JSON report."""

import json
import subprocess
import sys

import pytest

from rnndoc import verdict
from rnndoc.cli import main
from rnndoc.handset import PARAMETER_NAMES
from rnndoc.report import mechanics_report

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
    # each judged gap is stated once, in checks: the forward pass's is not repeated under forward
    assert "max_abs_error" not in report["forward"]
    assert report["checks"]["forward"]["max_abs_difference"] < 1e-14
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


def test_the_help_loads_neither_sympy_nor_the_witnesses():
    code = (
        "import sys; from rnndoc.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('sympy', 'rnndoc.witnesses', 'rnndoc.report') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.split() == ["[]"]  # the default step, its range and the table read cheaply


def test_help_reads_every_tolerance_from_the_verdict(capsys, monkeypatch):
    monkeypatch.setitem(verdict.TOLERANCES, "forward", 3e-15)  # the help follows the table
    with pytest.raises(SystemExit):
        main(["mechanics", "--help"])
    lines = capsys.readouterr().out.splitlines()
    text = " ".join(" ".join(lines).split())
    for name, atol in verdict.TOLERANCES.items():
        assert sum(line.split()[:2] == [name, f"{atol:g}"] for line in lines) == 1, name  # its own row
        assert f"{name} {atol:g} {verdict.COMPARISONS[name]}" in text
    assert "forward 3e-15 " in text
    assert "the plain-Python forward pass (no torch) against nn.RNN's hidden states" in text
    assert 'not judged: "order"' in text
    assert '"chunks"' in text
    assert "from 1e-08 to 0.0001" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mechanics", "--eps", "-1"], "argument --eps: eps must be positive, got -1.0"),
        (["mechanics", "--eps", "inf"], "argument --eps: eps must be finite, got inf"),
        (["mechanics", "--eps", "small"], "argument --eps: expected a number such as 1e-6, got 'small'"),
        # outside the range where the finite-difference tolerance holds: refused, not a failed check
        (["mechanics", "--eps", "1e-2"], "argument --eps: eps must lie in [1e-08, 0.0001]"),
        (["mechanics", "--eps", "1e-300"], "argument --eps: eps must lie in [1e-08, 0.0001]"),
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


@pytest.mark.parametrize("eps", ["1e-2", "1e-300"])
def test_an_eps_outside_the_range_says_why(eps, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["mechanics", "--eps", eps])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"got {float(eps)!r}" in err
    assert "the finite-difference tolerance 1e-07 holds" in err
    assert "truncation O(eps^2)" in err
    assert "round-off O(1e-16/eps)" in err
    with pytest.raises(ValueError, match=r"eps must lie in \[1e-08, 0.0001\]"):
        mechanics_report(float(eps))


def test_the_eps_range_is_where_the_tolerance_holds():
    from rnndoc.experiments import finite_difference_error  # noqa: PLC0415

    low, high = verdict.FINITE_DIFF_EPS_RANGE
    errors = finite_difference_error([low, high, 1e-2, 1e-11])
    assert max(errors[:2]) < verdict.FINITE_DIFF_ATOL / 4  # both ends, with room
    assert min(errors[2:]) > verdict.FINITE_DIFF_ATOL  # one decade and more outside: it fails


def test_a_failing_check_exits_1(capsys, monkeypatch):
    monkeypatch.setitem(verdict.TOLERANCES, "finite_difference", 1e-12)  # the gap at 1e-6 is near 2e-11
    assert main(["mechanics", "--eps", "1e-6", "--indent", "0"]) == 1
    captured = capsys.readouterr()
    assert "check failed: finite_difference" in captured.err
    checks = json.loads(captured.out)["checks"]
    assert checks["finite_difference"]["passed"] is False
    assert [name for name, check in checks.items() if not check["passed"]] == ["finite_difference"]
