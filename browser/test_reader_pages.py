"""What a reader expects around each built page's text, read from the built HTML (no browser).

Every page: the version under the title; a "last updated" date from git; preview metadata
(og:title, og:description, og:url); a download menu with its source (.md), a chapter's plain
notebook and, once ``nox -s pdf`` put it beside the pages, the book's PDF. The front page's
title said once; a changelog in the Reference part whose newest version is the package's;
figures drawn at twice their display size, which the <img> states. The links that need the
repository and the published address (launch buttons, problem report, sitemap) are checked
as the build was made: present and pointing at the right places when RNNDOC_REPOSITORY_URL /
RNNDOC_BOOK_URL are set (as the Pages workflow sets them), absent when not (a local build).
"""

from __future__ import annotations

import html
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import _book
import pytest

ROOT = _book.HTML.parents[2]
#: The built book: docs/_build/html, or another build of it (RNNDOC_HTML), e.g. one made with the
#: Pages workflow's addresses set, to check the links they bring.
HTML = Path(os.environ.get("RNNDOC_HTML", _book.HTML))
DOCS = ROOT / "docs"
_INIT = (ROOT / "src" / "rnndoc" / "__init__.py").read_text("utf-8")
VERSION = re.search(r'__version__ = "([^"]+)"', _INIT).group(1)
REPOSITORY = os.environ.get("RNNDOC_REPOSITORY_URL", "").rstrip("/")
BOOK = os.environ.get("RNNDOC_BOOK_URL", "")
BOOK = BOOK.rstrip("/") + "/" if BOOK else ""
BASE = os.environ.get("RNNDOC_BASE_URL", "")
sys.path.insert(0, str(DOCS / "_ext"))
import editions  # docs/_ext/editions.py: the editions' folders (nothing from Sphinx)
import site_assembly  # docs/_ext/site_assembly.py: the site's root 404 page

ENGLISH, CHINESE = editions.EDITIONS
#: Built for publication: each edition in its folder of the site (docs/_ext/editions.py).
PUBLISHED = bool(BOOK or BASE)
#: The English edition's own address: the site's, with its folder.
EDITION = editions.edition_url(BOOK, ENGLISH) if BOOK else ""
#: The assembled site (nox -s published: docs/_build/published/site), or none (a local build).
SITE = Path(os.environ["RNNDOC_SITE"]) if os.environ.get("RNNDOC_SITE") else None


def _pages() -> list[str]:
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html") if "_static" not in p.parts)


#: Pages made from a source file (the rest are Sphinx's: search, general index, 404).
SOURCE_PAGES = [
    p for p in _pages() if (HTML / "_sources" / p.removesuffix(".html")).with_suffix(".md").is_file()
]
CHAPTERS = [p for p in SOURCE_PAGES if p.startswith("chapters/")]


def _read(page: str) -> str:
    return (HTML / page).read_text("utf-8")


def _menu(text: str, label: str) -> list[str]:
    """The links (href) of one of the header's dropdown menus."""
    match = re.search(rf'<div class="dropdown dropdown-{label}">(.*?)</ul>', text, re.DOTALL)
    return re.findall(r'href="([^"]+)"', match.group(1)) if match else []


def _meta(text: str, prop: str) -> str | None:
    match = re.search(rf'<meta property="{re.escape(prop)}" content="([^"]*)"', text)
    return html.unescape(match.group(1)) if match else None


def test_pages_found():
    assert len(CHAPTERS) >= 10
    assert "index.html" in SOURCE_PAGES


@pytest.mark.parametrize("page", SOURCE_PAGES)
def test_download_menu(page):
    text = _read(page)
    links = _menu(text, "download-buttons")
    resolved = {urljoin(page, link) for link in links}
    stem = page.removesuffix(".html")
    assert f"_sources/{stem}.md" in resolved, f"{page}: no source in {links}"
    if page in CHAPTERS:
        notebook = f"_notebooks/{Path(stem).name}.ipynb"
        assert notebook in resolved, f"{page}: no plain notebook in {links}"
    if (HTML / "rnndoc.pdf").is_file():  # nox -s pdf put the book's PDF beside the pages
        assert "rnndoc.pdf" in resolved, f"{page}: no book PDF in {links}"
    for target in resolved:
        assert (HTML / target).is_file(), f"{page}: the download menu links {target}, not in the build"


@pytest.mark.parametrize("page", SOURCE_PAGES)
def test_version_shown(page):
    assert f'<p class="rnndoc-version">Version {VERSION}</p>' in _read(page)


def _git_times(*args: str) -> list[int]:
    """The commit times (Unix seconds) of the commits ``git log`` lists for ``args``."""
    result = subprocess.run(["git", "log", "--format=%ct", *args], cwd=ROOT, capture_output=True,
                            text=True, check=True)  # fmt: skip
    return [int(line) for line in result.stdout.split()]


