"""The book's first promise: no computed-looking number typed into a chapter's prose.

Prose is what remains of a chapter's Markdown after code cells, inline code, math and
roles (``{glue:text}`` and friends) are taken out. A number there that looks computed
(a decimal with three or more significant digits, or scientific notation) must come
from ``glue`` instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

DOCS = Path(__file__).resolve().parents[1] / "docs"
CHAPTERS = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)

_DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+(?![\w.])")
_SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])|\d\s*[×x]\s*10\^?[-−]?\d")
# "Python 3.11", "version 2.13": release numbers, not results.
_VERSION = re.compile(r"\b(?:[Pp]ython|[Vv]ersion|torch|sympy|Sphinx)\s+\d+(?:\.\d+)+")
_PARSER = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(dollarmath_plugin)


def _significant(number: str) -> int:
    return len(number.replace(".", "").lstrip("0"))


def computed_looking(markdown: str) -> list[str]:
    """The computed-looking numbers in the prose of a MyST Markdown text."""
    found = []
    for token in _PARSER.parse(markdown):
        for child in token.children or []:
            if child.type != "text":
                continue  # code_inline, math_inline, ... are not prose
            text = _VERSION.sub("", child.content)
            found += [m for m in _DECIMAL.findall(text) if _significant(m) >= 3]
            found += _SCIENTIFIC.findall(text)
    return found


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("The gap is 5.6e-17 here.", ["5.6e-17"]),
        ("A loss of 0.0948 was found.", ["0.0948"]),
        ("It is 12.5 times faster.", ["12.5"]),
        ("About 3 × 10^-7 of it.", ["3 × 10^-7"]),
        ("Version 2.13 and T = 3 and eps 0.5 are setup.", []),
        ("Glued {glue:text}`gap:.1e` and `1.234` and $0.123$ are fine.", []),
        ("```{code-cell} ipython3\nx = 0.12345\n```\n", []),
    ],
)
def test_the_checker_sees_computed_numbers(markdown, expected):
    assert computed_looking(markdown) == expected


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_computed_number_is_typed_into_prose(chapter):
    assert computed_looking(chapter.read_text(encoding="utf-8")) == []


def test_chapters_are_found():
    assert any(p.parent.name == "chapters" for p in CHAPTERS)
