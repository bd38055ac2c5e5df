"""The links a published page offers around its text (docs/_ext/reader_links.py), and the Pages
workflow that publishes what they point at.

A local build has no repository URL, so the built HTML (checked by browser/test_reader_pages.py)
shows none of these links: here the page hook runs on a page's context as the theme leaves it,
with a repository and a book address set, as the Pages workflow builds.
"""

from __future__ import annotations

import doctest
import sys
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import reader_links as rl  # docs/_ext is not a package: on the path above

REPOSITORY = "https://github.com/someone/rnndoc"
BOOK = "https://someone.github.io/rnndoc/"


def test_doctests():
    failures, tried = doctest.testmod(rl)
    assert tried > 0
    assert failures == 0


def _app(repository: str = REPOSITORY, book: str = BOOK, secnumbers: dict | None = None):
    config = SimpleNamespace(
        root_doc="index",
        release="9.9.9",
        reader_links_repository=repository,
        reader_links_notebooks_branch="notebooks",
        reader_links_book_url=book,
    )
    env = SimpleNamespace(toc_secnumbers=secnumbers or {"chapters/bptt": {"": (2,)}})
    return SimpleNamespace(config=config, env=env)


def _context(pagename: str, title: str, with_source_group: bool = True) -> dict:
    buttons = [{"type": "group", "label": "download-buttons", "buttons": []}]
    if with_source_group:
        buttons.append({"type": "group", "label": "source-buttons", "buttons": []})
    return {"pagename": pagename, "title": title, "docstitle": "rnndoc: the book",
            "header_buttons": buttons}  # fmt: skip


def _group(context: dict, label: str) -> dict:
    (group,) = [b for b in context["header_buttons"] if b.get("label") == label]
    return group


def test_chapter_gets_launch_buttons_to_its_plain_notebook():
    context = _context("chapters/bptt", "Backpropagation through time, derived")
    rl._page_links(_app(), "chapters/bptt", "page.html", context, doctree=object())
    launch = {b["text"]: b["url"] for b in _group(context, "launch-buttons")["buttons"]}
    assert launch == {
        "Colab": "https://colab.research.google.com/github/someone/rnndoc/blob/notebooks/bptt.ipynb",
        "Binder": "https://mybinder.org/v2/gh/someone/rnndoc/notebooks?urlpath=lab/tree/bptt.ipynb",
    }


def test_report_link_names_the_chapter_and_its_address():
    context = _context("chapters/bptt", "2. Backpropagation through <em>time</em>, derived")
    rl._page_links(_app(), "chapters/bptt", "page.html", context, doctree=object())
    (report,) = [
        b for b in _group(context, "source-buttons")["buttons"] if b["label"] == "report-problem-button"
    ]
    assert report["text"] == "Report a problem with this chapter"
    url = urlsplit(report["url"])
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{REPOSITORY}/issues/new"
    query = parse_qs(url.query)
    assert query["title"] == ["Chapter 2 “Backpropagation through time, derived”: "]
    assert f"Page: {BOOK}chapters/bptt.html" in query["body"][0]
    assert "rnndoc 9.9.9" in query["body"][0]


def test_report_link_on_a_page_that_is_no_chapter():
    context = _context("notation", "Notation", with_source_group=False)
    rl._page_links(_app(), "notation", "page.html", context, doctree=object())
    assert [b.get("label") for b in context["header_buttons"]] == [
        "download-buttons",
        "report-problem-button",
    ]
    assert context["header_buttons"][-1]["text"] == "Report a problem with this page"
    assert parse_qs(urlsplit(context["header_buttons"][-1]["url"]).query)["title"] == ["Notation: "]


def test_no_repository_no_links():
    context = _context("chapters/bptt", "Backpropagation through time, derived")
    before = [dict(b) for b in context["header_buttons"]]
    rl._page_links(_app(repository=""), "chapters/bptt", "page.html", context, doctree=object())
    assert context["header_buttons"] == before


def test_front_page_title_once():
    context = _context("index", "rnndoc: the book")
    rl._page_links(_app(repository=""), "index", "page.html", context, doctree=object())
    assert context["rnndoc_title_once"] is True
    other = _context("notation", "Notation")
    rl._page_links(_app(repository=""), "notation", "page.html", other, doctree=object())
    assert "rnndoc_title_once" not in other


def test_requirements_pin_what_the_book_ran_with():
    text = rl.requirements_txt(
        "rnndoc @ git+https://github.com/someone/rnndoc@abc", "https://example.org/cpu"
    )
    lines = text.splitlines()
    assert lines[1] == "--extra-index-url https://example.org/cpu"
    assert lines[2] == "rnndoc @ git+https://github.com/someone/rnndoc@abc"
    pinned = {line.split("==")[0] for line in lines[3:]}
    assert pinned == set(rl.PINNED)
    assert "+" not in text.split("torch==")[1].splitlines()[0]  # no local build tag (+cpu)
    assert rl._torch_index("torch==2.13.0 --index-url https://example.org/cpu") == "https://example.org/cpu"
    assert rl._torch_index("torch==2.13.0") is None


# --- the Pages workflow publishes what the buttons and links point at ---------------------------


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text("utf-8"))


def test_workflow_sets_the_book_address_and_the_whole_history(workflow):
    assert workflow["env"]["RNNDOC_BOOK_URL"].startswith("https://")
    assert "RNNDOC_REPOSITORY_URL" in workflow["env"]
    (checkout,) = [
        s for s in workflow["jobs"]["build"]["steps"] if str(s.get("uses", "")).startswith("actions/checkout")
    ]
    assert checkout["with"]["fetch-depth"] == 0  # "last updated" dates from git need the history


def test_workflow_publishes_the_notebooks_branch(workflow):
    build = workflow["jobs"]["build"]["steps"]
    (upload,) = [s for s in build if s.get("name") == "Upload the notebooks"]
    assert upload["with"]["path"] == "docs/_build/html/_notebooks"
    job = workflow["jobs"]["notebooks"]
    assert job["needs"] == "build"
    assert job["permissions"] == {"contents": "write"}
    script = job["steps"][-1]["run"]
    assert "git push --force" in script
    assert script.rstrip().endswith(" notebooks")  # the branch reader_links' buttons open
    defaults = {}
    recorder = SimpleNamespace(
        add_config_value=lambda name, default, *args, **kwargs: defaults.setdefault(name, default),
        connect=lambda *args, **kwargs: None,
    )
    rl.setup(recorder)
    assert defaults["reader_links_notebooks_branch"] == "notebooks"


def test_add_menu_entry_puts_an_entry_in_its_menu_or_alone():
    menu = {"label": "download-buttons", "buttons": [{"label": "ipynb"}]}
    buttons = [{"label": "fullscreen"}, menu]
    rl.add_menu_entry(buttons, "download-buttons", {"label": "pdf"})
    assert menu["buttons"] == [{"label": "ipynb"}, {"label": "pdf"}]
    assert len(buttons) == 2
    alone = [{"label": "fullscreen"}]
    rl.add_menu_entry(alone, "source-buttons", {"label": "report"})  # no such menu: at the end
    assert alone == [{"label": "fullscreen"}, {"label": "report"}]
    rl.add_menu_entry(alone, "download-buttons", {"label": "pdf"}, alone={"label": "icon"}, at=0)
    assert alone[0] == {"label": "icon"}
