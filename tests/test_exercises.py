"""Every chapter ends with two or three exercises whose solutions are folded, executed and asserted.

Read from the MyST sources: each ``{exercise}`` has a ``{solution-start}`` gated solution with
``:class: dropdown`` (folded in the HTML), whose code cells hold at least one ``assert`` or
``assert_close`` (so a broken solution fails the build), and the exercises come last. A
solution's code sits in an indented box, narrower than the page's code column: its lines
stop at 72 columns, not 88, or the box scrolls.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The widest code line in a solution box at 1280 px (measured in Chromium: 72 characters).
SOLUTION_COLUMNS = 72
CHAPTERS = sorted((DOCS / "chapters").glob("*.md"))
EXERCISE = re.compile(r"^```\{exercise\}[^\n]*\n:label: (\S+)$", re.MULTILINE)
SOLUTION = re.compile(
    r"^```\{solution-start\} (\S+)\n:class: dropdown\n```\n(.*?)^```\{solution-end\}",
    re.MULTILINE | re.DOTALL,
)
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def exercises(text: str) -> tuple[list[str], dict[str, str]]:
    """The exercise labels in order, and each folded solution's code, by the label it solves."""
    solutions = {label: "\n".join(CELL.findall(body)) for label, body in SOLUTION.findall(text)}
    return EXERCISE.findall(text), solutions


def test_exercises_reads_a_folded_solution_and_misses_an_open_one():
    page = (
        "```{exercise} T\n:label: ex-a\n\nDo it.\n```\n\n"
        "```{solution-start} ex-a\n:class: dropdown\n```\n\n"
        "```{code-cell} ipython3\nassert 1 + 1 == 2\n```\n\n```{solution-end}\n```\n"
        "```{exercise}\n:label: ex-b\n```\n```{solution-start} ex-b\n```\n```{solution-end}\n```\n"
    )
    labels, solutions = exercises(page)
    assert labels == ["ex-a", "ex-b"]
    assert solutions == {"ex-a": "assert 1 + 1 == 2\n"}


def test_every_chapter_is_checked():
    assert len(CHAPTERS) >= 13


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_ends_with_asserted_folded_exercises(chapter):
    text = chapter.read_text("utf-8")
    labels, solutions = exercises(text)
    assert 2 <= len(labels) <= 3, f"{chapter.name}: {len(labels)} exercises"
    assert all(label.startswith("ex-") for label in labels)
    for label in labels:
        assert label in solutions, f"{chapter.name}: {label} has no folded (dropdown) solution"
        assert re.search(r"\bassert(_close)?\b", solutions[label]), f"{label}: nothing asserted"
    last_heading = re.findall(r"^## (.+)$", text, re.MULTILINE)[-1]
    assert last_heading == "Exercises", f"{chapter.name}: exercises are not the last section"
    too_wide = [
        f"{label}: {len(line)} columns: {line.strip()[:40]}"
        for label in labels
        for line in solutions[label].splitlines()
        if len(line) > SOLUTION_COLUMNS
    ]
    assert too_wide == []
