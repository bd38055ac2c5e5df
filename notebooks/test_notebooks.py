"""The chapters' plain notebooks (run by ``nox -s notebooks``, after the HTML build).

docs/_ext/notebook_export.py writes them to docs/_build/html/_notebooks/. Checked here: one
per chapter; no MyST left in any Markdown cell (parsed with the MyST plugins of markdown-it-py,
as the book's parser reads it) and no glue or myst_nb in the code; every value glued into the
HTML chapter written into the notebook's Markdown; the install cell first. Then the notebooks
named by ``RNNDOC_NOTEBOOKS`` run top to bottom with nbclient, on a kernel in a fresh venv
(``RNNDOC_KERNEL_PYTHON``) that holds torch, sympy, matplotlib and ipykernel but not rnndoc:
the notebook's install cell installs rnndoc from the wheel the local build ships beside the
notebooks (copied with the notebook), and any error fails.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
HTML = DOCS / "_build" / "html"
FOLDER = HTML / "_notebooks"
sys.path.insert(0, str(DOCS / "_ext"))

from notebook_export import check_markdown  # docs/_ext, on the path above

CHAPTERS = sorted(path.stem for path in (DOCS / "chapters").glob("*.md"))
#: Every page that gets a plain notebook -> its HTML page: the chapters, and the other pages
#: that offer their notebook with {nb-download} (the notation page).
PAGES = {
    path.stem: path.relative_to(DOCS).with_suffix(".html").as_posix()
    for path in sorted(DOCS.rglob("*.md"))
    if "_build" not in path.parts
    and (path.parent.name == "chapters" or "{nb-download}" in path.read_text("utf-8"))
}
RUN = os.environ.get("RNNDOC_NOTEBOOKS", "order cells").split()
#: What MyST looks like even where a parser would not call it MyST (inside a paragraph).
MYST_TEXT = re.compile(
    r"\{(glue|eq|doc|numref|ref|cite|func|class|mod|data|term|math|download|nb-download)[:}]|^(```|:::)\{",
    re.MULTILINE,
)
PASTED = re.compile(r'<span class="pasted-text">(.*?)</span>', re.DOTALL)
#: Sphinx's smart quotes set a glued sentence's ' and " typographically in the HTML; the
#: notebook keeps them straight.
STRAIGHT = str.maketrans("‘’“”", "''\"\"")


def _notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(FOLDER / f"{name}.ipynb", as_version=4)


def test_one_notebook_per_chapter():
    assert set(CHAPTERS) <= set(PAGES)
    assert sorted(path.stem for path in FOLDER.glob("*.ipynb")) == sorted(PAGES)


def _is_plain(path: Path) -> bool:
    """No MyST in the cells' sources (the cells' metadata keeps myst-nb's, which Jupyter ignores)."""
    text = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return "myst_nb" not in text and "{glue" not in text and "```{math}" not in text


def test_no_page_offers_a_myst_notebook():
    """Every link to a notebook in the built book leads to a plain notebook in _notebooks/
    (not myst-nb's MyST notebook in _downloads/), and its text is not set as code."""
    offered = {}
    for page in sorted(HTML.rglob("*.html")):
        text = page.read_text("utf-8")
        for match in re.finditer(r'<a\b[^>]*\bhref="([^"#?]+\.ipynb)"[^>]*>(.{0,12})', text):
            href = match[1]
            if "://" in href:
                continue
            target = (page.parent / href).resolve()
            where = f"{page.relative_to(HTML)} -> {href}"
            assert target.parent == FOLDER.resolve(), f"{where}: not a plain notebook of _notebooks/"
            assert target.is_file(), where
            assert _is_plain(target), f"{where}: MyST in the notebook"
            assert not match[2].startswith("<code"), f"{where}: the link's text is set as code"
            offered[page.relative_to(HTML).as_posix()] = href
    assert set(PAGES.values()) <= set(offered), "each page with a notebook links it"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_first_cell_says_where_the_book_is(name):
    """Links are relative to _notebooks/ in a local build (RNNDOC_BOOK_URL unset): the first
    Markdown cell after the title says so; the install cell names the page without '../'."""
    notebook = _notebook(name)
    preface = notebook.cells[1]
    assert preface.cell_type == "markdown"
    assert PAGES[name] in preface.source
    assert "relative to the book's `_notebooks/` folder" in preface.source
    install = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert f"the book: {PAGES[name]} in the built book" in install.source


