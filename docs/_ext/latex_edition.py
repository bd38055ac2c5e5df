"""The PDF edition's shape: chapters as in the HTML book, and equations that fit the page.

Two changes to Sphinx's LaTeX output, both for the LaTeX builder only (the HTML book and the
shared doctrees are untouched):

- **Chapters.** Sphinx inlines each toctree's documents where the toctree stands; the root
  page's toctrees stand inside its last section, so every chapter would be a *section* of
  that section (3.1, 3.2, ...) and its equations would be numbered (3.x) instead of the HTML
  book's (1.x). Here the root page's own text becomes one unnumbered opening chapter under the
  page's title; the documents of an unnumbered toctree before the numbered one (Before you
  start) follow as unnumbered chapters, their equations numbered 1, 2, ... as in the HTML; the
  documents of a ``:numbered:`` toctree follow as chapters 1, 2, ...; the documents of the
  unnumbered toctrees after it (the appendix, the reference pages) follow as appendices A, B, ...
- **Wide equations.** In the HTML book a long equation scrolls sideways; on paper it would run
  into the margin. Sphinx writes each display equation as ``\\begin{split}...\\end{split}``
  inside ``equation(*)``; the translator here writes the same lines as ``aligned`` (which may
  sit in a box) inside ``\\rnndocfit``, which scales it down to the text's width only when it
  is wider (``adjustbox``'s ``max width``). The preamble (``PREAMBLE``) defines it.
- **The bibliography in its page.** Sphinx gathers every citation into one bibliography at
  the end of the LaTeX document, which leaves the page that holds them (References) empty;
  the bibliography is moved back into that page's chapter, without a heading of its own.
- **Contents** is called Contents (Sphinx would take the first toctree's caption).
- **HTML-only pages** (``html_only.HTML_ONLY``) are left out of the toctrees: the bilingual term
  list is set in Chinese, which the English PDF's fonts do not hold.
"""

from __future__ import annotations

import re

from docutils import nodes
from html_only import HTML_ONLY  # docs/_ext, on the path conf.py sets
from sphinx import addnodes
from sphinx.builders.latex import LaTeXBuilder
from sphinx.builders.latex.nodes import thebibliography
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.latex import LaTeXTranslator

_SPLIT = re.compile(r"\\begin\{split\}(.*?)\\end\{split\}", re.DOTALL)

#: LaTeX for conf.py's ``latex_elements["preamble"]``.
PREAMBLE = r"""
\usepackage{adjustbox}
\newcommand{\rnndocfit}[1]{\adjustbox{max width=\displaywidth}{$\displaystyle #1$}}
\makeatletter
% a bibliography inside a chapter: no page break, heading, running head or contents line
\newenvironment{rnndocbibinplace}{\let\cleardoublepage\relax\let\clearpage\relax
  \def\chapter{\@ifstar\@gobble\@gobble}%
  \let\@mkboth\@gobbletwo\let\addcontentsline\@gobblethree}{}
\makeatother
"""


class FittingTranslator(LaTeXTranslator):
    """Sphinx's LaTeX translator, with display equations fitted to the text width."""

    def visit_math_block(self, node):
        start = len(self.body)
        try:
            super().visit_math_block(node)  # appends the equation, then skips the node
        finally:
            for index in range(start, len(self.body)):
                self.body[index] = _SPLIT.sub(
                    lambda m: r"\rnndocfit{\begin{aligned}" + m.group(1) + r"\end{aligned}}", self.body[index]
                )


def _latex(code: str) -> nodes.raw:
    return nodes.raw("", code, format="latex")


def book_structure(tree: nodes.document) -> None:
    """Reshape the root page's doctree in place (see the module docstring)."""
    root = next(iter(tree.findall(nodes.section)))
    for toctree in tree.findall(addnodes.toctree):
        toctree["entries"] = [(title, name) for title, name in toctree["entries"] if name not in HTML_ONLY]
        toctree["includefiles"] = [name for name in toctree["includefiles"] if name not in HTML_ONLY]
    wrappers = [toctree.parent for toctree in tree.findall(addnodes.toctree)]
    for wrapper in wrappers:
        wrapper.parent.remove(wrapper)
    # the root page's own text: one unnumbered chapter under the page's title
    opening = nodes.section("", nodes.title("", "", *root[0].children), ids=[])
    opening.extend(root.children[1:])
    del root.children[1:]
    root += [_latex(r"\setcounter{secnumdepth}{-1}"), opening, _latex(r"\setcounter{secnumdepth}{2}")]
    in_appendix = seen_numbered = False
    for wrapper in wrappers:
        numbered = any(toctree.get("numbered") for toctree in wrapper.findall(addnodes.toctree))
        seen_numbered = seen_numbered or numbered
        if not seen_numbered:
            # before the chapters: unnumbered chapters, equations (1), (2), ... as in the HTML
            root += [
                _latex(r"\setcounter{secnumdepth}{-1}\let\rnndocsavedeq\theequation"
                       r"\renewcommand{\theequation}{\arabic{equation}}"),
                wrapper,
                _latex(r"\setcounter{secnumdepth}{2}\let\theequation\rnndocsavedeq"),
            ]  # fmt: skip
            continue
        if not numbered and not in_appendix:
            # numbers in the appendices carry their letter, (A.1), as Sphinx's carry \arabic{chapter}
            root += _latex(
                "\\appendix\n"
                + "".join(
                    rf"\renewcommand{{\the{kind}}}{{\thechapter.\arabic{{{kind}}}}}"
                    for kind in ("figure", "table", "literalblock", "equation")
                )
            )
            in_appendix = True
        root += wrapper


class BibliographyInPlace(SphinxPostTransform):
    """Move the gathered bibliography into the chapter its citations came from."""

    default_priority = 751  # just after Sphinx's BibliographyTransform (750) gathered them
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        bibliography = next(iter(self.document.findall(thebibliography)), None)
        if bibliography is None:
            return
        emptied = [
            section
            for section in self.document.findall(nodes.section)
            if not any(
                isinstance(node, nodes.TextElement) and not isinstance(node, nodes.title)
                for node in section.findall(include_self=False)
            )
        ]
        if len(emptied) != 1:  # no single page to put it back in: leave it at the end
            return
        bibliography.parent.remove(bibliography)
        emptied[0] += [_latex(r"\begin{rnndocbibinplace}"), bibliography, _latex(r"\end{rnndocbibinplace}")]


class BookLaTeXBuilder(LaTeXBuilder):
    """Sphinx's LaTeX builder, with the root page reshaped before its toctrees are inlined."""

    def assemble_doctree(self, indexfile, toctree_only, appendices):
        get_doctree = self.env.get_doctree

        def reshaped(docname):
            tree = get_doctree(docname)
            if docname == indexfile:
                book_structure(tree)
            return tree

        self.env.get_doctree = reshaped
        try:
            return super().assemble_doctree(indexfile, toctree_only, appendices)
        finally:
            del self.env.get_doctree  # back to the class's method

    def get_contentsname(self, indexfile):
        return ""  # LaTeX's own "Contents", not the first toctree's caption


def setup(app):
    """Use the reshaping builder and the fitting translator for LaTeX."""
    app.add_builder(BookLaTeXBuilder, override=True)
    app.set_translator("latex", FittingTranslator, override=True)
    app.add_post_transform(BibliographyInPlace)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
