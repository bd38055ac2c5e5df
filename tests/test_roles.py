"""MyST roles render, or the reader sees their source.

A role whose backtick content is split across a line break (``{numref}`Chapter`` at a line's
end, ``%s <chap-x>``` on the next) may render as literal text, and the sentence is cut there.
This test forbids the split in the sources; browser/test_role_source.py reads the built HTML
for role source left as visible text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SOURCES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)

# A code span (any number of backticks), with the role name that may stand right before it.
_SPAN = re.compile(r"(\{[A-Za-z][\w:.+-]*\})?(`+)(.+?)(?<!`)\2(?!`)", re.DOTALL)
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")


def _prose(text: str) -> str:
    """The text with code cells and plain code fences blanked (line numbers kept).

    Directive fences (```` ```{admonition} ````) hold prose, so their contents stay.
    """
    out, closing = [], None
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if closing:
            closing = None if stripped == closing else closing
            out.append("\n")
            continue
        fence = _FENCE.match(stripped)
        if fence and (fence.group(2).startswith("{code-cell}") or not fence.group(2).startswith("{")):
            closing = fence.group(1)
            out.append("\n")
            continue
        out.append(line)
    return "".join(out)


def split_roles(text: str) -> list[tuple[int, str]]:
    """(line, source) of every role whose backtick content spans a line break."""
    prose = _prose(text)
    return [
        (prose.count("\n", 0, m.start()) + 1, m.group(0))
        for m in _SPAN.finditer(prose)
        if m.group(1) and "\n" in m.group(3)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as in {numref}`Chapter\n%s <chap-x>`, we", [(1, "{numref}`Chapter\n%s <chap-x>`")]),
        ("x\n({numref}`Chapter %s\n<chap-x>`)", [(2, "{numref}`Chapter %s\n<chap-x>`")]),
        ("as in {numref}`Chapter %s <chap-x>`,\nwe", []),
        ("`weight_hh_l{l}` reads\nand `P`", []),
        ('```{code-cell} ipython3\nf"{name}`\nx`"\n```\n', []),
    ],
)
def test_the_checker_sees_split_roles(text, expected):
    assert split_roles(text) == expected


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_role_spans_a_line_break(source):
    assert split_roles(source.read_text(encoding="utf-8")) == []