@pytest.mark.parametrize("page", SOURCE_PAGES)
def test_last_updated_from_git(page):
    match = re.search(r"Last updated on (\d{4}-\d{2}-\d{2})", _read(page))
    assert match, f"{page}: no last-updated date"
    shown = match.group(1)
    source = (DOCS / page).with_suffix(".md").relative_to(ROOT).as_posix()

    def day(timestamp: int) -> str:
        return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")

    # the source's last commit, or a later one that changed a file the page depends on
    assert day(max(_git_times("--", source))) <= shown <= day(max(_git_times())), f"{page}: {shown}"


@pytest.mark.parametrize("page", SOURCE_PAGES)
def test_preview_metadata(page):
    text = _read(page)
    title = html.unescape(re.search(r"<title>(.*?)</title>", text, re.DOTALL).group(1))
    assert _meta(text, "og:title"), f"{page}: no og:title"
    assert title.startswith(_meta(text, "og:title"))
    assert len(_meta(text, "og:description") or "") > 20, f"{page}: no og:description"
    assert _meta(text, "og:url") == f"{EDITION}{page}"


def test_front_page_title_once():
    text = _read("index.html")
    title = html.unescape(re.search(r"<title>(.*?)</title>", text, re.DOTALL).group(1)).strip()
    heading = re.search(r'<article class="bd-article">.*?<h1>(.*?)<a class="headerlink"', text, re.DOTALL)
    assert title == html.unescape(heading.group(1)).strip()  # "T", not "T — T"
    other = html.unescape(re.search(r"<title>(.*?)</title>", _read("notation.html")).group(1))
    assert other.endswith(" — " + title)  # the other pages keep the book's name after theirs


def test_changelog():
    text = _read("changelog.html")
    versions = re.findall(r"<h2>Version ([^ <]+)", text)
    assert versions, "no version heading"
    assert versions[0] == VERSION, versions
    dates = re.findall(r"<h3>(\d{4}-\d{2}-\d{2})", text)
    assert dates, "no dated entry"
    assert dates == sorted(dates, reverse=True), dates  # newest first
    index = _read("index.html")
    reference = re.search(r'class="caption"[^>]*>(?:(?!</ul>).)*?Reference.*?</ul>', index, re.DOTALL)
    assert 'href="changelog.html"' in reference.group(0)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_figures_at_twice_their_size():
    checked = 0
    for page in CHAPTERS:
        text = _read(page)
        for img in re.findall(r'<img [^>]*src="[^"]*_images/[^"]+\.png"[^>]*>', text):
            src = re.search(r'src="([^"]+)"', img).group(1)
            width = re.search(r'width="(\d+)', img)
            height = re.search(r'height="(\d+)', img)
            assert width, f"{page}: {img[:120]} has no width"
            assert height, f"{page}: {img[:120]} has no height"
            pixels = _png_size(HTML / urljoin(page, src))
            # IPython states half the pixels, rounded down: an odd count leaves one over
            shown = (int(width.group(1)), int(height.group(1)))
            assert all(2 * s <= p <= 2 * s + 1 for s, p in zip(shown, pixels, strict=True)), (
                f"{page}: {src} {pixels}"
            )
            checked += 1
    assert checked >= 10


def test_notebooks_branch_files():
    folder = HTML / "_notebooks"
    requirements = (folder / "requirements.txt").read_text("utf-8").splitlines()
    # rnndoc from git at the build commit (published) or the wheel shipped beside the notebooks
    assert any(line.startswith(("rnndoc", "./rnndoc-")) for line in requirements)
    assert any(re.fullmatch(r"torch==[\d.]+", line) for line in requirements)
    assert re.fullmatch(r"python-3\.\d+\n", (folder / "runtime.txt").read_text("utf-8"))
    assert (folder / "README.md").is_file()


@pytest.mark.parametrize("page", CHAPTERS)
def test_launch_buttons(page):
    links = _menu(_read(page), "launch-buttons")
    if not REPOSITORY.startswith("https://github.com/"):
        assert links == [], f"{page}: launch buttons without a repository"
        return
    owner_name = REPOSITORY.removeprefix("https://github.com/")
    notebook = Path(page).with_suffix(".ipynb").name
    assert links == [
        f"https://colab.research.google.com/github/{owner_name}/blob/notebooks/{notebook}",
        f"https://mybinder.org/v2/gh/{owner_name}/notebooks?urlpath=lab/tree/{notebook}",
    ]


