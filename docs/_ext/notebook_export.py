"""Plain Jupyter notebooks of the chapters: they run anywhere and read as the book does.

myst-nb's own notebook of a chapter (``docs/_build/jupyter_execute/chapters/<name>.ipynb``,
outputs merged in from the execution cache by ``conf.py``) keeps the chapter's MyST: glue
placeholders, ``{math}`` blocks, ``{eq}``/``{cite:p}``/``{func}``/``{doc}`` roles, exercise
directives, and a first cell that imports ``myst_nb``. This extension writes, after the HTML
build, one plain notebook per chapter to ``_notebooks/<name>.ipynb`` in the HTML output, and
adds it to every chapter's download menu:

- **Markdown cells**: glued values written in as the book shows them (the executed values,
  formatted with each role's format spec by myst-nb's own ``format_plain_text``); display
  math as ``$$ ... $$`` with the book's equation number as ``\\tag``; ``{eq}``, ``{doc}``,
  ``{numref}`` (in the role's own format: a chapter's title as "Chapter 3"), ``{func}``-style,
  ``{term}`` and download roles as links into the book (``RNNDOC_BOOK_URL``, for example
  ``https://owner.github.io/rnndoc/``; unset, links are relative to the notebook's place in
  the built site); citations as "(Author, year)" linked to the references page;
  notes as block quotes; exercises as bold-titled block quotes, numbered as in the book;
  solutions under a heading that JupyterLab shows collapsed (``jp-MarkdownHeadingCollapsed``),
  ended by a heading of their own, their prose in ``<details>`` and their code cells
  collapsed (``jupyter.source_hidden``).
- **Code cells**: the ``glue(...)`` calls and ``from myst_nb import glue`` removed (a block
  left empty gets ``pass``; a cell left empty is dropped; a loop left computing only what it
  glued is dropped too) with the glue outputs they made; the cells' ``mystnb`` metadata dropped;
  outputs kept; cells the book hides (``remove-input``, ``hide-input``) collapsed; a
  figure's caption and alt text (cell metadata, which Jupyter does not show) written into a
  Markdown cell after it, the alt text in a ``<details>`` "Figure description".
- **A first code cell** that installs only what the notebook imports and the kernel lacks:
  ``rnndoc`` from ``git+<RNNDOC_REPOSITORY_URL>@<commit the book was built from>`` (the
  package is not on PyPI; ``RNNDOC_COMMIT`` or ``GITHUB_SHA`` override ``git rev-parse``), and
  torch, sympy, matplotlib, ... by the requirements in ``pyproject.toml``. Where all are
  installed it imports nothing from the network and runs offline.

Converter: none of the maintained ones fits as a whole. sphinx-tojupyter (QuantEcon) is a
Sphinx *builder* of its own (a second full build of every page, with its own executor, and
no support for myst-nb's glue or sphinx-exercise's gated solutions); jupytext converts MyST
text to notebooks but leaves the MyST inside the Markdown cells as it is. So the notebook is
read and written as JSON (nbformat's schema, validated with nbformat where it is installed),
the Markdown is parsed with markdown-it-py and mdit-py-plugins' MyST plugins (the parser
myst-parser itself uses, so blocks and roles are found where the book finds them), and a
small pass here rewrites what the parse found. References are resolved from the Sphinx
environment after the build (equation, figure and exercise numbers, page titles, API anchors,
citation entries), so the text is the book's. ``check_markdown`` parses a rewritten cell again
and names any MyST left; ``nox -s notebooks`` runs it on every notebook and executes two of
them in a fresh venv.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import posixpath
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

#: Where the plain notebooks go in the HTML output.
FOLDER = "_notebooks"
#: The glue outputs' key in their metadata (myst-nb's glue writes scrapbook's).
_GLUE_META = "scrapbook"

_ROLE = re.compile(r"\{([a-zA-Z0-9_\-+:]{1,36})\}(`+)(?!`)(.+?)(?<!`)\2(?!`)", re.DOTALL)
_EXPLICIT = re.compile(r"(?P<text>.*?)\s*<(?P<target>[^<>]+)>", re.DOTALL)
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$#])")
_PY_ROLES = {"func", "meth", "class", "mod", "data", "attr", "obj", "exc", "const"}
_ADMONITIONS = {"note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important",
                "seealso": "See also", "caution": "Caution", "hint": "Hint", "attention": "Attention"}  # fmt: skip


def markdown_parser() -> MarkdownIt:
    """A parser of the book's Markdown, with the MyST extensions docs/conf.py enables."""
    return (
        MarkdownIt("commonmark")
        .enable("table")
        .use(myst_block_plugin)
        .use(myst_role_plugin)
        .use(dollarmath_plugin)
        .use(colon_fence_plugin)
        .use(amsmath_plugin)
        .use(deflist_plugin)
    )


