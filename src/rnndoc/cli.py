"""The ``rnndoc`` command line (also ``python -m rnndoc``)."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence

from . import __version__
from ._validate import check_sequence, check_str
from .finite_differences import FINITE_DIFF_EPS, FINITE_DIFF_EPS_RANGE  # the default step and its range
from .verdict import COMPARISONS, TOLERANCES, check_finite_difference_eps

__all__ = ["build_parser", "main"]


def _eps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1e-6, got {text!r}") from None
    try:
        return check_finite_difference_eps(value)  # the range where the tolerance holds
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _indent(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of spaces, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more spaces, got {value}")
    return value


def _fill(text: str, indent: str = "") -> str:
    return textwrap.fill(text, width=88, initial_indent=indent, subsequent_indent=indent)


def _mechanics_description() -> str:
    """The help of ``rnndoc mechanics``; its checks, tolerances and comparisons read from the verdict."""
    width = max(map(len, TOLERANCES))
    checks = "\n".join(
        textwrap.fill(
            COMPARISONS[name],
            width=88,
            initial_indent=f"  {name:<{width}}  {atol:<5g}  ",
            subsequent_indent=" " * (width + 11),
        )
        for name, atol in TOLERANCES.items()
    )
    low, high = FINITE_DIFF_EPS_RANGE
    return "\n\n".join(
        [
            _fill(
                "Run the hand-set two-unit tanh RNN (float64, CPU) and print a JSON report: the loss (sympy's exact one, and nn.RNN's), the "
                "forward pass (preactivations and hidden states), the gradients of the loss with respect to "
                "weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0 and h_0, each computed four ways (sympy, "
                "bptt, autograd, finite_difference) in PyTorch's orientation, the W_hh gradient split per "
                "use and per loss term, the order-sensitivity and chunking results, and the environment."
            ),
            _fill(
                'Judged: the entries of "checks", one per check below, each the largest absolute gap '
                "(rtol=0) held against its atol (rnndoc.verdict.TOLERANCES):"
            ),
            f"  {'check':<{width}}  atol   compares\n{checks}",
            _fill(
                'Printed for information, not judged: "order" (the final state after ABC and after CAB; '
                'they differ, as they should) and "chunks" (the sequence in two chunks, the state carried '
                "and reset)."
            ),
            _fill(
                f"The finite-difference tolerance holds for steps from {low:g} to {high:g} only, so --eps "
                "outside them is refused. Exits with status 1 if a check fails."
            ),
        ]
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with one subcommand per report.

    Returns
    -------
    argparse.ArgumentParser
        Its ``mechanics`` subcommand's help lists every check of :data:`rnndoc.verdict.TOLERANCES`
        with its tolerance and what it compares (:data:`rnndoc.verdict.COMPARISONS`).

    Examples
    --------
    >>> from rnndoc.cli import build_parser
    >>> args = build_parser().parse_args(["mechanics", "--indent", "0"])
    >>> args.command, args.eps, args.indent
    ('mechanics', 1e-06, 0)
    """
    parser = argparse.ArgumentParser(
        prog="rnndoc",
        description="Executable checks behind the rnndoc book on recurrent networks.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    mechanics = commands.add_parser(
        "mechanics",
        help="print the hand-set RNN's forward pass and BPTT gradients as JSON",
        description=_mechanics_description(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    low, high = FINITE_DIFF_EPS_RANGE
    mechanics.add_argument(
        "--eps",
        type=_eps,
        default=FINITE_DIFF_EPS,
        help=f"finite-difference step, from {low:g} to {high:g} (default {FINITE_DIFF_EPS:g})",
    )
    mechanics.add_argument(
        "--indent", type=_indent, default=2, help="JSON indentation in spaces (default 2; 0 for one line)"
    )
    mechanics.set_defaults(run=_mechanics, subparser=mechanics)
    return parser


def _mechanics(args: argparse.Namespace) -> int:
    from .report import mechanics_report  # noqa: PLC0415 (sympy loads only when needed)

    report = mechanics_report(args.eps)  # --eps, checked as it was parsed (_eps), is checked again: one float
    print(json.dumps(report, indent=args.indent or None, allow_nan=False))
    failed = {name: check for name, check in report["checks"].items() if not check["passed"]}
    for name, check in failed.items():
        print(f"rnndoc: check failed: {name} {check}", file=sys.stderr)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 when every check of :data:`rnndoc.verdict.TOLERANCES` passes, 1 otherwise.

    Raises
    ------
    TypeError
        If ``argv`` is not a sequence of str (a bare str is refused: it would be read letter
        by letter).
    SystemExit
        With status 2 and a usage message for bad arguments (argparse).

    Examples
    --------
    >>> from rnndoc.cli import build_parser
    >>> build_parser().parse_args(["mechanics", "--eps", "1e-5"]).eps
    1e-05
    """
    if argv is not None:
        argv = [
            check_str(f"argv[{k}]", arg)
            for k, arg in enumerate(check_sequence("argv", argv, "a sequence of str", non_empty=False))
        ]
    args, unknown = build_parser().parse_known_args(argv)
    if unknown:  # the subcommand's own usage explains what it accepts
        args.subparser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args.run(args)
