"""The published site's layout (docs/_ext/site_assembly.py, docs/_ext/editions.py), without Sphinx.

Two tiny "editions" are assembled in a temporary folder: every old English address must get a
redirect to an existing page of ``en/``, the root page must offer both editions, the 404 page must
be at the root. The root page's script runs in Node (where there is one) against a stubbed
browser: the stored choice first, then the browser's languages, the fragment kept.
"""

from __future__ import annotations

import doctest
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import editions  # docs/_ext is not a package: on the path above
import site_assembly as sa

BOOK = "https://someone.github.io/rnndoc/"
PAGES = ["index.html", "404.html", "notation.html", "search.html", "chapters/bptt.html", "chapters/gru.html"]


def test_doctests():
    for module in (editions, sa):
        failures, tried = doctest.testmod(module)
        assert tried > 0
        assert failures == 0


def _edition(folder: Path, *, sitemap: bool = True) -> Path:
    for page in PAGES:
        (folder / page).parent.mkdir(parents=True, exist_ok=True)
        (folder / page).write_text(f"<html>{folder.name} {page}</html>", "utf-8")
    (folder / "404.html").write_text(f"<html><head>\n<title>404</title></head>{folder.name}</html>", "utf-8")
    (folder / "_static").mkdir()
    (folder / "_static" / "favicon.png").write_bytes(b"png")
    (folder / "_static" / "not-a-page.html").write_text("<html></html>", "utf-8")
    (folder / "objects.inv").write_bytes(b"inventory " + folder.name.encode())
    (folder / ".buildinfo").write_text("build", "utf-8")
    if sitemap:
        (folder / "sitemap.xml").write_text("<urlset/>", "utf-8")
    return folder


@pytest.fixture
def site(tmp_path) -> Path:
    builds = {"en": _edition(tmp_path / "html"), "zh-TW": _edition(tmp_path / "html-zh_TW")}
    out = tmp_path / "site"
    out.mkdir()
    (out / "stale.html").write_text("left from before", "utf-8")
    sa.assemble(out, builds, BOOK)
    return out


def test_editions_side_by_side(site):
    for folder in ("en", "zh-TW"):
        for page in PAGES:
            assert (site / folder / page).is_file()
        assert not (site / folder / ".buildinfo").exists()
    chinese = (site / "zh-TW" / "chapters" / "gru.html").read_text("utf-8")
    assert chinese == "<html>html-zh_TW chapters/gru.html</html>"
    assert not (site / "stale.html").exists()  # the folder is emptied first


def test_redirect_at_every_old_page(site):
    old = sa.redirected(sa.pages(site / "en"))
    assert old == ["chapters/bptt.html", "chapters/gru.html", "notation.html", "search.html"]
    assert "_static/not-a-page.html" not in sa.pages(site / "en")
    for page in old:
        text = (site / page).read_text("utf-8")
        target = re.search(r'location\.replace\("([^"]+)"', text).group(1)
        assert (site / page).parent.joinpath(target).resolve() == (site / "en" / page).resolve()
        assert (site / page).parent.joinpath(target).is_file()
        assert f'<link rel="canonical" href="{BOOK}en/{page}">' in text
        assert f'<noscript><meta http-equiv="refresh" content="0; url={target}"></noscript>' in text
        assert "location.search + location.hash" in text  # search.html?q=... and #fragments kept


def test_root_page_404_and_root_files(site):
    text = (site / "index.html").read_text("utf-8")
    for edition in editions.EDITIONS:
        assert f'href="{edition.folder}/index.html" hreflang="{edition.tag}" lang="{edition.tag}"' in text
        assert (
            f'<link rel="alternate" hreflang="{edition.tag}" href="{BOOK}{edition.folder}/index.html">'
            in text
        )
    assert f'<link rel="alternate" hreflang="x-default" href="{BOOK}">' in text
    english_404 = (site / "en" / "404.html").read_text("utf-8")
    assert english_404 == "<html><head>\n<title>404</title></head>html</html>"  # as it was built
    assert (site / "404.html").read_text("utf-8") == sa.root_404(english_404, BOOK)  # the English one
    assert (site / "objects.inv").read_bytes() == b"inventory html"
    sitemap = (site / "sitemap.xml").read_text("utf-8")
    assert sitemap.count("<sitemap>") == 2
    assert f"<loc>{BOOK}zh-TW/sitemap.xml</loc>" in sitemap
    assert not (site / ".nojekyll").exists()  # only when an edition has one


