"""The PDF edition holds what the HTML book holds (run by ``nox -s pdf``, after both builds).

Reads docs/_build/latex/rnndoc.pdf with poppler's ``pdftotext`` and checks: every chapter's
title, every number glued into each chapter of the HTML book, and no ``??`` (an unresolved
reference). Renders the first page of every chapter to docs/_build/latex/pages/ for a
person to look at.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
from html_only import HTML_ONLY  # docs/_ext, on the path just above

DOCS = Path(__file__).resolve().parents[1] / "docs"
BUILD = DOCS / "_build"
PDF = BUILD / "latex" / "rnndoc.pdf"
PAGES = BUILD / "latex" / "pages"
#: A glued value in the HTML: myst-nb's span around {glue:text} / {glue} results.
PASTED = re.compile(r'<span class="pasted-text">(.*?)</span>', re.DOTALL)
NUMBER = re.compile(r"\d")


def _squeeze(text: str) -> str:
    """Text without white space (pdftotext breaks lines where LaTeX did), with straight quotes
    (LaTeX sets ' as a typographic apostrophe)."""
    return re.sub(r"\s+", "", text).translate(str.maketrans("‘’“”", "''\"\""))


#: The running header of a numbered page (Sphinx's "normal" page style): the book's title line.
HEADER = re.compile(r"rnndoc: recurrent networks, derived and proven, Release \S+")
#: A page number in the footer: arabic, or roman in the front matter.
FOLIO = re.compile(r"\d+|[ivxlcdm]+")
#: A line that is only a number ("2,359,296", "3.3e-16"): never the footer's section title.
#: pdftotext sometimes writes that title higher up the page (beside a table that ends the page),
#: and the page's last line is then the body's, a table's last number, which must stay.
BODY_NUMBER = re.compile(r"[\d.,%eE+\-−×\s]+")


def _body(text: str) -> str:
    """pdftotext's output without the running headers and footers.

    Where a page break falls inside a paragraph, pdftotext writes the footer (the section's
    title and the page number), a form feed and the next page's header between its two halves,
    so a glued value split by the break would not be found. A page with the running header
    (Sphinx's "normal" style) ends in the section's title and the page number; a chapter's
    first page ("plain" style) has no header and only the page number below the text.
    """
    pages = []
    for page in text.split("\f"):
        lines = page.strip("\n").split("\n")
        headed = bool(lines) and HEADER.fullmatch(lines[0].strip()) is not None
        if headed:
            lines = lines[1:]
        while lines and not lines[-1].strip():
            lines.pop()
        if lines and FOLIO.fullmatch(lines[-1].strip()):
            lines.pop()
            while lines and not lines[-1].strip():
                lines.pop()
            if headed and lines and not BODY_NUMBER.fullmatch(lines[-1].strip()):
                lines.pop()  # the section's title in the footer
        pages.append("\n".join(lines).strip("\n"))
    return "\n".join(pages)


def test_body_drops_headers_and_footers():
    """A value split by a page break is whole again; a chapter's first page keeps its last line."""
    header = "rnndoc: recurrent networks, derived and proven, Release 0.1.0"
    text = (
        f"{header}\n\nthe sizes are 128, 439, 986, 1,825,\n\nA.1. Measured\n\n178\n\n\f"
        f"{header}\n\n3,012, 4,603, a cubic.\n\nA.1. Measured\n\n179\n\n\f"
        "Chapter 4\n\nk2 steps; chunking\n\n38\n\n\f"
        f"{header}\n\n5.4. LSTM with a projection (LSTMP)\n\nparameters\n\n5,242,880\n2,359,296\n\n59\n\n\f"
        "Contents\n1 Order 3\n\ni\n"
    )
    assert _body(text) == (
        "the sizes are 128, 439, 986, 1,825,\n3,012, 4,603, a cubic.\n"
        "Chapter 4\n\nk2 steps; chunking\n"
        "5.4. LSTM with a projection (LSTMP)\n\nparameters\n\n5,242,880\n2,359,296\n"
        "Contents\n1 Order 3"
    )


def _documents() -> list[str]:
    """The book's documents in reading order, from the root page's toctrees (but the HTML-only ones)."""
    index = (DOCS / "index.md").read_text("utf-8")
    names = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.DOTALL):
        names += [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")]
    return [name for name in names if name not in HTML_ONLY]


def _title(docname: str) -> str:
    """The document's title, its first level-1 heading, as plain text."""
    source = (DOCS / f"{docname}.md").read_text("utf-8")
    heading = re.search(r"^# (.+)$", source, re.MULTILINE).group(1)
    return re.sub(r"[`*]", "", heading)


@pytest.fixture(scope="module")
def pdf_text() -> str:
    assert PDF.is_file(), f"no PDF at {PDF}: run `nox -s pdf`"
    result = subprocess.run(["pdftotext", "-enc", "UTF-8", str(PDF), "-"], capture_output=True, check=True)
    return _body(result.stdout.decode("utf-8"))


def test_documents_found():
    documents = _documents()
    assert len(documents) >= 10, documents
    assert all((DOCS / f"{doc}.md").is_file() for doc in documents)


@pytest.mark.parametrize("docname", _documents())
def test_title_in_pdf(pdf_text, docname):
    assert _squeeze(_title(docname)) in _squeeze(pdf_text), f"{docname}: title {_title(docname)!r} missing"


@pytest.mark.parametrize("docname", [doc for doc in _documents() if doc.startswith("chapters/")])
def test_glued_numbers_in_pdf(pdf_text, docname):
    """Every glued number of the chapter's HTML page is in the PDF (and there is at least one)."""
    page = (BUILD / "html" / f"{docname}.html").read_text("utf-8")
    glued = {html.unescape(re.sub(r"<[^>]+>", "", value)).strip() for value in PASTED.findall(page)}
    numbers = sorted(value for value in glued if NUMBER.search(value))
    assert numbers, f"{docname}: no glued number in the HTML page"
    squeezed = _squeeze(pdf_text)
    missing = [value for value in numbers if _squeeze(value) not in squeezed]
    assert missing == [], f"{docname}: glued values missing from the PDF: {missing}"


def test_no_unresolved_reference(pdf_text):
    assert "??" not in pdf_text, pdf_text[max(0, pdf_text.index("??") - 200) : pdf_text.index("??") + 50]


def test_first_page_of_each_chapter_rendered():
    """Render each top-level outline entry's first page to PNG (60 dpi) for a person to look at."""
    assert shutil.which("pdftoppm"), "pdftoppm (poppler-utils) is needed"
    reader = PdfReader(PDF)
    entries = [item for item in reader.outline if not isinstance(item, list)]
    titles = {_squeeze(_title(doc)): doc for doc in _documents()}
    shutil.rmtree(PAGES, ignore_errors=True)
    PAGES.mkdir(parents=True)
    rendered = []
    for entry in entries:
        docname = titles.get(_squeeze(entry.title))
        if docname is None:
            continue
        number = reader.get_destination_page_number(entry) + 1
        stem = PAGES / docname.replace("/", "-")
        subprocess.run(
            ["pdftoppm", "-f", str(number), "-l", str(number), "-r", "60", "-png", "-singlefile",
             str(PDF), str(stem)],
            check=True,
        )  # fmt: skip
        rendered.append(docname)
    missing = sorted(set(titles.values()) - set(rendered))
    assert missing == [], f"no outline entry (bookmark) for {missing}"
    assert len(list(PAGES.glob("*.png"))) == len(rendered)


def test_every_page_offers_the_pdf():
    """Once the PDF is beside the pages, every page's download menu links it (conf.py)."""
    site = BUILD / "html"
    assert (site / "rnndoc.pdf").is_file(), "nox -s pdf copies the PDF beside the pages"
    missing = []
    for docname in ["index", *_documents()]:
        page = (site / f"{docname}.html").read_text("utf-8")
        menu = re.search(r'<div class="dropdown dropdown-download-buttons">(.*?)</ul>', page, re.DOTALL)
        if not menu or not re.search(r'href="(?:\.\./)*rnndoc\.pdf"', menu.group(1)):
            missing.append(docname)
    assert not missing, f"no link to the book's PDF in the download menu of {missing}"
