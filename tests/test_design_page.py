"""The map of the package (docs/design.md): every chapter, and one computing function per equation.

Sphinx checks that each function the page names exists (nitpicky build); this checks what the
book promises of the map: every labelled equation of every chapter has a row, that row names
exactly one function that computes it, the function imports, and its docstring cites the
equation's label (the equation itself is written once, in its chapter). Witnesses and entry
points go in the last column, never beside the computing function.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
DESIGN = (DOCS / "design.md").read_text(encoding="utf-8")
ROLE = re.compile(r"\{(?:func|class|meth)\}`~?([\w.]+)`")


def _labels() -> dict[str, str]:
    """Every labelled equation of the chapters ({math} or {glue:math}), label -> chapter stem."""
    found = {}
    for chapter in sorted((DOCS / "chapters").glob("*.md")):
        text = chapter.read_text(encoding="utf-8")
        pattern = r"^```\{(?:math|glue:math)\}[^\n]*\n(?::[^\n]*\n)*?:label: (\S+)$"
        found |= dict.fromkeys(re.findall(pattern, text, re.MULTILINE), chapter.stem)
    return found


def _rows() -> list[tuple[list[str], list[str]]]:
    """The map's rows that name equations: (labels, the functions of the "computes it" column)."""
    section = DESIGN.split("## From a chapter's equation to its function", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4:
            labels = re.findall(r"\{eq\}`([^`]+)`", cells[1])
            if labels:
                rows.append((labels, ROLE.findall(cells[2])))
    return rows


def _resolve(dotted: str) -> object:
    """Import ``a.b.c.name`` (the longest importable module prefix, then attributes)."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for name in parts[split:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


COMPUTING = sorted({name for _, names in _rows() for name in names})


def test_every_chapter_has_a_row():
    chapters = sorted(p.stem for p in (DOCS / "chapters").glob("*.md"))
    missing = [stem for stem in chapters if f"{{doc}}`chapters/{stem}`" not in DESIGN]
    assert chapters
    assert missing == []


def _reading_order() -> list[str]:
    """The chapters' stems in the book's reading order: the root page's toctrees, top to bottom."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```\{toctree\}\n(.*?)^```", index, re.DOTALL | re.MULTILINE)
    entries = [line.strip() for block in blocks for line in block.splitlines()]
    return [entry.removeprefix("chapters/") for entry in entries if entry.startswith("chapters/")]


def test_the_map_follows_the_reading_order():
    """The map's chapter rows are in the order of the book's table of contents."""
    in_map = re.findall(r"^\| \{doc\}`chapters/(\w+)`", DESIGN, re.MULTILINE)
    order = _reading_order()
    assert sorted(order) == sorted(p.stem for p in (DOCS / "chapters").glob("*.md"))
    assert in_map == order


def test_every_labelled_equation_has_one_row():
    labels = _labels()
    mapped = [label for row_labels, _ in _rows() for label in row_labels]
    assert len(labels) > 30  # the parsers found the chapters' equations and the table
    assert sorted(set(labels) - set(mapped)) == []  # every equation is in the map
    assert sorted(set(mapped) - set(labels)) == []  # and the map names no equation that is gone
    assert sorted(label for label in set(mapped) if mapped.count(label) > 1) == []


def test_each_equation_has_exactly_one_computing_function():
    several = {tuple(labels): names for labels, names in _rows() if len(names) != 1}
    assert several == {}


LABELS_OF = {
    name: [label for labels, names in _rows() if name in names for label in labels] for name in COMPUTING
}


@pytest.mark.parametrize("name", COMPUTING)
def test_the_computing_function_imports_and_cites_its_labels(name):
    docstring = inspect.getdoc(_resolve(name)) or ""
    missing = [label for label in LABELS_OF[name] if f"`{label}`" not in docstring]
    assert missing == [], f"{name}'s docstring does not cite {missing}"


#: Equations whose chapter does not yet name the computing function (none now); the list only shrinks.
PENDING_NAMED: set[str] = set()


def test_each_chapter_names_the_function_that_computes_its_equation():
    labels = _labels()
    unnamed = {
        label
        for row_labels, names in _rows()
        for label in row_labels
        for name in names
        if not re.search(
            r"\{(?:func|class|meth)\}`~?" + re.escape(name) + "`",
            (DOCS / "chapters" / f"{labels[label]}.md").read_text(encoding="utf-8"),
        )
    }
    assert sorted(unnamed) == sorted(PENDING_NAMED)
