"""Glue roles in translated text: myst-nb's notebook renderer lent to a page's translated messages.

myst-nb resolves ``{glue}``, ``{glue:text}``, ``{glue:md}`` and ``{glue:any}`` while it parses a
page, through the notebook renderer it keeps in ``document["nb_renderer"]`` for that parse only
(``myst_nb.sphinx_.Parser.parse`` removes it at the end; ``retrieve_glue_data`` in
``myst_nb/ext/glue/utils.py`` reads it). Sphinx's ``Locale`` transform (``sphinx/transforms/i18n.py``,
``_publish_msgstr``) runs after that parse, in the same read of the page, and parses each translated
message into a new document named ``<source>:<line>:<translated>``, for which myst-nb falls back to
plain MyST: no renderer, so every glue role in a translated paragraph rendered nothing and warned
"No key ... found in glue data for this document" (executablebooks/MyST-NB#587).

This parser is myst-nb's own, registered in its place for the same file type. Parsing a page, it
keeps the renderer myst-nb removes; parsing one of that page's translated messages, it puts the
renderer on the message's document for the length of the parse, so the roles find the page's glue
data, as in the English text. The kept renderer is dropped when the page has been read
(``doctree-read``, after every transform). Nothing changes for an untranslated build: its pages
have no translated messages.
"""

from __future__ import annotations

from typing import Any

from myst_nb.sphinx_ import Parser as NotebookParser

#: The renderer of the page being read (its docname), kept until the page is read; one per process
#: (parallel reading reads one page at a time in each process).
_KEPT: dict[str, Any] = {}
_TRANSLATED = "<translated>"


class _KeepingRenderer(dict):
    """A page document's attributes while myst-nb parses it: what it removes as "nb_renderer" is kept."""

    renderer: Any = None

    def pop(self, key, *default):
        value = super().pop(key, *default)
        if key == "nb_renderer":
            self.renderer = value
        return value


class Parser(NotebookParser):
    """myst-nb's parser, which lends a page's notebook renderer to the page's translated messages."""

    def parse(self, inputstring: str, document) -> None:
        env = getattr(document.settings, "env", None) or self.env
        if (document.current_source or "").endswith(_TRANSLATED):
            renderer = _KEPT.get(env.docname)
            if renderer is None or "nb_renderer" in document:
                super().parse(inputstring, document)
                return
            document.attributes["nb_renderer"] = renderer
            try:
                super().parse(inputstring, document)
            finally:
                document.attributes.pop("nb_renderer", None)
            return
        attributes = _KeepingRenderer(document.attributes)
        document.attributes = attributes
        try:
            super().parse(inputstring, document)
        finally:
            document.attributes = dict(attributes)  # a plain dict again: the doctree is pickled
        if attributes.renderer is not None:
            _KEPT[env.docname] = attributes.renderer


def _drop_renderer(app, doctree) -> None:
    _KEPT.pop(app.env.docname, None)


def setup(app):
    app.setup_extension("myst_nb")
    app.add_source_parser(Parser, override=True)
    app.connect("doctree-read", _drop_renderer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