def check_markdown(text: str) -> list[str]:
    """What in this Markdown is still MyST (roles, directives, targets, comments), as strings."""
    found = []
    for token in markdown_parser().parse(text):
        if token.type.startswith("myst_"):
            found.append(f"{token.type}: {token.content.strip()[:60]!r}")
        if token.type in {"fence", "colon_fence"} and token.info.strip().startswith("{"):
            found.append(f"directive {token.info.strip()!r}")
        for child in token.children or []:
            if child.type == "myst_role":
                found.append(f"role {{{child.meta.get('name')}}}`{child.content}`")
    return found


class ExportError(ValueError):
    """Something in a chapter the exporter cannot write as plain Markdown (it names it)."""


@dataclass
class Book:
    """What the exporter needs to know of the built book, as plain data (read from Sphinx's
    environment in ``_book_from_env``, or written by hand in a test)."""

    url: str  #: the book's root, ending in "/" (or "../": relative to _notebooks/)
    titles: dict[str, str] = field(default_factory=dict)  #: docname -> title
    equations: dict[str, tuple[str, str]] = field(default_factory=dict)  #: label -> (docname, "1.2")
    objects: dict[str, tuple[str, str]] = field(default_factory=dict)  #: python name -> (docname, anchor)
    terms: dict[str, tuple[str, str]] = field(default_factory=dict)  #: term (lower case) -> (docname, anchor)
    citations: dict[str, tuple[str, str, str]] = field(default_factory=dict)  #: key -> (authors, year, url)
    labels: dict[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  #: label -> (docname, anchor, title)
    numbers: dict[str, dict[str, str]] = field(
        default_factory=dict
    )  #: docname -> {id: "1.2"} (figures, exercises, sections: a chapter's title is "3")
    sections: set[str] = field(default_factory=set)  #: the labels of sections (numref: "Section 3")
    downloads: dict[str, str] = field(default_factory=dict)  #: source path (docs-relative) -> url path
    install: str = ""  #: the first code cell's source
    preface: str = ""  #: the first Markdown cell: where the book is, how rnndoc is installed
    format_text: Callable[[str, str], str] = format


# --- Markdown --------------------------------------------------------------------------------


def _split_explicit(content: str) -> tuple[str | None, str]:
    match = _EXPLICIT.fullmatch(content.strip())
    if match:
        return match["text"].strip() or None, match["target"].strip()
    return None, content.strip()


def _escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


class _Chapter:
    """The rewriting of one chapter's cells (the glue values and the solution state)."""

    def __init__(self, book: Book, docname: str, glue: dict[str, dict]) -> None:
        self.book, self.docname, self.glue = book, docname, glue
        self.in_solution = False  # inside a solution's cells (solution-start .. solution-end)
        self.solution = ""  # the number of the exercise whose solution is open or last closed

    # links ---------------------------------------------------------------------------------
    def page(self, docname: str, anchor: str = "") -> str:
        return f"{self.book.url}{docname}.html" + (f"#{anchor}" if anchor else "")

    def doc(self, target: str) -> str:
        if target.startswith("/"):
            return posixpath.normpath(target.lstrip("/"))
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))

    # roles -----------------------------------------------------------------------------------
    def role(self, name: str, content: str) -> str:
        if name in {"glue:text", "glue"}:
            key, _, spec = content.rpartition(":") if ":" in content else (content, "", "s")
            return _escape(self.book.format_text(self.glue_value(key, "text/plain"), spec))
        if name == "math":
            return f"${content}$"
        text, target = _split_explicit(content)
        if name == "eq":
            docname, number = self._get(self.book.equations, target, "equation")
            return f"[{text or '(' + number + ')'}]({self.page(docname, 'equation-' + target)})"
        if name == "doc":
            docname = self.doc(target)
            title = text or self._get(self.book.titles, docname, "page")
            return f"[{_escape(title)}]({self.page(docname)})"
        if name in _PY_ROLES:
            short = target.startswith("~")
            target = target.lstrip("~.")
            shown = text or (target.rsplit(".", 1)[-1] if short else target)
            if name in {"func", "meth"} and not text:
                shown += "()"
            docname, anchor = self._get(self.book.objects, target, "Python object")
            return f"[`{shown}`]({self.page(docname, anchor)})"
        if name == "term":
            docname, anchor = self._get(self.book.terms, target.lower(), "glossary term")
            return f"[{_escape(text or target)}]({self.page(docname, anchor)})"
        if name in {"ref", "numref"}:
            docname, anchor, title = self._get(self.book.labels, target, "label")
            if name == "numref":  # Sphinx's numref formats: %s or {number}, and {name}
                number = self.book.numbers.get(docname, {}).get(anchor, "")
                if not number:
                    raise ExportError(f"{self.docname}: the label {target!r} has no number")
                form = " ".join(text.split()) if text else None  # a role wrapped over two lines
                form = form or ("Section {number}" if target in self.book.sections else "Figure {number}")
                title = form.replace("%s", number).replace("{number}", number).replace("{name}", title)
            return f"[{_escape(text if name == 'ref' and text else title)}]({self.page(docname, anchor)})"
        if name in {"cite:p", "cite:t", "cite"}:
            return self.cite(name, content)
        if name in {"download", "nb-download"}:
            path = self.doc(target)
            if name == "nb-download":
                url = f"{self.book.url}{FOLDER}/{posixpath.basename(path)}"
            else:
                url = self.book.url + self._get(self.book.downloads, path, "download")
            return f"[{_escape(text or target)}]({url})"
        raise ExportError(f"{self.docname}: no plain Markdown for the role {{{name}}}`{content}`")

    def cite(self, name: str, content: str) -> str:
        parts = []
        for key in (k.strip() for k in content.split(",")):
            authors, year, url = self._get(self.book.citations, key, "citation")
            parts.append(
                f"[{authors} ({year})]({url})" if name == "cite:t" else f"[{authors}, {year}]({url})"
            )
        return "; ".join(parts) if name == "cite:t" else "(" + "; ".join(parts) + ")"

    def _get(self, table: dict, key: str, what: str):
        try:
            return table[key]
        except KeyError:
            known = sorted(table)[:5]
            raise ExportError(
                f"{self.docname}: no {what} {key!r} in the built book (some: {known})"
            ) from None

    def glue_value(self, key: str, mime: str) -> str:
        data = self._get(self.glue, key, "glued value")
        if mime not in data:
            raise ExportError(f"{self.docname}: the glued {key!r} has no {mime}")
        value = data[mime]
        return "".join(value) if isinstance(value, list) else value

    # inline text -----------------------------------------------------------------------------
    def inline(self, text: str) -> str:
        """Rewrite the roles in Markdown text, leaving code spans and math as they are (the
        order of markdown-it's inline rules: a role's `{` before a code span's backtick)."""
        out, i, n = [], 0, len(text)
        while i < n:
            char = text[i]
            if char == "\\":
                out.append(text[i : i + 2])
                i += 2
            elif char == "{" and (match := _ROLE.match(text, i)):
                out.append(self.role(match[1], match[3]))
                i = match.end()
            elif char == "`":
                run = len(text[i:]) - len(text[i:].lstrip("`"))
                close = re.compile(rf"(?<!`){'`' * run}(?!`)").search(text, i + run)
                end = close.end() if close else i + run
                out.append(text[i:end])
                i = end
            elif char == "$":
                delim = "$$" if text.startswith("$$", i) else "$"
                close = text.find(delim, i + len(delim))
                while close > 0 and text[close - 1] == "\\":
                    close = text.find(delim, close + 1)
                end = close + len(delim) if close > 0 else i + len(delim)
                out.append(text[i:end])
                i = end
            else:
                out.append(char)
                i += 1
        return "".join(out)

    # blocks ------------------------------------------------------------------------------------
    def markdown(self, text: str) -> str:
        """Rewrite one Markdown cell's (or one directive body's) MyST as plain Markdown."""
        lines = text.splitlines()
        tokens = [t for t in markdown_parser().parse(text) if t.level == 0 and t.map]
        out: list[str] = []
        prose: list[str] = []
        position = 0

        def flush() -> None:
            if prose:
                out.extend(self.inline("\n".join(prose)).split("\n"))
                prose.clear()

        for token in tokens:
            start, end = token.map
            if start < position:
                continue
            prose.extend(lines[position:start])
            position = end
            if token.type in {"fence", "colon_fence"} and token.info.strip().startswith("{"):
                flush()
                out.extend(self.directive(token).split("\n"))
            elif token.type in {"myst_line_comment", "myst_target", "myst_block_break"}:
                flush()
            elif token.type in {
                "fence",
                "code_block",
                "math_block",
                "math_block_label",
                "amsmath",
                "html_block",
            }:
                flush()
                out.extend(lines[start:end])
            else:
                prose.extend(lines[start:end])
        prose.extend(lines[position:])
        flush()
        return "\n".join(out).strip("\n")

    def directive(self, token) -> str:
        match = re.fullmatch(r"\{(?P<name>[^}]+)\}\s*(?P<arg>.*)", token.info.strip())
        name, arg = match["name"], match["arg"].strip()
        options, body = _options(token.content)
        if name == "math":
            return self.display_math(body, options.get("label"))
        if name == "glue:math":
            latex = self.glue_value(arg, "text/latex").strip()
            latex = re.sub(r"^\$\$?|\$\$?$", "", latex).strip()
            return self.display_math(latex, options.get("label"))
        if name in _ADMONITIONS or name == "admonition":
            title = arg if name == "admonition" else _ADMONITIONS[name]
            content = f"**{self.inline(title)}**\n\n{self.markdown(body)}"
            return "\n".join(f"> {line}".rstrip() for line in content.split("\n"))
        if name == "exercise":
            number = self.book.numbers.get(self.docname, {}).get(options.get("label", ""), "")
            heading = f"**Exercise {number}**".replace(" **", "**") + (
                f" ({self.inline(arg)})" if arg else ""
            )
            content = f"{heading}\n\n{self.markdown(body)}"
            return "\n".join(f"> {line}".rstrip() for line in content.split("\n"))
        if name == "glossary":  # terms (lines at the margin), each defined by the indented lines under it
            entries: list[tuple[list[str], list[str]]] = []
            for line in body.splitlines():
                if not line.strip():
                    continue
                if not line[0].isspace():
                    if not entries or entries[-1][1]:
                        entries.append(([], []))
                    entries[-1][0].append(line.strip())
                elif entries:
                    entries[-1][1].append(line.strip())
            return "\n".join(
                f"- **{self.inline(', '.join(terms))}**: {self.inline(' '.join(text))}"
                for terms, text in entries
            )
        if name == "solution-start":
            self.solution = self.book.numbers.get(self.docname, {}).get(arg, "")
            self.in_solution = True
            return f"{_SOLUTION_START}{self.solution}\x00"
        if name == "solution-end":
            self.in_solution = False
            return f"{_SOLUTION_END}{self.solution}\x00"
        raise ExportError(f"{self.docname}: no plain Markdown for the directive {{{name}}}")

    def display_math(self, latex: str, label: str | None) -> str:
        tag = ""
        if label:
            _, number = self._get(self.book.equations, label, "equation")
            tag = f" \\tag{{{number}}}"
        return f"$$\n{latex.strip()}{tag}\n$$"

    def markdown_cells(self, source: str) -> list[tuple[str, dict]]:
        """One Markdown cell's text as cells (text, metadata): a solution gets a heading cell
        of its own, collapsed in JupyterLab with every cell under it (its prose, in a
        ``<details>`` for other viewers, and its code cells, hidden), and a closing heading
        that ends the collapsed section, so that what follows the solution stays in view."""
        in_solution = self.in_solution  # as this cell starts
        text = self.markdown(source)
        cells: list[tuple[str, dict]] = []
        for part in re.split(f"((?:{_SOLUTION_START}|{_SOLUTION_END})[^\x00]*\x00)", text):
            if part.startswith(_SOLUTION_START):  # the exercise's number, then \x00
                in_solution = True
                heading = f"{_SOLUTION_LEVEL} Solution to Exercise {part[len(_SOLUTION_START) : -1]}"
                cells.append((heading, {"jp-MarkdownHeadingCollapsed": True}))
            elif part.startswith(_SOLUTION_END):
                in_solution = False
                number = part[len(_SOLUTION_END) : -1]
                cells.append((f"{_SOLUTION_LEVEL} End of the solution to Exercise {number}", {}))
            elif part.strip() and in_solution:
                summary = "<summary><b>Show this part of the solution</b></summary>"
                cells.append((f"<details>\n{summary}\n\n{part.strip()}\n\n</details>", {}))
            elif part.strip():
                cells.append((part.strip(), {}))
        return cells


