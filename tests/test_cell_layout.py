"""The book's code cells fit a page: no code line over 88 characters, read from the sources."""

from __future__ import annotations

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
#: The widest code line a cell may hold: what the book's code column shows without a scrollbar.
MAX_COLUMNS = 88


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
