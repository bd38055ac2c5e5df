"""Every labelled display equation is checked as printed (issue 16).

For each ``:label: eq-...`` in the book, a code cell of the same page evaluates the
right-hand side as written (the same symbols and terms, not a call to the function that
implements it) on a small case and asserts it against an independent witness. The cell says
so in a comment that names the label and the words "as printed", for example
``# eq-gru-deltas and eq-gru-vjp as printed, against autograd through one step``.

A ``{glue:math}`` display is exempt: what it prints *is* the sympy expression its cell
built and checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)

_DIRECTIVE = re.compile(
    r"^(`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[^\n]*\n(?P<body>.*?)^\1\s*$", re.MULTILINE | re.DOTALL
)
_LABEL = re.compile(r"^:label:\s*(eq-[\w-]+)\s*$", re.MULTILINE)

#: Labels still waiting for their as-printed cell; this set only shrinks.
PENDING: set[str] = set()


def labelled_equations(markdown: str) -> tuple[dict[str, str], set[str]]:
    """The page's equation labels (label -> directive name) and its as-printed comments' labels."""
    labels: dict[str, str] = {}
    checked: set[str] = set()
    for match in _DIRECTIVE.finditer(markdown):
        name, body = match["name"], match["body"]
        if name == "code-cell":
            for line in body.splitlines():
                if line.lstrip().startswith("#") and "as printed" in line:
                    checked.update(re.findall(r"\beq-[\w-]*\w", line))
        else:
            labels.update((label, name) for label in _LABEL.findall(body))
    labels.update((label, "math") for label in _LABEL.findall(markdown) if label not in labels)
    return labels, checked


def test_parser_reads_a_page() -> None:
    page = (
        "```{math}\n:label: eq-a\nx = y\n```\n\n"
        "```{glue:math} expr\n:label: eq-b\n```\n\n"
        "```{code-cell} ipython3\n# eq-a as printed, against autograd\nassert True\n```\n"
    )
    labels, checked = labelled_equations(page)
    assert labels == {"eq-a": "math", "eq-b": "glue:math"}
    assert checked == {"eq-a"}


CASES = [
    (page, label, name, checked)
    for page in PAGES
    for labels, checked in [labelled_equations(page.read_text("utf-8"))]
    for label, name in labels.items()
]


@pytest.mark.parametrize(("page", "label", "name", "checked"), CASES,
                         ids=[f"{c[0].stem}:{c[1]}" for c in CASES])  # fmt: skip
def test_every_labelled_equation_is_checked_as_printed(
    page: Path, label: str, name: str, checked: set[str]
) -> None:
    if name == "glue:math":
        return  # the printed expression is the checked sympy object
    if label in PENDING:
        assert label not in checked, f"{label} is checked now: take it out of PENDING"
        return
    assert label in checked, (
        f"{page.relative_to(DOCS)}: equation {label} has no code cell whose comment says "
        f"'{label} ... as printed' (evaluate its right-hand side as written and assert it)"
    )


def test_pending_names_only_existing_labels() -> None:
    assert {label for _, label, _, _ in CASES} >= PENDING
