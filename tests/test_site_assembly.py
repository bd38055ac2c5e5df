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
    assert (site / "404.html").read_text("utf-8") == "<html>html 404.html</html>"  # the English one
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


def _picked(stored: str | None, languages: list[str], hash_: str = "", storage_fails: bool = False) -> str:
    script = re.search(r"<script>(.*?)</script>", sa.picker_page(BOOK), re.DOTALL).group(1)
    script = script.replace("<\\/", "</")
    harness = f"""
var stored = {json.dumps(stored)}, fails = {json.dumps(storage_fails)};
var window = {{ localStorage: {{ getItem: function (key) {{
  if (fails) throw new Error("denied");
  return key === {json.dumps(editions.STORAGE_KEY)} ? stored : null; }} }} }};
var navigator = {{ languages: {json.dumps(languages)}, language: {json.dumps(languages[:1] or [""])}[0] }};
var location = {{ search: "", hash: {json.dumps(hash_)}, replace: function (url) {{ console.log(url); }} }};
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