def test_no_sitemap_index_without_the_address(tmp_path):
    builds = {"en": _edition(tmp_path / "html"), "zh-TW": _edition(tmp_path / "html-zh_TW")}
    (builds["en"] / ".nojekyll").touch()
    sa.assemble(tmp_path / "site", builds)
    assert not (tmp_path / "site" / "sitemap.xml").exists()
    assert (tmp_path / "site" / ".nojekyll").exists()
    text = (tmp_path / "site" / "chapters" / "bptt.html").read_text("utf-8")
    assert '<link rel="canonical" href="../en/chapters/bptt.html">' in text


def test_needs_every_edition(tmp_path):
    english = _edition(tmp_path / "html")
    with pytest.raises(ValueError, match="one build per edition"):
        sa.assemble(tmp_path / "site", {"en": english})
    with pytest.raises(FileNotFoundError):
        sa.assemble(tmp_path / "site", {"en": english, "zh-TW": tmp_path / "none"})


def test_command_line(tmp_path, capsys):
    en, zh = _edition(tmp_path / "html"), _edition(tmp_path / "html-zh_TW")
    sa.main([str(tmp_path / "site"), f"en={en}", f"zh-TW={zh}", "--book-url", BOOK])
    assert "4 redirects" in capsys.readouterr().out
    assert (tmp_path / "site" / "zh-TW" / "index.html").is_file()


def test_edition_addresses():
    english, chinese = editions.EDITIONS
    assert (english.tag, chinese.tag) == ("en", "zh-TW")
    assert editions.to_other_edition("chapters/bptt.html", chinese, published=True) == (
        "../../zh-TW/chapters/bptt.html"
    )
    # from en/chapters/bptt.html, that address is zh-TW/chapters/bptt.html
    resolved = Path("/site/en/chapters").joinpath("../../zh-TW/chapters/bptt.html").resolve()
    assert resolved == Path("/site/zh-TW/chapters/bptt.html")
    links = dict(editions.alternates("chapters/bptt.html", chinese, book_url=BOOK, published=True))
    assert links == {
        "en": f"{BOOK}en/chapters/bptt.html",
        "zh-TW": f"{BOOK}zh-TW/chapters/bptt.html",
        "x-default": BOOK,
    }


# --- the root page's choice, run in Node against a stubbed browser ----------------------------------

NODE = shutil.which("node")


def _picked(
    stored: str | None,
    languages: list[str],
    hash_: str = "",
    storage_fails: bool = False,
    pathname: str = "/rnndoc/",
) -> str:
    script = re.search(r"<script>(.*?)</script>", sa.picker_page(BOOK), re.DOTALL).group(1)
    script = script.replace("<\\/", "</")
    harness = f"""
var stored = {json.dumps(stored)}, fails = {json.dumps(storage_fails)};
var window = {{ localStorage: {{ getItem: function (key) {{
  if (fails) throw new Error("denied");
  return key === {json.dumps(editions.STORAGE_KEY)} ? stored : null; }} }} }};
var navigator = {{ languages: {json.dumps(languages)}, language: {json.dumps(languages[:1] or [""])}[0] }};
var location = {{ pathname: {json.dumps(pathname)}, search: "", hash: {json.dumps(hash_)},
  replace: function (url) {{ console.log(url); }} }};
{script}
"""
    result = subprocess.run([NODE, "-e", harness], capture_output=True, text=True, check=True, timeout=30)
    return result.stdout.strip()


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the root page's script")
@pytest.mark.parametrize(
    ("stored", "languages", "expected"),
    [
        (None, ["zh-TW", "en"], "zh-TW/index.html"),
        (None, ["zh-CN"], "zh-TW/index.html"),  # any Chinese reads the Chinese edition
        (None, ["zh-Hant-HK"], "zh-TW/index.html"),
        (None, ["en-US", "zh-TW"], "en/index.html"),  # the first language an edition is in
        (None, ["fr-FR", "de"], "en/index.html"),  # none: English
        (None, ["fr", "zh"], "zh-TW/index.html"),
        (None, [], "en/index.html"),
        ("en", ["zh-TW"], "en/index.html"),  # the stored choice first
        ("zh-TW", ["en-GB"], "zh-TW/index.html"),
        ("klingon", ["zh-TW"], "zh-TW/index.html"),  # an unknown stored value is ignored
        # not available: a regional English, a script subtag, unknown and empty tags
        (None, ["en-IN", "zh-TW"], "en/index.html"),
        (None, ["ja-JP", "ko", "*", ""], "en/index.html"),
        (None, ["zh_TW"], "zh-TW/index.html"),  # as some web views write it
        (None, ["ZH-hk"], "zh-TW/index.html"),
        (None, ["eng"], "en/index.html"),  # not "en": English as the fallback, not as a match
        (None, ["zho"], "en/index.html"),  # ISO 639-2, not what browsers send: not taken for Chinese
    ],
)
def test_root_page_choice(stored, languages, expected):
    assert _picked(stored, languages) == expected


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the root page's script")
def test_root_page_keeps_the_fragment_and_survives_refused_storage():
    assert _picked(None, ["en"], "#eq-bptt") == "en/index.html#eq-bptt"
    assert _picked("en", ["zh-TW"], storage_fails=True) == "zh-TW/index.html"


