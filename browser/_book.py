"""Where the built book is, and its pages."""

from pathlib import Path

HTML = Path(__file__).resolve().parents[1] / "docs" / "_build" / "html"


def pages() -> list[str]:
    """Every HTML page of the built book, relative to its root."""
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html") if "_static" not in p.parts)
