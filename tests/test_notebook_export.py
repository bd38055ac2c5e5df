"""The plain notebooks' install cell and links (docs/_ext/notebook_export.py), on made-up input.

The built notebooks themselves are checked by ``nox -s notebooks`` (notebooks/); here: the
install cell installs one requirement at a time, rnndoc last, from a wheel only where it is,
and does nothing where all is installed; the links are absolute when the book's address is
known and relative otherwise, and the first cell then says where the book is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))

import notebook_export  # docs/_ext, on the path above

WHEEL = "./rnndoc-0.1.0-py3-none-any.whl"


def _run_cell(source: str) -> None:
    exec(compile(source, "<install cell>", "exec"), {"__name__": "__main__"})  # noqa: S102


@pytest.fixture
def calls(monkeypatch, tmp_path):
    """The pip commands the cell runs (none really runs), from an empty folder."""
    made: list[list[str]] = []
    monkeypatch.setattr(subprocess, "call", lambda args: made.append(args) or 0)
    monkeypatch.chdir(tmp_path)
    return made


def _cell(rnndoc: str, howto: str = "install it from a checkout") -> str:
    requirements = {"rnndoc": rnndoc, "not_a_module_x1": "not-a-module-x1>=1", "json": "json"}
    return notebook_export.install_cell(["rnndoc", "not_a_module_x1", "json"], requirements, "note", howto)


def test_install_cell_installs_rnndoc_last_and_names_what_failed(calls, monkeypatch):
    import importlib.util  # noqa: PLC0415

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RuntimeError, match=r"rnndoc \(\./rnndoc-0\.1\.0-py3-none-any\.whl is not in"):
        _run_cell(_cell(WHEEL))
    # the wheel is not in the folder: the others are installed all the same, one by one
    assert [args[-1] for args in calls] == ["not-a-module-x1>=1", "json"]


def test_install_cell_installs_the_wheel_beside_it(calls, tmp_path, monkeypatch):
    import importlib.util  # noqa: PLC0415

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    (tmp_path / WHEEL).write_bytes(b"")
    _run_cell(_cell(WHEEL))
    assert [args[-1] for args in calls] == ["not-a-module-x1>=1", "json", WHEEL]


def test_install_cell_does_nothing_when_all_is_installed(calls, capsys, monkeypatch):
    import importlib.util  # noqa: PLC0415

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    _run_cell(_cell("rnndoc @ git+https://example.org/rnndoc@abc"))
    assert calls == []
    assert capsys.readouterr().out == ""


def test_install_cell_says_how_when_pip_fails(monkeypatch, tmp_path):
    import importlib.util  # noqa: PLC0415

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "rnndoc" else object())
    monkeypatch.setattr(subprocess, "call", lambda args: 1)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="pip install 'rnndoc @ git"):
        _run_cell(_cell("rnndoc @ git+https://example.org/rnndoc@abc", "pip install 'rnndoc @ git+URL'"))


def _exported(url: str) -> dict:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Chapter\n\nSee {doc}`../notation`."},
            {"cell_type": "code", "metadata": {}, "source": "import rnndoc", "outputs": [],
             "execution_count": 1},
        ],
        "metadata": {},
    }  # fmt: skip
    book = notebook_export.Book(url=url, titles={"notation": "Notation", "chapters/x": "X"})
    book.install = "# install"
    book.preface = notebook_export.preface("0.1.0", "built from commit abc", url, "chapters/x", WHEEL)
    return notebook_export.export_notebook(notebook, "chapters/x", book)


def test_links_are_absolute_when_the_book_address_is_known():
    cells = _exported("https://example.org/rnndoc/")["cells"]
    assert cells[0]["source"] == "# Chapter\n\nSee [Notation](https://example.org/rnndoc/notation.html)."
    assert "(https://example.org/rnndoc/chapters/x.html)" in cells[1]["source"]
    assert "relative" not in cells[1]["source"]
    assert [c["cell_type"] for c in cells] == ["markdown", "markdown", "code", "code"]


def test_links_are_relative_otherwise_and_the_first_cell_says_so():
    cells = _exported("../")["cells"]
    assert cells[0]["source"] == "# Chapter\n\nSee [Notation](../notation.html)."
    preface = cells[1]["source"]
    assert "`chapters/x.html` in the built book" in preface
    assert "relative to the book's `_notebooks/` folder" in preface
    assert f"pip install {WHEEL}" in preface
    assert notebook_export.check_markdown(preface) == []


def test_glossary_and_figure_alt_text():
    """A glossary becomes a list of bold terms; a figure's alt text (the cell's mystnb
    metadata) goes into the image output's metadata (nbconvert's alt) and a Markdown cell."""
    glossary = "```{glossary}\nBPTT\n  Backpropagation through\n  time.\n\ngate\n  A vector.\n```"
    image = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": "iVBOR", "text/plain": "<F>"},
    }
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": glossary},
            {"cell_type": "code", "source": "x = 1", "outputs": [image], "execution_count": 1,
             "metadata": {"mystnb": {"image": {"alt": "Two curves that cross."}}}},
        ],
        "metadata": {},
    }  # fmt: skip
    book = notebook_export.Book(url="../", install="# install")
    cells = notebook_export.export_notebook(notebook, "chapters/x", book)["cells"]
    assert cells[0]["source"] == "- **BPTT**: Backpropagation through time.\n- **gate**: A vector."
    assert cells[2]["outputs"][0]["metadata"] == {"image/png": {"alt": "Two curves that cross."}}
    assert "Two curves that cross." in cells[3]["source"]


def test_no_wrapped_line_starts_a_comment():
    """A line of prose that starts with "%" (a numref's "%s" wrapped onto it) is a MyST comment:
    the book and the notebook would both drop it, and show the role's first half as text."""
    import itertools  # noqa: PLC0415
    import re  # noqa: PLC0415

    docs = Path(__file__).resolve().parents[1] / "docs"
    found = []
    for path in sorted(docs.rglob("*.md")):
        if "_build" in path.parts:
            continue
        lines = path.read_text("utf-8").splitlines()
        for number, (before, line) in enumerate(itertools.pairwise(lines), start=2):
            if re.match(r"%s\b", line) and before.strip():
                found.append(f"{path.relative_to(docs)}:{number}: {line[:60]}")
    assert found == []


def test_a_numref_wrapped_in_its_text_reads_on_one_line():
    book = notebook_export.Book(
        url="../", labels={"chap-x": ("chapters/x", "chap-x", "X")}, numbers={"chapters/x": {"chap-x": "3"}}
    )
    chapter = notebook_export._Chapter(book, "chapters/y", {})
    text = chapter.markdown("as {numref}`in\nChapter %s <chap-x>`, we flip it.\n\n% a comment\n")
    assert text == "as [in Chapter 3](../chapters/x.html#chap-x), we flip it."


def test_a_solution_is_folded_with_its_code_cells():
    """A solution's cells sit under a heading collapsed in JupyterLab (its code cells hidden
    too, its prose in a <details> for other viewers), a closing heading ends the section, and
    no <details> is left empty (a solution that starts with code)."""
    exercise = "```{exercise} Train\n:label: ex-a\n\nDo it.\n```\n\n```{solution-start} ex-a\n:class: dropdown\n```\n"
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": exercise},
            {"cell_type": "code", "source": "x = 1\nprint(x)", "outputs": [], "execution_count": 1,
             "metadata": {}},
            {"cell_type": "markdown", "metadata": {}, "source": "The answer.\n\n```{solution-end}\n```\n\nAfter.\n\n"
             + exercise.replace("ex-a", "ex-b")},
        ],
        "metadata": {},
    }  # fmt: skip
    book = notebook_export.Book(
        url="../", install="# install", numbers={"chapters/x": {"ex-a": "19.1", "ex-b": "19.2"}}
    )
    cells = notebook_export.export_notebook(notebook, "chapters/x", book)["cells"]
    sources = [c["source"] for c in cells]
    assert sources[0].startswith("> **Exercise 19.1** (Train)")
    assert sources[1] == "##### Solution to Exercise 19.1"
    assert cells[1]["metadata"] == {"jp-MarkdownHeadingCollapsed": True}
    assert sources[2] == "# install"
    assert sources[3] == "x = 1\nprint(x)"
    assert cells[3]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert sources[4].startswith("<details>")
    assert "The answer." in sources[4]
    assert sources[4].endswith("</details>")
    assert sources[5] == "##### End of the solution to Exercise 19.1"
    assert sources[6].startswith("After.\n\n> **Exercise 19.2** (Train)")  # the same cell
    assert sources[7] == "##### Solution to Exercise 19.2"
    assert not any("<details>\n<summary><b>Solution" in s for s in sources)  # no empty fold


def test_a_loop_that_only_computes_what_it_glues_is_removed():
    source = (
        "for lo in (1, 2):\n    n = lo + 1\n    glue(f'n_{lo}', n)\n"
        "for lo in (1, 2):\n    kept = lo\n    glue('k', kept)\nprint(kept)\n"
    )
    assert notebook_export.strip_glue(source) == ("for lo in (1, 2):\n    kept = lo\nprint(kept)")


def test_a_figure_cell_keeps_no_myst_in_its_metadata():
    figure = {"figure": {"caption": "The {glue:text}`k` curves.", "name": "fig-a"}}
    notebook = {
        "cells": [{"cell_type": "code", "source": "x = 1", "outputs": [], "execution_count": 1,
                   "metadata": {"mystnb": figure}}],
        "metadata": {},
    }  # fmt: skip
    book = notebook_export.Book(url="../", install="# install")
    with pytest.raises(notebook_export.ExportError):  # the glued value is not in this notebook
        notebook_export.export_notebook(notebook, "chapters/x", book)
    figure["figure"]["caption"] = "The curves."
    cells = notebook_export.export_notebook(notebook, "chapters/x", book)["cells"]
    assert "mystnb" not in cells[1]["metadata"]
    assert "The curves." in cells[2]["source"]
