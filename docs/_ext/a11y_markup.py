"""The HTML's roles for assistive technology, fixed in the HTML translator.

Two things that axe-core reports as critical on the built book come from upstream markup:

- Toctree captions (the sidebar's "Chapters", "Reference") are written by Sphinx as
  ``<p class="caption" role="heading">`` without ``aria-level``, which WAI-ARIA 1.2 requires
  of a heading role: https://github.com/sphinx-doc/sphinx/issues/14030 (open; the fix
  proposed in https://github.com/sphinx-doc/sphinx/pull/14437 writes ``aria-level="2"``, the
  level ARIA 1.1 implied). pydata-sphinx-theme's translator mixin adds the same level, but
  the theme wraps only the translators already registered when one is (ours: the LaTeX one
  in latex_edition.py), so it never reaches the HTML builder here.
- Citations (the references page) are written by docutils as ``role="doc-biblioentry"``
  items of a ``role="list"``: DPUB-ARIA 1.1 deprecates doc-biblioentry, and axe-core then
  finds a list whose children are not list items. Here each citation is a ``listitem``.

Remove the caption part once Sphinx writes the level itself; axe-core in
browser/test_a11y.py (``nox -s browser``) fails on either problem, whoever writes the markup.
"""

from __future__ import annotations

import types

from sphinx.application import Sphinx


class A11yTranslatorMixin:
    """Adds ``aria-level`` to heading roles; citations as list items."""

    def starttag(self, node, tagname, suffix="\n", empty=False, **attributes):
        if attributes.get("ROLE") == "heading" and "ARIA-LEVEL" not in attributes:
            attributes["ARIA-LEVEL"] = "2"  # sphinx-doc/sphinx#14030, as sphinx-doc/sphinx#14437
        if attributes.get("role") == "doc-biblioentry":
            attributes["role"] = "listitem"  # DPUB-ARIA 1.1: doc-biblioentry is deprecated
        return super().starttag(node, tagname, suffix, empty, **attributes)


def _html_translator(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    base = app.registry.get_translator_class(app.builder)
    translator = types.new_class("A11yHTML5Translator", (A11yTranslatorMixin, base), {})
    app.set_translator(app.builder.name, translator, override=True)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _html_translator, priority=900)  # after the theme's (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