#: Placeholders for the solution's directives in a rewritten cell (split into cells after).
_SOLUTION_START, _SOLUTION_END = "\x00solution-start:", "\x00solution-end:"
#: The level of a solution's heading: below the chapter's sections.
_SOLUTION_LEVEL = "#####"


def _options(content: str) -> tuple[dict[str, str], str]:
    """A directive's ``:key: value`` options (or a ``---`` YAML block) and its body."""
    lines = content.splitlines()
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":
        end = lines.index("---", 1)
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            options[key.strip()] = value.strip()
        return options, "\n".join(lines[end + 1 :])
    i = 0
    while i < len(lines) and (match := _OPTION.match(lines[i])):
        options[match["key"]] = match["value"].strip()
        i += 1
    return options, "\n".join(lines[i:])


# --- code ------------------------------------------------------------------------------------------


def is_glue_call(stmt: ast.AST) -> bool:
    """Whether a statement is a call ``glue(...)`` on its own."""
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "glue")  # fmt: skip


def read_by(tree: ast.AST, skip: list[ast.stmt]) -> set[str]:
    """The names read in ``tree`` outside the glue calls and the statements in ``skip``."""
    names: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if is_glue_call(node) or any(node is s for s in skip):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return names


def strip_glue(source: str) -> str:
    """The cell's code without ``from myst_nb import glue`` and its ``glue(...)`` statements.

    A block that holds nothing else gets ``pass``. Fails if ``glue`` is used any other way
    (the code would then need myst_nb).
    """
    tree = ast.parse(_without_magics(source))  # line numbers kept: the magics are edited out, not cut
    drop: list[ast.stmt] = []
    passes: set[int] = set()  # id of the one removed statement that becomes `pass`

    def is_glue(stmt: ast.stmt) -> bool:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("myst_nb"):
            if any(alias.name != "glue" for alias in stmt.names):
                raise ExportError(f"imports more than glue from myst_nb: {ast.unparse(stmt)}")
            return True
        if isinstance(stmt, (ast.For, ast.If, ast.With)):  # a loop or branch that only glues
            blocks = [stmt.body, getattr(stmt, "orelse", [])]
            rest = [inner for block in blocks for inner in block if not is_glue(inner)]
            # or that only computes what it glues: assignments read by nothing but the glue
            # calls and each other (a loop left doing nothing once its glue calls are gone)
            if not all(isinstance(i, ast.Assign) and all(isinstance(t, ast.Name) for t in i.targets)
                       for i in rest):  # fmt: skip
                return False
            assigned = {t.id for i in rest for t in i.targets}
            return not assigned & read_by(tree, skip=rest)
        return is_glue_call(stmt)

    def visit(node: ast.AST) -> None:  # a removed statement's own body is not visited
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            removed = [stmt for stmt in block if isinstance(stmt, ast.stmt) and is_glue(stmt)]
            drop.extend(removed)
            if removed and len(removed) == len(block) and not isinstance(node, ast.Module):
                passes.add(id(removed[0]))
            for child in block:
                if child not in removed:
                    visit(child)

    visit(tree)
    lines = source.splitlines()
    for stmt in sorted(drop, key=lambda s: s.lineno, reverse=True):
        start, end = stmt.lineno - 1, stmt.end_lineno or stmt.lineno
        indent = " " * stmt.col_offset
        lines[start:end] = [f"{indent}pass"] if id(stmt) in passes else []
    result = "\n".join(lines)
    if "glue" in {n.id for n in ast.walk(ast.parse(_without_magics(result))) if isinstance(n, ast.Name)}:
        raise ExportError(f"glue is used other than as a statement:\n{source}")
    return result.strip("\n")


