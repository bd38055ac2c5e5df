"""The book's code cells fit a page, read from the sources: no code line over 88 characters, and
the ``glue(...)`` bookkeeping only in hidden cells (the reader sees the evidence, not the plumbing)."""

from __future__ import annotations

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
#: The widest code line a cell may hold: what the book's code column shows without a scrollbar.
MAX_COLUMNS = 88


HIDDEN = ("remove-cell", "remove-input", "hide-cell", "hide-input")


def visible_cells(text: str) -> list[tuple[int, str]]:
    """The line number and source of every ``{code-cell}`` whose code the reader sees."""
    cells, lines = [], text.splitlines()
    for number, line in enumerate(lines, start=1):
        if line.startswith("```{code-cell}"):
            end = next(i for i in range(number, len(lines)) if lines[i].startswith("```"))
            body = "\n".join(lines[number:end])
            header = body.split("\n---\n", 1)[0] if body.startswith("---") else body[:200]
            if not any(tag in header for tag in HIDDEN):
                cells.append((number, body))
    return cells


def code_lines(text: str) -> list[tuple[int, str]]:
    """The code lines of every ``{code-cell}`` in a MyST-NB page, with their line numbers.

    A cell's YAML header (between ``---`` lines at its top) is metadata, not code, and is left out.
    """
    lines, found = text.splitlines(), []
    inside, header = False, False
    for number, line in enumerate(lines, start=1):
        if not inside:
            inside = line.startswith("```{code-cell}")
            first = True
            continue
        if line.startswith("```"):
            inside = False
            continue
        if first and line == "---":
            header, first = True, False
            continue
        first = False
        if header:
            header = line != "---"
            continue
        found.append((number, line))
    return found


def test_code_lines_skip_the_cell_header_and_see_long_lines():
    page = "text\n```{code-cell} ipython3\n---\ntags: [x]\n---\nx = 1\n" + "y" * 89 + "\n```\nafter\n"
    assert code_lines(page) == [(6, "x = 1"), (7, "y" * 89)]
    assert code_lines("```{code-cell} ipython3\nz = 2\n```\n") == [(2, "z = 2")]


def test_the_book_has_code_cells():
    assert sum(len(code_lines(p.read_text("utf-8"))) for p in PAGES) > 500


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_code_cells_wrap_at_88_columns(page):
    too_long = [
        f"{page.relative_to(DOCS)}:{number}: {len(line)} characters"
        for number, line in code_lines(page.read_text("utf-8"))
        if len(line) > MAX_COLUMNS
    ]
    assert too_long == []


def test_visible_cells_skip_hidden_ones():
    page = "```{code-cell} ipython3\n:tags: [remove-cell]\n\nglue('a', 1)\n```\n\n"
    page += "```{code-cell} ipython3\nx = 1\n```\n"
    assert visible_cells(page) == [(7, "x = 1")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_glue_calls_sit_in_hidden_cells(page):
    shown = [f"{page.relative_to(DOCS)}:{n}" for n, body in visible_cells(page.read_text("utf-8"))
             if "glue(" in body]  # fmt: skip
    assert shown == [], "move glue(...) into a cell tagged remove-cell after the evidence"