@pytest.mark.parametrize("page", SOURCE_PAGES)
def test_report_a_problem(page):
    text = html.unescape(_read(page))
    reports = re.findall(r'href="([^"]*/issues/new\?[^"]*)"', text)
    if not REPOSITORY:
        assert reports == [], f"{page}: an issue link without a repository"
        return
    (report,) = reports
    query = parse_qs(urlsplit(report).query)
    title = html.unescape(re.search(r"<title>(.*?)</title>", _read(page), re.DOTALL).group(1))
    title = re.sub(r"^\d+\. ", "", title.split(" — ")[0].strip())  # a chapter's number: in "Chapter 2"
    assert title in query["title"][0]
    assert page in query["body"][0]


def test_sitemap():
    sitemap = HTML / "sitemap.xml"
    if not BOOK:
        assert not sitemap.exists(), "a sitemap without the book's address"
        return
    locations = {
        el.text for el in ET.parse(sitemap).getroot().iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")
    }
    assert {f"{EDITION}{page}" for page in SOURCE_PAGES} <= locations


def test_notebook_links_and_rnndoc_source():
    """With the book's address (RNNDOC_BOOK_URL), the notebooks' links are absolute (they work
    from a download folder or Colab); without it, relative to _notebooks/ and the first cell
    says so. rnndoc comes from the repository at the commit (RNNDOC_REPOSITORY_URL), else from
    the wheel shipped beside the notebooks."""
    import json  # noqa: PLC0415

    folder = HTML / "_notebooks"
    requirements = (folder / "requirements.txt").read_text("utf-8")
    wheels = sorted(folder.glob("rnndoc-*.whl"))
    for path in sorted(folder.glob("*.ipynb")):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        markdown = "\n".join(c["source"] for c in cells if c["cell_type"] == "markdown")
        install = next(c["source"] for c in cells if c["cell_type"] == "code")
        relative = re.findall(r"\]\((\.\./[^)]*)\)", markdown)
        if BOOK:
            assert relative == [], f"{path.name}: relative links {relative[:3]}"
            assert f"the book: {EDITION}" in install
        else:
            assert relative, path.name
            assert "relative to the book's `_notebooks/` folder" in markdown
        if REPOSITORY:
            assert f"'rnndoc @ git+{REPOSITORY}@" in install, path.name
        else:
            assert f"'./{wheels[0].name}'" in install, path.name
    if REPOSITORY:
        assert f"rnndoc @ git+{REPOSITORY}@" in requirements
        assert wheels == []
    else:
        assert f"./{wheels[0].name}\n" in requirements


# --- the editions side by side (docs/_ext/editions.py, docs/_ext/site_assembly.py) --------------


def _edition_folder(this: editions.Edition) -> Path:
    """Where an edition's build is: its folder in the site, or beside the English one (local)."""
    if SITE is not None:
        return SITE / this.folder
    return HTML.parent / this.local


def _edition_pages(this: editions.Edition) -> list[str]:
    folder = _edition_folder(this)
    return sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*.html") if "_static" not in p.parts
    )


#: Every page of both editions, as (edition's folder name, page); the other edition may be unbuilt.
EDITION_PAGES = [
    (this.folder, page) for this in editions.EDITIONS if _edition_folder(this).is_dir()
    for page in _edition_pages(this)
]  # fmt: skip


def _by_folder(folder: str) -> editions.Edition:
    return next(e for e in editions.EDITIONS if e.folder == folder)


def _links(text: str, tag: str) -> list[dict[str, str]]:
    """The attributes of each ``<tag ...>`` element (``a``, ``link``) in ``text``."""
    return [
        {name: html.unescape(value) for name, value in re.findall(r'([\w:-]+)="([^"]*)"', attributes)}
        for attributes in re.findall(rf"<{tag}\b([^>]*)>", text)
    ]


def test_both_editions_have_the_same_pages():
    if not _edition_folder(CHINESE).is_dir():
        pytest.skip("the Chinese edition is not built")
    assert _edition_pages(ENGLISH) == _edition_pages(CHINESE)


@pytest.mark.parametrize(("folder", "page"), EDITION_PAGES)
def test_switcher_to_the_same_page(folder, page):
    this = _by_folder(folder)
    (other,) = editions.others(this)
    text = (_edition_folder(this) / page).read_text("utf-8")
    switches = [a for a in _links(text, "a") if "rnndoc-edition-switch" in a.get("class", "")]
    if page == "404.html" and not BASE:
        assert switches == [], "a local 404 page cannot know where the other edition is"
        return
    (switch,) = switches
    assert switch["hreflang"] == switch["lang"] == other.tag
    assert switch["data-rnndoc-edition"] == other.folder
    assert re.search(rf">\s*{re.escape(other.name)}\s*</a>", text)
    if page == "404.html":  # served at any address: the other edition's front page, absolute
        assert switch["href"] == f"{BASE.rstrip('/')}/{other.folder}/index.html"
        return
    target = (_edition_folder(this) / page).parent / switch["href"]
    assert target.resolve() == (_edition_folder(other) / page).resolve(), switch["href"]
    assert target.is_file(), f"{folder}/{page}: the switcher links {switch['href']}, not built"