def test_workflow_uploads_the_assembled_site():
    import yaml  # noqa: PLC0415

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text("utf-8"))
    steps = workflow["jobs"]["build"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert runs.index("nox -s docs") < runs.index("nox -s pdf") < runs.index("nox -s site")
    (upload,) = [s for s in steps if s.get("name") == "Upload the site"]
    assert upload["with"]["path"] == "docs/_build/site"
    assert steps.index(upload) > runs.index("nox -s site")
    assert workflow["env"]["RNNDOC_BASE_URL"].endswith("/")  # the 404 page's prefix: base + en/


# --- the Sphinx side (docs/_ext/editions.py) on a stand-in configuration and page context ----------


class _Config(dict):
    """What the handlers read of Sphinx's Config: attributes, and ``in`` for a registered name."""

    __getattr__ = dict.__getitem__

    def __setattr__(self, name, value):
        self[name] = value


def _config(language: str, book: str = BOOK, base: str = "/rnndoc/") -> _Config:
    return _Config(
        language=language, editions_book_url=book, editions_base_url=base, html_baseurl=book,
        ogp_site_url=book, notebook_export_book_url=book, reader_links_book_url=book,
        notfound_urls_prefix=base or "/",
        notfound_context={"body": f"<a href='{base or '/'}index.html'>front page</a>"},
    )  # fmt: skip


@pytest.mark.parametrize(("language", "folder"), [("en", "en"), ("zh_TW", "zh-TW")])
def test_each_edition_gets_its_folder(language, folder):
    config = _config(language)
    editions._edition_addresses(None, config)
    for name in ("html_baseurl", "ogp_site_url", "notebook_export_book_url", "reader_links_book_url"):
        assert config[name] == f"{BOOK}{folder}/"
    assert config.notfound_urls_prefix == f"/rnndoc/{folder}/"
    assert config.notfound_context["body"] == f"<a href='/rnndoc/{folder}/index.html'>front page</a>"


def test_a_local_build_keeps_its_addresses():
    config = _config("en", book="", base="")
    before = dict(config)
    editions._edition_addresses(None, config)
    assert config == before


def _page_context(language: str, pagename: str, book: str = BOOK, base: str = "/rnndoc/") -> dict:
    from types import SimpleNamespace  # noqa: PLC0415

    app = SimpleNamespace(
        config=_config(language, book, base),
        builder=SimpleNamespace(format="html", get_target_uri=lambda name: f"{name}.html"),
    )
    context = {"metatags": ""}
    editions._switcher_and_alternates(app, pagename, "page.html", context, None)
    return context


def test_switcher_and_alternates_in_the_page_context():
    context = _page_context("en", "chapters/bptt")
    switch = context["rnndoc_edition_switch"]
    assert switch["url"] == "../../zh-TW/chapters/bptt.html"
    assert (switch["tag"], switch["name"], switch["key"]) == ("zh-TW", "中文（台灣）", editions.STORAGE_KEY)
    assert (
        f'<link rel="alternate" hreflang="zh-TW" href="{BOOK}zh-TW/chapters/bptt.html" />'
        in (context["metatags"])
    )
    assert f'<link rel="alternate" hreflang="x-default" href="{BOOK}" />' in context["metatags"]
    english = _page_context("zh_TW", "index")["rnndoc_edition_switch"]
    assert (english["url"], english["name"], english["tag"]) == ("../en/index.html", "English", "en")
    # the 404 page is served at any address: the other edition's front page by its absolute path
    assert _page_context("en", "404")["rnndoc_edition_switch"]["url"] == "/rnndoc/zh-TW/index.html"
    assert "rnndoc_edition_switch" not in _page_context("en", "404", book="", base="")
    local = _page_context("en", "notation", book="", base="")
    assert local["rnndoc_edition_switch"]["url"] == "../html-zh_TW/notation.html"
    assert "x-default" not in local["metatags"]


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the root page's script")
@pytest.mark.parametrize(
    ("pathname", "expected"),
    [
        ("/rnndoc/", "https://someone.github.io/rnndoc/en/index.html"),
        ("/rnndoc/index.html", "https://someone.github.io/rnndoc/en/index.html"),
        # a server that does not add the folder's slash: "en/" relative to it would be /en/
        ("/rnndoc", "https://someone.github.io/rnndoc/en/index.html"),
        ("/", "https://someone.github.io/en/index.html"),  # the site at a domain's root
    ],
)
def test_root_page_under_any_path(pathname, expected):
    from urllib.parse import urljoin  # noqa: PLC0415

    relative = _picked(None, ["en"], pathname=pathname)
    assert urljoin("https://someone.github.io" + pathname, relative) == expected


# --- odd page names, nested pages, the book's address without its slash ----------------------------


def test_page_names_that_need_escaping(tmp_path):
    odd = ["chapters/a b#1.html", "術語.html", "deep/er/c?d.html"]
    builds = {}
    for folder, name in (("en", "html"), ("zh-TW", "html-zh_TW")):
        build = _edition(tmp_path / name)
        for page in odd:
            (build / page).parent.mkdir(parents=True, exist_ok=True)
            (build / page).write_text(page, "utf-8")
        builds[folder] = build
    site = tmp_path / "site"
    sa.assemble(site, builds, BOOK)
    from urllib.parse import unquote, urljoin  # noqa: PLC0415

    for page in odd:
        text = (site / page).read_text("utf-8")
        target = re.search(r'location\.replace\("([^"]+)"', text).group(1)
        assert not set("#? ") & set(target)
        # the address the browser opens, from the old one, is the page's new place
        opened = urljoin(f"{BOOK}{sa.url_path(page)}", target)
        assert opened == f"{BOOK}en/{sa.url_path(page)}"
        assert (site / unquote(opened.removeprefix(BOOK))).read_text("utf-8") == page
        refresh = re.search(r'content="0; url=([^"]+)"', text).group(1)
        assert refresh == target
        assert f'<link rel="canonical" href="{BOOK}en/{sa.url_path(page)}">' in text
    assert sa.redirect_target("deep/er/c?d.html") == "../../en/deep/er/c%3Fd.html"


def test_the_book_address_with_or_without_its_slash(tmp_path):
    builds = {"en": _edition(tmp_path / "html"), "zh-TW": _edition(tmp_path / "html-zh_TW")}
    sa.assemble(tmp_path / "with", builds, BOOK)
    sa.assemble(tmp_path / "without", builds, BOOK.rstrip("/"))
    for name in ("index.html", "sitemap.xml", "chapters/bptt.html", "notation.html", "404.html"):
        with_slash = (tmp_path / "with" / name).read_text("utf-8")
        assert with_slash == (tmp_path / "without" / name).read_text("utf-8")
    english = editions.EDITIONS[0]
    assert editions.alternates("index.html", english, book_url=BOOK.rstrip("/"), published=True) == [
        ("en", f"{BOOK}en/index.html"),
        ("zh-TW", f"{BOOK}zh-TW/index.html"),
        ("x-default", BOOK),
    ]


def test_editions_must_have_the_same_pages(tmp_path):
    builds = {"en": _edition(tmp_path / "html"), "zh-TW": _edition(tmp_path / "html-zh_TW")}
    (builds["en"] / "chapters" / "only_english.html").write_text("x", "utf-8")
    with pytest.raises(ValueError, match=r"differ in pages: \['chapters/only_english.html'\]"):
        sa.assemble(tmp_path / "site", builds, BOOK)


@pytest.mark.parametrize("page", ["chapters/bptt.html", "a/b/c/d.html", "index.html"])
def test_switcher_address_from_any_depth(page):
    from urllib.parse import urljoin  # noqa: PLC0415

    for this in editions.EDITIONS:
        (other,) = editions.others(this)
        url = editions.to_other_edition(page, other, published=True)
        assert urljoin(f"{BOOK}{this.folder}/{page}", url) == f"{BOOK}{other.folder}/{page}"
        # served without ".html" (GitHub Pages serves chapters/bptt.html at chapters/bptt too)
        bare = page.removesuffix(".html")
        assert urljoin(f"{BOOK}{this.folder}/{bare}", url) == f"{BOOK}{other.folder}/{page}"
        local = editions.to_other_edition(page, other, published=False)
        assert urljoin(f"file:///b/{this.local}/{page}", local) == f"file:///b/{other.local}/{page}"


# --- the root 404 page: old and near-miss addresses, the PDF's among them ------------------------------


def _moved(site: Path, pathname: str, *, prefix: str = "/rnndoc/", search: str = "", hash_: str = "") -> str:
    """Where the root 404 page's first script sends a browser at ``pathname`` (empty: nowhere), with
    the site ``site`` served under ``prefix``: a stubbed XMLHttpRequest answers 200 where the file is."""
    script = re.search(r"<script>(.*?)</script>", (site / "404.html").read_text("utf-8"), re.DOTALL).group(1)
    script = script.replace("<\\/", "</")
    served = {prefix + sa.url_path(p.relative_to(site).as_posix()) for p in site.rglob("*") if p.is_file()}
    harness = f"""
var served = {json.dumps(sorted(served))}, asked = [];
function XMLHttpRequest() {{}}
XMLHttpRequest.prototype.open = function (method, url, sync) {{
  if (method !== "HEAD" || sync !== false) throw new Error("not a synchronous HEAD");
  this.url = url;
}};
XMLHttpRequest.prototype.send = function () {{
  asked.push(this.url); this.status = served.indexOf(this.url) >= 0 ? 200 : 404;
}};
var location = {{ pathname: {json.dumps(pathname)}, search: {json.dumps(search)}, hash: {json.dumps(hash_)},
  replace: function (url) {{ console.log(url); }} }};
{script}
if (asked.length > 40) throw new Error("too many requests: " + asked.length);
"""
    result = subprocess.run([NODE, "-e", harness], capture_output=True, text=True, check=True, timeout=30)
    return result.stdout.strip()


@pytest.fixture
def site_with_pdf(tmp_path) -> Path:
    builds = {"en": _edition(tmp_path / "html"), "zh-TW": _edition(tmp_path / "html-zh_TW")}
    (builds["en"] / "rnndoc.pdf").write_bytes(b"%PDF")
    for build in builds.values():
        (build / "_images").mkdir()
        (build / "_images" / "fig.png").write_bytes(b"png")
    out = tmp_path / "site"
    sa.assemble(out, builds, BOOK)
    return out


def test_root_404_is_the_english_one_with_the_moved_script_first(site_with_pdf):
    text = (site_with_pdf / "404.html").read_text("utf-8")
    assert text == "<html><head>" + sa.moved_script(BOOK) + "\n<title>404</title></head>html</html>"
    with pytest.raises(ValueError, match="no <head>"):
        sa.root_404("<html><body>404</body></html>")


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the 404 page's script")
@pytest.mark.parametrize("prefix", ["/rnndoc/", "/"])  # a project page, and a domain of its own
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("rnndoc.pdf", "en/rnndoc.pdf"),  # the PDF's address before the editions
        ("_images/fig.png", "en/_images/fig.png"),
        ("chapters/bptt/", "en/chapters/bptt.html"),  # a trailing slash
        ("en/chapters/bptt/", "en/chapters/bptt.html"),
        ("en/chapters/bptt.html/", "en/chapters/bptt.html"),
        ("zh-TW/chapters/gru", "zh-TW/chapters/gru.html"),  # the same edition first
        ("zh-TW/rnndoc.pdf", "en/rnndoc.pdf"),  # then the English one
        ("Chapters/BPTT.html", "en/chapters/bptt.html"),
        ("en/Notation.html", "en/notation.html"),
        ("nothing.html", ""),  # no such page anywhere: the 404 page stays
        ("en/chapters/nothing/", ""),
        ("zh-TW/nothing.pdf", ""),
    ],
)
def test_root_404_sends_old_addresses_on(site_with_pdf, prefix, old, new):
    opened = _moved(site_with_pdf, prefix + old, prefix=prefix)
    assert opened == (prefix + new if new else "")


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the 404 page's script")
def test_root_404_keeps_query_and_fragment(site_with_pdf):
    opened = _moved(site_with_pdf, "/rnndoc/chapters/bptt/", search="?x=1", hash_="#eq-bptt")
    assert opened == "/rnndoc/en/chapters/bptt.html?x=1#eq-bptt"
    assert _moved(site_with_pdf, "/rnndoc/rnndoc.pdf", hash_="#page=3") == "/rnndoc/en/rnndoc.pdf#page=3"


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the 404 page's script")
def test_root_404_outside_the_site_does_nothing(site_with_pdf):
    # another project's missing page on the same host (no en/_static/favicon.png above it)
    assert _moved(site_with_pdf, "/other/rnndoc.pdf", prefix="/rnndoc/") == ""


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the 404 page's script")
def test_root_404_prefers_the_book_path(site_with_pdf, tmp_path):
    # a project page's host also serving a site of the same layout at its root, which happens to
    # hold en/rnndoc/rnndoc.pdf: the book's path (from its address) is tried first
    both = tmp_path / "both"
    shutil.copytree(site_with_pdf, both / "rnndoc")
    (both / "en" / "_static").mkdir(parents=True)
    (both / "en" / "_static" / "favicon.png").write_bytes(b"png")
    (both / "en" / "rnndoc").mkdir()
    (both / "en" / "rnndoc" / "rnndoc.pdf").write_bytes(b"%PDF another")
    (both / "404.html").write_text((site_with_pdf / "404.html").read_text("utf-8"), "utf-8")
    assert _moved(both, "/rnndoc/rnndoc.pdf", prefix="/") == "/rnndoc/en/rnndoc.pdf"
    # without the book's address, the shallowest folder that has the file
    (both / "404.html").write_text(sa.root_404("<head></head>"), "utf-8")
    assert _moved(both, "/rnndoc/rnndoc.pdf", prefix="/") == "/en/rnndoc/rnndoc.pdf"
    # and a deeper one when the shallow one has nothing for the address
    (both / "en" / "rnndoc" / "rnndoc.pdf").unlink()
    assert _moved(both, "/rnndoc/rnndoc.pdf", prefix="/") == "/rnndoc/en/rnndoc.pdf"


