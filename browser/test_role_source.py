"""No MyST role's source is left as visible text in the built book.

A role whose backtick content is split across a line break may render as literal text
(``{numref}`Chapter``) and cut the sentence there; tests/test_roles.py forbids the split in the
sources, and this test reads every built page for what got through.
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

import _book
import pytest

HTML = Path(os.environ.get("RNNDOC_HTML", _book.HTML))
PAGES = sorted(p for p in HTML.rglob("*.html") if "_sources" not in p.parts)
_ROLE_SOURCE = ("{numref}", "{glue:", "{eq}", "{doc}", "{ref}", "{cite")


class _VisibleText(HTMLParser):
    """The text a reader sees: outside scripts, styles and code."""

    _HIDDEN = frozenset({"script", "style", "code", "pre", "textarea"})

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self._HIDDEN

    def handle_endtag(self, tag):
        self.depth -= tag in self._HIDDEN and self.depth > 0

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def visible_role_source(html: str) -> list[str]:
    parser = _VisibleText()
    parser.feed(html)
    text = " ".join(parser.parts)
    return [text[max(0, i - 40) : i + 40] for marker in _ROLE_SOURCE for i in [text.find(marker)] if i >= 0]


def test_the_html_checker_sees_role_source():
    assert visible_role_source("<p>so, as in {numref}`Chapter</p>") != []
    assert visible_role_source("<p>ok</p><code>{numref}</code><script>'{glue:x}'</script>") == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(HTML).as_posix())
def test_no_role_source_is_visible_in_the_built_book(page: Path) -> None:
    assert visible_role_source(page.read_text(encoding="utf-8")) == []


def test_the_book_is_built() -> None:
    assert PAGES, f"no built HTML under {HTML} (run nox -s docs)"
