"""Where the built book is, and its pages."""

from pathlib import Path

HTML = Path(__file__).resolve().parents[1] / "docs" / "_build" / "html"


def screen(browser, width: int, *, phone: bool, height: int, scale: int = 1, **options):
    """A new browser context for a screen ``width`` CSS px wide and ``height`` tall.

    A phone is a mobile viewport with touch, ``scale`` device pixels per CSS px (a desktop has
    1); other keyword arguments go to ``browser.new_context`` (``color_scheme``, for example).
    """
    return browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=scale if phone else 1,
        **options,
    )


def pages() -> list[str]:
    """Every HTML page of the built book, relative to its root."""
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html") if "_static" not in p.parts)