@pytest.mark.parametrize(("folder", "page"), EDITION_PAGES)
def test_hreflang_alternates(folder, page):
    this = _by_folder(folder)
    text = (_edition_folder(this) / page).read_text("utf-8")
    found = {
        link["hreflang"]: link["href"] for link in _links(text, "link") if link.get("rel") == "alternate"
    }
    expected = {e.tag for e in editions.EDITIONS} | ({"x-default"} if PUBLISHED else set())
    assert set(found) == expected, f"{folder}/{page}: {found}"
    for each in editions.EDITIONS:
        if BOOK:
            assert found[each.tag] == f"{editions.edition_url(BOOK, each)}{page}"
        else:  # relative: the same page in that edition's folder
            target = (_edition_folder(this) / page).parent / found[each.tag]
            assert target.resolve() == (_edition_folder(each) / page).resolve()
    if BOOK:
        assert found["x-default"] == BOOK
        canonical = [link["href"] for link in _links(text, "link") if link.get("rel") == "canonical"]
        if page != "404.html":
            assert canonical == [f"{editions.edition_url(BOOK, this)}{page}"]


def _needs_site():
    if SITE is None:
        pytest.skip("no assembled site (RNNDOC_SITE: nox -s published)")


def test_root_page_picks_an_edition():
    _needs_site()
    text = (SITE / "index.html").read_text("utf-8")
    links = {a["hreflang"]: a["href"] for a in _links(text, "a") if "hreflang" in a}
    assert links == {e.tag: f"{e.folder}/index.html" for e in editions.EDITIONS}
    for href in links.values():
        assert (SITE / href).is_file()
    for name in (CHINESE.name, ENGLISH.name):
        assert name in text  # each edition named in its own language (no JavaScript needed)
    script = re.search(r"<script>(.*?)</script>", text, re.DOTALL).group(1)
    # the stored choice first, then the browser's languages; the fragment goes along
    assert script.index("localStorage") < script.index("navigator.languages")
    assert f'"{editions.STORAGE_KEY}"' in script
    assert "location.hash" in script
    assert '"zh": "zh-TW"' in script
    alternates = {link["hreflang"] for link in _links(text, "link") if link.get("rel") == "alternate"}
    assert alternates == {"en", "zh-TW", "x-default"}


def test_switcher_script_stores_the_same_key():
    script = (HTML / "_static" / "rnndoc-editions.js").read_text("utf-8")
    assert f'"{editions.STORAGE_KEY}"' in script


def test_redirect_at_every_old_address():
    _needs_site()
    old = [p for p in _edition_pages(ENGLISH) if p not in {"index.html", "404.html"}]
    assert len(old) >= 20
    for page in old:
        text = (SITE / page).read_text("utf-8")
        target = re.search(r'location\.replace\("([^"]+)" \+ location\.search \+ location\.hash\)', text)
        assert target, f"{page}: no redirect keeping the fragment"
        assert (SITE / page).parent.joinpath(target.group(1)).resolve() == (SITE / "en" / page).resolve()
        assert f'content="0; url={target.group(1)}"' in text, f"{page}: no refresh without JavaScript"
        (canonical,) = [link["href"] for link in _links(text, "link") if link.get("rel") == "canonical"]
        assert canonical == (f"{EDITION}{page}" if BOOK else target.group(1))


def test_404_page_at_the_root():
    _needs_site()
    text = (SITE / "404.html").read_text("utf-8")
    # the English one, with the script that sends old addresses (the PDF's among them) on first
    assert text == site_assembly.root_404((SITE / "en" / "404.html").read_text("utf-8"), BOOK)
    if BASE:
        prefix = f"{BASE.rstrip('/')}/en/"
        assert f"href='{prefix}index.html'" in text or f'href="{prefix}index.html"' in text
        assert 'var editions = ["", "en/"];' in text  # finds the edition's files from the root


def test_site_root_files():
    _needs_site()
    assert (SITE / "objects.inv").read_bytes() == (SITE / "en" / "objects.inv").read_bytes()
    assert (SITE / "en" / "index.html").is_file()
    assert (SITE / "zh-TW" / "index.html").is_file()
    if BOOK:
        index = ET.parse(SITE / "sitemap.xml").getroot()
        locations = [el.text for el in index.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
        assert locations == [f"{BOOK}{e.folder}/sitemap.xml" for e in editions.EDITIONS]
        for e in editions.EDITIONS:
            assert (SITE / e.folder / "sitemap.xml").is_file()