def _is_empty(source: str) -> bool:
    return all(not line.strip() or line.strip().startswith("#") for line in source.splitlines())


def imported_modules(sources: list[str]) -> list[str]:
    """The top-level modules the code imports, outside the standard library, in order."""
    found: dict[str, None] = {}
    for source in sources:
        for node in ast.walk(ast.parse(_without_magics(source))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names:
                    found[top] = None
    return list(found)


def _without_magics(source: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def install_cell(modules: list[str], requirements: dict[str, str], note: str, howto: str = "") -> str:
    """The first code cell: pip-install the requirement of each module the kernel lacks.

    One requirement at a time, rnndoc last, so that torch and sympy arrive even where rnndoc
    cannot be installed; a requirement that is a wheel file (``./rnndoc-...whl``, shipped
    beside the notebooks of a local build) is tried only where that file is. What could not
    be installed is named at the end, with ``howto`` (how to install rnndoc otherwise).
    """
    ordered = sorted((m for m in modules if m in requirements), key=lambda m: m == "rnndoc")
    pairs = ",\n".join(f"    ({m!r}, {requirements[m]!r})" for m in ordered)
    howto_lines = ",\n".join(f"    {line!r}" for line in howto.splitlines()) or "    ''"
    return f"""# What this notebook imports, installed only where it is missing: where everything is
# installed already (as in the book's own environment) this does nothing and needs no network.
# {note}
import importlib.util
import pathlib
import subprocess
import sys

_requirements = [
{pairs},
]
_howto = "\\n".join([
{howto_lines}
])
_failed = []
for _module, _requirement in _requirements:  # one at a time, rnndoc last
    if importlib.util.find_spec(_module) is not None:
        continue
    if _requirement.endswith(".whl") and not pathlib.Path(_requirement).is_file():
        _failed.append(f"{{_module}} ({{_requirement}} is not in this notebook's folder)")
        continue
    print("installing:", _requirement)
    if subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", _requirement]) != 0:
        _failed.append(f"{{_module}} (pip install {{_requirement!r}} failed)")
    importlib.invalidate_caches()
if _failed:
    raise RuntimeError("not installed: " + ", ".join(_failed) + "\\n" + _howto)"""


def preface(release: str, built: str, url: str, docname: str, rnndoc: str) -> str:
    """The notebook's first cell: where the book is (its links lead there), and what the
    install cell installs rnndoc from."""
    if "://" in url:
        where = f"This notebook is a page of the book *rnndoc* {release} ({built}): [{url}{docname}.html]({url}{docname}.html)."
    else:
        where = (
            f"This notebook is a page of the book *rnndoc* {release} ({built}), `{docname}.html` in the built "
            "book. Its links are relative to the book's `_notebooks/` folder: they lead to the book's pages "
            "where the notebook is opened from that folder (`docs/_build/html/_notebooks/` after `nox -s docs` "
            "in a checkout), not from a download folder or Colab."
        )
    if rnndoc.endswith(".whl"):
        how = (f"The first code cell installs what is missing; rnndoc (not on PyPI) from the wheel "
               f"`{rnndoc.removeprefix('./')}` beside this notebook in the book's `_notebooks/` folder "
               f"(`pip install {rnndoc}`), or install it from a checkout: `pip install /path/to/the/checkout`.")  # fmt: skip
    elif "git+" in rnndoc:
        how = f"The first code cell installs what is missing; rnndoc (not on PyPI) with `pip install '{rnndoc}'`."
    else:
        how = "The first code cell installs what is missing; rnndoc is not on PyPI: install it from a checkout of the book's repository (`pip install /path/to/the/checkout`)."
    return f"{where}\n\n{how}"


# --- a notebook ------------------------------------------------------------------------------------


def _glue_data(notebook: dict) -> dict[str, dict]:
    """Each glued name's MIME bundle, from the executed notebook's outputs."""
    glue = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get(_GLUE_META)
            if meta and "name" in meta:
                prefix = meta.get("mime_prefix", "")
                glue[meta["name"]] = {k.removeprefix(prefix): v for k, v in output.get("data", {}).items()}
    return glue


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _markdown_cell(text: str, index: int) -> dict:
    return {"cell_type": "markdown", "id": f"md-{index}", "metadata": {}, "source": text}


def export_notebook(notebook: dict, docname: str, book: Book) -> dict:
    """The plain notebook of one chapter, from myst-nb's executed notebook (not modified)."""
    chapter = _Chapter(book, docname, _glue_data(notebook))
    cells: list[dict] = []
    installed = False
    for original in notebook["cells"]:
        cell = copy.deepcopy(original)
        source = _source(cell)
        if cell["cell_type"] == "markdown":
            for text, extra in chapter.markdown_cells(source):
                part = copy.deepcopy(cell)
                part["source"] = text
                part["metadata"].update(extra)
                cells.append(part)
            continue
        if cell["cell_type"] != "code":
            cells.append(cell)
            continue
        if not installed:
            cells.append({"cell_type": "code", "id": "install", "metadata": {}, "execution_count": None,
                          "outputs": [], "source": book.install})  # fmt: skip
            installed = True
        code = strip_glue(source)
        outputs = [o for o in cell.get("outputs", []) if _GLUE_META not in o.get("metadata", {})]
        if _is_empty(code) and not outputs:
            continue
        cell["source"], cell["outputs"] = code, outputs
        meta = cell["metadata"]
        tags = set(meta.get("tags", []))
        hidden = {}
        if chapter.in_solution or tags & {"remove-input", "hide-input", "remove-cell", "hide-cell"}:
            hidden["source_hidden"] = True
        if chapter.in_solution or tags & {"remove-output", "hide-output", "remove-cell", "hide-cell"}:
            hidden["outputs_hidden"] = True
            meta["collapsed"] = True  # the classic notebook's flag for folded outputs
        if hidden:
            meta.setdefault("jupyter", {}).update(hidden)
        figure = meta.get("mystnb", {}).get("figure")
        alt = meta.get("mystnb", {}).get("image", {}).get("alt")
        meta.pop("mystnb", None)  # MyST (a caption's roles): written into the cell after
        cells.append(cell)
        if alt:  # also where nbconvert's HTML finds an image's alt text (output metadata)
            for output in outputs:
                for mime in (m for m in output.get("data", {}) if m.startswith("image/")):
                    output.setdefault("metadata", {}).setdefault(mime, {})["alt"] = alt
        if figure or alt:
            parts = []
            if figure and figure.get("caption"):
                number = book.numbers.get(docname, {}).get(figure.get("name", ""), "")
                caption = chapter.markdown(str(figure["caption"]).strip())
                parts.append(f"**Figure {number}.** {caption}".replace(" .**", ".**"))
            if alt:
                parts.append(
                    f"<details>\n<summary>Figure description</summary>\n\n{_escape(alt)}\n\n</details>"
                )
            cells.append(_markdown_cell("\n\n".join(parts), len(cells)))
    if book.preface:  # after the title's cell: where the book is, how rnndoc is installed
        first = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"), -1)
        cells.insert(first + 1, _markdown_cell(book.preface, 0))
    for index, cell in enumerate(cells):  # stable ids: the same chapter gives the same bytes
        cell["id"] = f"cell-{index}"
        if cell["cell_type"] == "markdown":
            problems = check_markdown(cell["source"])
            if problems:
                raise ExportError(f"{docname}: MyST left in cell {index}: {problems}")
    metadata = {k: v for k, v in notebook.get("metadata", {}).items() if k in {"kernelspec", "language_info"}}
    metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


# --- Sphinx ------------------------------------------------------------------------------------------


def _commit(root: Path) -> str | None:
    for name in ("RNNDOC_COMMIT", "GITHUB_SHA"):
        if os.environ.get(name):
            return os.environ[name]
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return result.stdout.strip()


def _requirements(app, root: Path) -> dict[str, str]:
    """Each importable module's pip requirement: rnndoc from the repository, the rest by name."""
    import tomllib  # noqa: PLC0415

    pyproject = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    requirements = {
        re.split(r"[<>=!~ ;\[]", req)[0].lower(): req for req in pyproject["project"]["dependencies"]
    }
    modules = {
        "torch": "torch",
        "sympy": "sympy",
        "matplotlib": "matplotlib",
        "numpy": "numpy",
        "IPython": "ipython",
    }
    table = {module: requirements.get(dist, dist) for module, dist in modules.items()}
    repository, commit = app.config.notebook_export_repository, _commit(root)
    if repository:
        table["rnndoc"] = f"rnndoc @ git+{repository}" + (f"@{commit}" if commit else "")
    else:  # a local build (no RNNDOC_REPOSITORY_URL): the wheel shipped beside the notebooks
        wheels = sorted((Path(app.outdir) / FOLDER).glob("rnndoc-*.whl"))
        table["rnndoc"] = f"./{wheels[-1].name}" if wheels else f"rnndoc=={app.config.release}"
    return table


def install_howto(app, root: Path) -> str:
    """How to install rnndoc where the install cell could not (the cell's last words)."""
    repository, commit = app.config.notebook_export_repository, _commit(root)
    if repository:
        at = f"@{commit}" if commit else ""
        return (f"rnndoc is not on PyPI; install it from the book's repository:\n"
                f"  pip install 'rnndoc @ git+{repository}{at}'")  # fmt: skip
    return (
        "rnndoc is not on PyPI. Put the wheel from the built book's _notebooks/ folder\n"
        "(docs/_build/html/_notebooks/ after `nox -s docs` in a checkout of the book's repository)\n"
        "beside this notebook and run this cell again, or install the package from a checkout:\n"
        "  pip install /path/to/the/checkout"
    )


def _wheel_key(root: Path) -> str:
    import hashlib  # noqa: PLC0415

    digest = hashlib.sha256()
    for path in [root / "pyproject.toml", root / "README.md", *sorted((root / "src").rglob("*.py"))]:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def ship_wheel(root: Path, folder: Path) -> Path | None:
    """Build the package's wheel into ``folder`` (``pip wheel --no-deps``, as ``nox -s
    notebooks`` does) unless the one there was built from the same sources; None if pip fails
    (the install cell then says how to install from a checkout)."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from sphinx.util import logging  # noqa: PLC0415

    stamp, key = folder / ".rnndoc-wheel.key", _wheel_key(root)
    wheels = sorted(folder.glob("rnndoc-*.whl"))
    if wheels and stamp.is_file() and stamp.read_text("utf-8") == key:
        return wheels[-1]
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
             "-w", tmp, str(root)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        built = sorted(Path(tmp).glob("rnndoc-*.whl"))
        if result.returncode != 0 or not built:
            logging.getLogger(__name__).info(
                f"notebook_export: no wheel of rnndoc (pip: {result.stderr[-300:]})"
            )
            return None
        for old in wheels:
            old.unlink()
        shutil.copy2(built[-1], folder / built[-1].name)
    stamp.write_text(key, "utf-8")
    return folder / built[-1].name


def _book_from_env(app) -> Book:
    env = app.env
    url = app.config.notebook_export_book_url or "../"
    url = url if url.endswith("/") else url + "/"
    titles = {doc: title.astext() for doc, title in env.titles.items()}
    equations = {}
    for label, (docname, number) in env.get_domain("math").equations.items():
        numbers = env.toc_fignumbers.get(docname, {}).get("displaymath", {}).get(f"equation-{label}")
        equations[label] = (docname, ".".join(map(str, numbers)) if numbers else str(number))
    objects = {name: (entry.docname, entry.node_id) for name, entry in env.get_domain("py").objects.items()}
    std = env.get_domain("std")
    terms = {name.lower(): value for (kind, name), value in std.objects.items() if kind == "term"}
    labels = {name: (doc, anchor, title) for name, (doc, anchor, title) in std.labels.items()}
    numbers = {doc: {anchor: ".".join(map(str, n)) for kinds in figs.values() for anchor, n in kinds.items()}
               for doc, figs in env.toc_fignumbers.items()}  # fmt: skip
    sections = set()
    for label, (doc, anchor, title) in labels.items():  # sections: Sphinx's secnumbers
        secnumbers = env.toc_secnumbers.get(doc, {})
        if anchor in numbers.get(doc, {}):
            continue
        # the page's title is the toctree entry without an anchor (as Sphinx's numref finds it)
        number = secnumbers.get("#" + anchor) or (secnumbers.get("") if title == titles.get(doc) else None)
        if number:
            numbers.setdefault(doc, {})[anchor] = ".".join(map(str, number))
            sections.add(label)
    registry = getattr(env, "sphinx_exercise_registry", {})
    for label, entry in registry.items():  # exercises by their label (sphinx-exercise's numbering)
        node = entry.get("node")
        number = None
        if node is not None and node.get("ids"):
            number = numbers.get(entry["docname"], {}).get(node["ids"][0])
        if number:
            numbers.setdefault(entry["docname"], {})[label] = number
    downloads = {Path(path).as_posix(): f"_downloads/{dest}" for path, (_, dest) in env.dlfiles.items()}
    citations = {}
    cite = env.get_domain("cite")
    for citation in cite.citations:
        entry = citation.entry
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(person.last_names) for person in people]
        if not names:
            authors = str(entry.fields.get("organization") or entry.fields.get("title", citation.key))
        elif len(names) == 1:
            authors = names[0]
        elif len(names) == 2:
            authors = f"{names[0]} and {names[1]}"
        else:
            authors = f"{names[0]} et al."
        link = f"{url}{citation.bibliography_key.docname}.html#{citation.citation_id}"
        citations[citation.key] = (re.sub(r"[{}]", "", authors), entry.fields.get("year", "n.d."), link)
    from myst_nb.core.variables import format_plain_text  # noqa: PLC0415 (myst-nb's own glue formatting)

    return Book(url=url, titles=titles, equations=equations, objects=objects, terms=terms, labels=labels,
                numbers=numbers, sections=sections, downloads=downloads, citations=citations,
                format_text=format_plain_text)  # fmt: skip


def chapters(app) -> list[str]:
    """The documents that get a plain notebook: the chapters, and any other page that offers
    its notebook with ``{nb-download}`` (the notation page)."""

    def offers(doc: str) -> bool:
        path = Path(app.env.doc2path(doc))
        return path.suffix == ".md" and "{nb-download}" in path.read_text("utf-8")

    return sorted(doc for doc in app.env.found_docs if doc.startswith("chapters/") or offers(doc))


#: The scheme of a ``{nb-download}`` link before the HTML writer gets it (see PlainNotebookRole).
_SCHEME = "rnndoc-notebook://"


class PlainNotebookRole:
    """``{nb-download}`text <name.ipynb>```: a download link to the page's *plain* notebook.

    It replaces myst-nb's role of the same name, which links (and copies into _downloads/) the
    MyST notebook myst-nb parsed: MyST syntax, glue placeholders, ``from myst_nb import glue``
    and no install cell, a notebook that does not run outside the book. The link text is plain
    text (myst-nb's is set as code). The node is a ``download_reference`` whose target has a
    scheme, so that Sphinx copies nothing; ``_plain_notebook_links`` points it at
    ``_notebooks/<name>.ipynb`` for the HTML page (the LaTeX writer keeps the text only).
    """

    def __call__(self, name, rawtext, text, lineno, inliner, options=None, content=()):
        from docutils import nodes  # noqa: PLC0415
        from sphinx.addnodes import download_reference  # noqa: PLC0415

        title, target = _split_explicit(text)
        node = download_reference(rawtext, reftarget=_SCHEME + posixpath.basename(target))
        node += nodes.Text(title or target)
        return [node], []


def _plain_notebook_links(app, doctree, docname) -> None:
    """Point each ``{nb-download}`` link at the plain notebook, relative to the page."""
    from sphinx.addnodes import download_reference  # noqa: PLC0415

    for node in doctree.findall(download_reference):
        target = node.get("reftarget", "")
        if target.startswith(_SCHEME):
            path = f"{FOLDER}/{target.removeprefix(_SCHEME)}"
            if app.builder.format == "html":
                node["refuri"] = posixpath.relpath(path, posixpath.dirname(docname) or ".")
            else:
                node["refuri"] = path


def _export_all(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    root = Path(app.confdir).parent
    executed = Path(app.env.mystnb_config.output_folder)  # jupyter_execute, per language
    book = _book_from_env(app)
    target = Path(app.outdir) / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    if not app.config.notebook_export_repository:  # a local build: the package ships beside them
        ship_wheel(root, target)
    requirements = _requirements(app, root)
    howto = install_howto(app, root)
    commit = _commit(root)
    built = f"built from commit {commit[:12]}" if commit else "built from an unknown commit"
    absolute = "://" in book.url
    for docname in chapters(app):
        notebook = json.loads((executed / f"{docname}.ipynb").read_text("utf-8"))
        code = [strip_glue(_source(c)) for c in notebook["cells"] if c["cell_type"] == "code"]
        modules = [m for m in imported_modules(code) if m in requirements]
        missing = set(imported_modules(code)) - set(requirements)
        if missing:
            raise ExportError(f"{docname}: no pip requirement for the imported {sorted(missing)}")
        page = f"{book.url}{docname}.html" if absolute else f"{docname}.html in the built book"
        where = f"rnndoc {app.config.release}, {built}; the book: {page}"
        book.install = install_cell(modules, requirements, where, howto)
        book.preface = preface(app.config.release, built, book.url, docname, requirements["rnndoc"])
        plain = export_notebook(notebook, docname, book)
        try:
            import nbformat  # noqa: PLC0415

            nbformat.validate(nbformat.from_dict(plain))
        except ImportError:
            pass
        content = json.dumps(plain, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
        path = target / f"{posixpath.basename(docname)}.ipynb"
        if not path.is_file() or path.read_text("utf-8") != content:
            path.write_text(content, "utf-8")


def _download_entry(app, pagename, templatename, context, doctree) -> None:
    """Offer the chapter's plain notebook first in the page's download menu."""
    buttons = context.get("header_buttons")
    if buttons is None or not pagename.startswith("chapters/"):
        return
    link = {
        "type": "link",
        "url": context["pathto"](f"{FOLDER}/{posixpath.basename(pagename)}.ipynb", 1),
        "text": ".ipynb (Jupyter, Colab)",
        "tooltip": "Download this chapter as a plain Jupyter notebook that installs what it needs",
        "icon": "fas fa-code",
        "label": "download-plain-notebook-button",
    }
    for button in buttons:
        if button.get("label") == "download-buttons":
            button["buttons"].insert(0, link)
            return


def setup(app):
    app.add_config_value("notebook_export_book_url", "", "", types=[str])
    app.add_config_value("notebook_export_repository", "", "", types=[str])
    app.add_role("nb-download", PlainNotebookRole(), override=True)  # after myst_nb's (conf.py order)
    app.connect("doctree-resolved", _plain_notebook_links)
    app.connect("build-finished", _export_all)
    app.connect("html-page-context", _download_entry, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