@pytest.mark.parametrize("name", sorted(PAGES))
def test_plain_markdown_and_code(name):
    notebook = _notebook(name)
    nbformat.validate(notebook)
    problems = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            problems += [f"cell {index}: {p}" for p in check_markdown(cell.source)]
            problems += [f"cell {index}: {m.group(0)!r}" for m in MYST_TEXT.finditer(cell.source)]
        elif cell.cell_type == "code":
            if re.search(r"\bmyst_nb\b|\bglue\(", cell.source):
                problems.append(f"cell {index} needs myst_nb:\n{cell.source}")
            if any("scrapbook" in output.get("metadata", {}) for output in cell.outputs):
                problems.append(f"cell {index} keeps a glue output")
    assert not problems, "\n".join(problems)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "pip" in code[0].source, "the first code cell installs"
    assert "rnndoc" in code[0].source, "the first code cell installs rnndoc"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_glued_values_written_in(name):
    """Every value the HTML chapter shows as glued text is in the notebook's Markdown."""
    page = (HTML / PAGES[name]).read_text("utf-8")
    markdown = "\n".join(c.source for c in _notebook(name).cells if c.cell_type == "markdown")
    plain = re.sub(r"\\(.)", r"\1", markdown).translate(STRAIGHT)  # Markdown escapes off
    values = (html.unescape(re.sub(r"<[^>]+>", "", m)).translate(STRAIGHT) for m in PASTED.findall(page))
    missing = [v for v in values if v not in plain]
    assert not missing, f"glued values of chapters/{name}.html not in the notebook: {missing}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_references_numbered_as_in_the_book(name):
    """Each {numref} to a chapter reads "Chapter N" in the notebook as in the HTML chapter."""
    source = (DOCS / "chapters" / f"{name}.md").read_text("utf-8")
    page = (HTML / "chapters" / f"{name}.html").read_text("utf-8")
    markdown = "\n".join(c.source for c in _notebook(name).cells if c.cell_type == "markdown")
    wanted = len(re.findall(r"\{numref\}`Chapter\s+%s\s+<chap-", source))  # a role may wrap a line
    in_page = [
        " ".join(m.split())
        for m in re.findall(r"<span class=\"[^\"]*std-numref[^\"]*\">(Chapter\s+\d+)</span>", page)
    ]
    in_notebook = re.findall(r"\[(Chapter \d+)\]\([^)]*chapters/\w+\.html#chap-[\w-]+\)", markdown)
    assert len(in_page) == wanted
    assert in_notebook == in_page


@pytest.mark.parametrize("name", RUN)
def test_runs_where_only_the_package_is_installed(name, tmp_path):
    python = os.environ.get("RNNDOC_KERNEL_PYTHON")
    if not python:
        pytest.skip("RNNDOC_KERNEL_PYTHON (a fresh venv's python) is set by nox -s notebooks")
    kernels = tmp_path / "jupyter" / "kernels" / "rnndoc-fresh"
    kernels.mkdir(parents=True)
    spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "rnndoc fresh venv", "language": "python"}  # fmt: skip
    (kernels / "kernel.json").write_text(json.dumps(spec), "utf-8")
    os.environ["JUPYTER_PATH"] = str(tmp_path / "jupyter")
    notebook = _notebook(name)
    work = tmp_path / "work"  # not the checkout: rnndoc must come from the venv
    work.mkdir()
    wheels = sorted(FOLDER.glob("rnndoc-*.whl"))  # a local build ships the wheel beside the notebooks
    assert len(wheels) == 1, wheels
    (work / wheels[0].name).write_bytes(wheels[0].read_bytes())
    NotebookClient(notebook, kernel_name="rnndoc-fresh", timeout=600, allow_errors=False,
                   resources={"metadata": {"path": str(work)}}).execute()  # fmt: skip
    install = next(cell for cell in notebook.cells if cell.cell_type == "code")
    printed = "".join(o.get("text", "") for o in install.outputs)
    # the kernel's venv has all but rnndoc (nox -s notebooks): the first notebook run installs
    # it from the wheel beside the notebook, a later one finds it and installs nothing
    assert printed.strip() in {"", f"installing: ./{wheels[0].name}"}, printed
    where = subprocess.run([python, "-c", "import rnndoc; print(rnndoc.__file__)"], cwd=work,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert str(Path(python).parents[1]) in where, where
    assert str(ROOT / "src") not in where, where