# --- the switcher's script (docs/_static/rnndoc-editions.js), in Node against a stubbed page -----------

SWITCHER_JS = ROOT / "docs" / "_static" / "rnndoc-editions.js"


def _switch(
    *,
    hash_: str = "",
    search: str = "",
    scroll: float = 0,
    sections: dict[str, float] | None = None,
    named_top: dict[str, float] | None = None,
    event: str = "click",
    times: int = 1,
    storage_fails: bool = False,
) -> dict:
    """The switcher link's address after ``times`` events of type ``event``, and what was stored.

    ``sections``: each ``<section id>`` of the page (in document order) and its top relative to the
    window; ``named_top``: other elements with an id (an equation's), by their tops."""
    harness = f"""
var sections = {json.dumps(list((sections or {}).items()))};
var named = {json.dumps(named_top or {})};
var stored = {{}};
function box(top) {{ return {{ top: top, bottom: top + 50 }}; }}
var window = {{ innerHeight: 800, scrollY: {json.dumps(scroll)}, localStorage: {{
  setItem: function (k, v) {{ if ({json.dumps(storage_fails)}) throw new Error("denied"); stored[k] = v; }} }} }};
var location = {{ hash: {json.dumps(hash_)}, search: {json.dumps(search)} }};
var attributes = {{ "href": "../../zh-TW/chapters/bptt.html", "data-rnndoc-edition": "zh-TW" }};
var link = {{
  hasAttribute: function (n) {{ return n in attributes; }},
  getAttribute: function (n) {{ return n in attributes ? attributes[n] : null; }},
  setAttribute: function (n, v) {{ attributes[n] = String(v); }},
  closest: function (selector) {{ return selector === "a[data-rnndoc-edition]" ? link : null; }}
}};
var listeners = {{}};
var document = {{
  addEventListener: function (type, f, capture) {{ listeners[type] = f; }},
  getElementById: function (id) {{
    for (var i = 0; i < sections.length; i++) if (sections[i][0] === id) return {{ id: id,
      getBoundingClientRect: function () {{ return box(sections[i][1]); }} }};
    if (id in named) return {{ id: id, getBoundingClientRect: function () {{ return box(named[id]); }} }};
    return null;
  }},
  querySelectorAll: function (selector) {{
    if (selector !== "main section[id]") throw new Error(selector);
    return sections.map(function (s) {{ return {{ id: s[0],
      getBoundingClientRect: function () {{ return box(s[1]); }} }}; }});
  }}
}};
{SWITCHER_JS.read_text("utf-8")}
for (var t = 0; t < {times}; t++) listeners[{json.dumps(event)}]({{ type: {json.dumps(event)}, target: link }});
console.log(JSON.stringify({{ href: attributes.href, stored: stored }}));
"""
    result = subprocess.run([NODE, "-e", harness], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(result.stdout)


BPTT_ZH = "../../zh-TW/chapters/bptt.html"
#: A chapter scrolled to the middle of its second section's first subsection.
SCROLLED = {"chap-bptt": -3000, "the-unrolled-graph": -1200, "one-step": -300, "the-loss": 600}


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the switcher's script")
@pytest.mark.parametrize(
    ("kwargs", "href"),
    [
        ({}, BPTT_ZH),  # the top of the page: no fragment
        ({"scroll": 3300, "sections": SCROLLED}, BPTT_ZH + "#one-step"),  # the section being read
        # the address's fragment while what it names is on screen (an equation inside a section)
        ({"hash_": "#equation-bptt", "scroll": 3300, "sections": SCROLLED, "named_top": {"equation-bptt": 200}},
         BPTT_ZH + "#equation-bptt"),
        # scrolled away from it: the section being read instead
        ({"hash_": "#equation-bptt", "scroll": 5000, "sections": SCROLLED, "named_top": {"equation-bptt": -900}},
         BPTT_ZH + "#one-step"),
        ({"hash_": "#not-on-this-page"}, BPTT_ZH + "#not-on-this-page"),  # kept: the other page may have it
        ({"hash_": "#bad%E0%A4%A"}, BPTT_ZH + "#bad%E0%A4%A"),  # a malformed escape does not stop the link
        ({"search": "?q=lstm"}, BPTT_ZH + "?q=lstm"),  # search.html's query
        ({"scroll": 3300, "sections": SCROLLED, "times": 3}, BPTT_ZH + "#one-step"),  # not added up
        ({"scroll": 3300, "sections": SCROLLED, "event": "pointerdown"}, BPTT_ZH + "#one-step"),
        ({"scroll": 3300, "sections": SCROLLED, "event": "contextmenu"}, BPTT_ZH + "#one-step"),  # new tab
        ({"scroll": 3300, "sections": SCROLLED, "storage_fails": True}, BPTT_ZH + "#one-step"),
    ],
)  # fmt: skip
def test_switcher_carries_the_place(kwargs, href):
    assert _switch(**kwargs)["href"] == href


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the switcher's script")
def test_switcher_stores_the_choice_on_click_only():
    assert _switch()["stored"] == {editions.STORAGE_KEY: "zh-TW"}
    assert _switch(event="pointerdown")["stored"] == {}
    assert _switch(storage_fails=True)["stored"] == {}
