"""The map of the package (docs/design.md) names every chapter and every labelled equation.

Sphinx checks that each function it names exists (nitpicky build); this checks that none is
left out: a chapter or a labelled equation added without its row fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
DESIGN = (DOCS / "design.md").read_text(encoding="utf-8")


def test_every_chapter_has_a_row():
    chapters = sorted(p.stem for p in (DOCS / "chapters").glob("*.md"))
    missing = [stem for stem in chapters if f"{{doc}}`chapters/{stem}`" not in DESIGN]
    assert chapters
    assert missing == []


def test_every_labelled_equation_is_mapped_to_its_function():
    labels = sorted(
        label
        for chapter in (DOCS / "chapters").glob("*.md")
        for label in re.findall(
            r"^```\{(?:math|glue:math)\}[^\n]*\n(?::[^\n]*\n)*?:label: (\S+)$",
            chapter.read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    )
    missing = [label for label in labels if f"{{eq}}`{label}`" not in DESIGN]
    assert labels
    assert missing == []
