"""The published site: the book's editions side by side, a root page that picks one, redirects.

``python docs/_ext/site_assembly.py OUT en=docs/_build/html zh-TW=docs/_build/html-zh_TW
[--book-url URL]`` (run by ``nox -s site`` and ``nox -s published``) writes into OUT:

- each edition's build, whole, in its folder (``en/``, ``zh-TW/``; docs/_ext/editions.py names
  them), the English one with the PDF when ``nox -s pdf`` put it beside its pages;
- ``index.html``, the root page: it opens the edition the reader chose before (the switcher on
  every page stores the choice in ``localStorage``), else the first of the browser's languages
  that an edition is written in (any Chinese: zh-TW; English), else English; the address's
  ``#fragment`` and query go along. Without JavaScript it offers both editions' links;
- a redirect page at every address the English book had before the editions moved into
  folders (``chapters/bptt.html`` to ``en/chapters/bptt.html``): JavaScript keeps the
  ``#fragment`` and query, a ``<meta http-equiv="refresh">`` does without JavaScript, and
  ``rel=canonical`` names the new address;
- ``404.html``, the English edition's (its links are absolute under the edition's folder, and
  its script finds the edition's files from any depth), which GitHub Pages serves for any
  missing address, with one script put first (``moved_script``): an old address of what is not
  a page (the PDF: ``rnndoc.pdf`` before, ``en/rnndoc.pdf`` now; an image, a source-code page)
  or an address without its ``.html`` or with a trailing slash opens the file that exists.
  GitHub Pages has no server-side redirects, and a static page at ``rnndoc.pdf`` would be
  served as a PDF: this works in a browser that runs scripts, and a download tool (curl, wget)
  still gets the 404;
- the English edition's ``objects.inv`` (intersphinx links made against the old root resolve to
  the redirect pages), and, with the book's address, a ``sitemap.xml`` index of the editions'
  sitemaps. A ``.nojekyll`` is kept when an edition has one.

The editions must hold the same pages (each page's switcher opens the same page in the other
one); page names are percent-encoded in every address written (a ``#``, ``?`` or space in a
name stays in the path).

Nothing here imports Sphinx: the assembly runs in any Python, and tests/test_site_assembly.py
tests it without building the book.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).parent))

from editions import EDITIONS, STORAGE_KEY  # docs/_ext, on the path above

#: Files of an edition's root that the site's root keeps (the old addresses of what is not a page).
ROOT_COPIES = ("objects.inv",)


def pages(folder: Path) -> list[str]:
    """The HTML pages of a built edition (paths relative to it), without Sphinx's own folders."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(folder).parts[:-1])
    )


def redirected(pages_: list[str]) -> list[str]:
    """The old addresses that get a redirect page: every page but the root page and the 404 page.

    >>> redirected(["404.html", "chapters/bptt.html", "index.html", "search.html"])
    ['chapters/bptt.html', 'search.html']
    """
    return [p for p in pages_ if p not in {"index.html", "404.html"}]


def url_path(page: str) -> str:
    """A file's path as a relative URL: percent-encoded, so that a ``#``, ``?``, space or
    non-ASCII character in a page's name is part of the path (not a fragment or a query).

    >>> url_path("chapters/a b#c?.html"), url_path("術語.html")
    ('chapters/a%20b%23c%3F.html', '%E8%A1%93%E8%AA%9E.html')
    """
    return quote(page, safe="/")


def redirect_target(page: str, folder: str = EDITIONS[0].folder) -> str:
    """The new address of ``page`` relative to its old place: the same page in ``folder``.

    >>> redirect_target("chapters/bptt.html")
    '../en/chapters/bptt.html'
    >>> redirect_target("notation.html")
    'en/notation.html'
    """
    return "../" * page.count("/") + f"{folder}/{url_path(page)}"


def _script(code: str) -> str:
    return "<script>" + code.replace("</", "<\\/") + "</script>"


def redirect_page(page: str, book_url: str = "", folder: str = EDITIONS[0].folder) -> str:
    """The HTML of the redirect page at ``page``'s old address.

    >>> text = redirect_page("chapters/bptt.html", "https://x.org/b/")
    >>> '<link rel="canonical" href="https://x.org/b/en/chapters/bptt.html">' in text
    True
    >>> 'content="0; url=../en/chapters/bptt.html"' in text
    True
    """
    target = redirect_target(page, folder)
    canonical = f"{book_url.rstrip('/')}/{folder}/{url_path(page)}" if book_url else target
    # the script replaces this address in the history (Back does not come back here), with the
    # query (search.html?q=...) and the fragment, which a meta refresh would drop
    script = _script(f"location.replace({json.dumps(target)} + location.search + location.hash);")
    href = html.escape(target)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Moved to {href}</title>
<link rel="canonical" href="{html.escape(canonical)}">
{script}
<noscript><meta http-equiv="refresh" content="0; url={href}"></noscript>
</head>
<body>
<p>This page has moved to <a href="{href}">{href}</a>.</p>
</body>
</html>
"""


#: The root page's script: the stored choice, else the browser's languages, else the first edition.
_PICKER = """(function () {
  var editions = %EDITIONS%;
  var byLanguage = %LANGUAGES%;
  var choice = null;
  try { choice = window.localStorage.getItem(%KEY%); } catch (error) { choice = null; }
  if (editions.indexOf(choice) < 0) {
    choice = editions[0];
    var wanted = navigator.languages && navigator.languages.length ? navigator.languages
      : [navigator.language || ""];
    for (var i = 0; i < wanted.length; i++) {
      // "zh_TW" as some browsers' web views write it, as well as BCP 47's "zh-TW"
      var primary = String(wanted[i]).toLowerCase().split(/[-_]/)[0];
      if (Object.prototype.hasOwnProperty.call(byLanguage, primary)) { choice = byLanguage[primary]; break; }
    }
  }
  // at an address without its trailing slash (".../rnndoc", where a server does not add it), a
  // relative "en/" would leave the site's folder: go down into it first
  var last = location.pathname.split("/").pop();
  var into = last === "" || last === "index" || /[.]html?$/.test(last) ? "" : last + "/";
  location.replace(into + choice + "/index.html" + location.search + location.hash);
})();"""


def picker_page(book_url: str = "") -> str:
    """The HTML of the site's root page, which opens one edition (see the module's docstring).

    >>> text = picker_page()
    >>> 'href="en/index.html"' in text and 'href="zh-TW/index.html"' in text
    True
    >>> '"zh": "zh-TW"' in text and '"en": "en"' in text
    True
    """
    folders = [e.folder for e in EDITIONS]
    # the primary language subtag of each edition's tag: any Chinese reads the zh-TW edition
    by_language = {e.tag.split("-")[0].lower(): e.folder for e in EDITIONS}
    script = (
        _PICKER.replace("%EDITIONS%", json.dumps(folders))
        .replace("%LANGUAGES%", json.dumps(by_language))
        .replace("%KEY%", json.dumps(STORAGE_KEY))
    )
    root = book_url.rstrip("/") + "/" if book_url else ""
    alternates = "\n".join(
        f'<link rel="alternate" hreflang="{e.tag}" href="{html.escape(root + e.folder)}/index.html">'
        for e in EDITIONS
    )
    x_default = f'<link rel="alternate" hreflang="x-default" href="{html.escape(root or "./")}">'
    links = "\n".join(
        f'<li><a href="{e.folder}/index.html" hreflang="{e.tag}" lang="{e.tag}" '
        f'data-rnndoc-edition="{e.folder}">{html.escape(e.name)}</a></li>'
        for e in EDITIONS
    )
    store = _script(
        'document.addEventListener("click", function (event) {\n'
        '  var link = event.target.closest && event.target.closest("a[data-rnndoc-edition]");\n'
        "  if (!link) return;\n"
        f'  try {{ window.localStorage.setItem({json.dumps(STORAGE_KEY)}, link.getAttribute("data-rnndoc-edition")); }}\n'
        "  catch (error) { /* the link still works */ }\n"
        "});"
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rnndoc</title>
<link rel="icon" href="{EDITIONS[0].folder}/_static/favicon.png">
{alternates}
{x_default}
{_script(script)}
</head>
<body>
<main>
<h1>rnndoc</h1>
<p>Choose an edition of the book. 請選擇版本。</p>
<ul>
{links}
</ul>
</main>
{store}
</body>
</html>
"""


#: The script put first into the root 404 page (which GitHub Pages serves at every missing address):
#: an address the site had before the editions (the PDF ``rnndoc.pdf``, a source-code page, an
#: image, a notebook, any page) or one written without its ``.html`` or with a trailing slash
#: opens the existing file: the English edition's (an old address), the same edition's, else the
#: English one's. GitHub Pages has no server-side redirects: what is not a page can move only this
#: way, in a browser that runs the script (a download tool still gets the 404). The site's root is
#: the book's path (from its address) where the address is under it, else the shallowest folder of
#: the address whose ``en/_static/favicon.png`` exists (a project page's host may serve others),
#: then the deeper ones, until one has the file.
_MOVED = """(function () {
  var editions = %EDITIONS%;
  var known = %ROOT%;
  var path = location.pathname;
  var folders = path.split("/").slice(0, -1);
  var roots = [];
  for (var f = 1; f <= folders.length; f++) roots.push(folders.slice(0, f).join("/") + "/");
  if (known && path.indexOf(known) === 0) roots.unshift(known);
  function exists(url) {
    var probe = new XMLHttpRequest();
    probe.open("HEAD", url, false);
    try { probe.send(); } catch (error) { return false; }
    return probe.status === 200;
  }
  function variants(inner) {
    var bare = inner.replace(/[/]+$/, "");
    if (bare === "") return ["index.html"];
    var found = [bare];
    if (!/[.][A-Za-z0-9]+$/.test(bare.split("/").pop())) found.push(bare + ".html", bare + "/index.html");
    found.slice().forEach(function (each) {
      if (found.indexOf(each.toLowerCase()) < 0) found.push(each.toLowerCase());
    });
    return found;
  }
  for (var i = 0; i < roots.length; i++) {
    var root = roots[i];
    if (!exists(root + editions[0] + "/_static/favicon.png")) continue;
    var rest = path.slice(root.length);
    var first = rest.split("/")[0];
    var inner = editions.indexOf(first) >= 0 ? rest.slice(first.length + 1) : rest;
    var places = editions.indexOf(first) > 0 ? [first, editions[0]] : [editions[0]];
    for (var p = 0; p < places.length; p++) {
      var candidates = variants(inner);
      for (var c = 0; c < candidates.length; c++) {
        var target = places[p] + "/" + candidates[c];
        if (target !== rest && exists(root + target)) {
          location.replace(root + target + location.search + location.hash);
          return;
        }
      }
    }
  }
})();"""


def moved_script(book_url: str = "") -> str:
    """The ``<script>`` element of the root 404 page that sends old and near-miss addresses on.

    >>> '["en", "zh-TW"]' in moved_script()
    True
    >>> 'var known = "/rnndoc/";' in moved_script("https://x.github.io/rnndoc")
    True
    """
    path = urlsplit(book_url).path.rstrip("/") + "/" if book_url else None
    folders = json.dumps([e.folder for e in EDITIONS])
    return _script(_MOVED.replace("%EDITIONS%", folders).replace("%ROOT%", json.dumps(path)))


def root_404(english_404: str, book_url: str = "") -> str:
    """The site's root 404 page: the English edition's, with :func:`moved_script` first in its head.

    >>> root_404("<html><head><title>x</title></head></html>").startswith("<html><head><script>")
    True
    """
    head = re.search(r"<head\b[^>]*>", english_404)
    if head is None:
        raise ValueError("the English 404 page has no <head>")
    return english_404[: head.end()] + moved_script(book_url) + english_404[head.end() :]


def sitemap_index(book_url: str, folders: list[str]) -> str:
    """A sitemap index naming each edition's sitemap.xml.

    >>> "<loc>https://x.org/b/zh-TW/sitemap.xml</loc>" in sitemap_index("https://x.org/b", ["zh-TW"])
    True
    """
    root = book_url.rstrip("/") + "/"
    entries = "".join(
        f"  <sitemap><loc>{html.escape(root + folder)}/sitemap.xml</loc></sitemap>\n" for folder in folders
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</sitemapindex>\n"
    )


def assemble(out: Path, builds: dict[str, Path], book_url: str = "") -> None:
    """Write the site into ``out`` (emptied first) from the editions' builds, by folder name."""
    known = [e.folder for e in EDITIONS]
    if sorted(builds) != sorted(known):
        raise ValueError(f"the site needs one build per edition {known}, got {sorted(builds)}")
    for folder, build in builds.items():
        if not (build / "index.html").is_file():
            raise FileNotFoundError(f"no built edition in {build} (for {folder}/)")
    # every page's switcher opens the same page in the other edition: each must have them all
    built = {folder: set(pages(build)) for folder, build in builds.items()}
    for folder in known[1:]:
        if built[folder] != built[known[0]]:
            only = sorted(built[known[0]] ^ built[folder])
            raise ValueError(f"the editions {known[0]}/ and {folder}/ differ in pages: {only[:10]}")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for folder in known:
        shutil.copytree(builds[folder], out / folder, ignore=shutil.ignore_patterns(".buildinfo*"))
    english = out / known[0]
    for page in redirected(pages(english)):
        target = out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(redirect_page(page, book_url), "utf-8")
    (out / "index.html").write_text(picker_page(book_url), "utf-8")
    (out / "404.html").write_text(root_404((english / "404.html").read_text("utf-8"), book_url), "utf-8")
    for name in ROOT_COPIES:
        if (english / name).is_file():
            shutil.copy2(english / name, out / name)
    with_sitemap = [folder for folder in known if (out / folder / "sitemap.xml").is_file()]
    if book_url and with_sitemap:
        (out / "sitemap.xml").write_text(sitemap_index(book_url, with_sitemap), "utf-8")
    if any((out / folder / ".nojekyll").exists() for folder in known):
        (out / ".nojekyll").touch()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the site's folder (emptied first)")
    parser.add_argument("builds", nargs="+", help="FOLDER=BUILD for each edition, e.g. en=docs/_build/html")
    parser.add_argument("--book-url", default="", help="the site's published address (RNNDOC_BOOK_URL)")
    args = parser.parse_args(argv)
    builds = {}
    for item in args.builds:
        folder, _, build = item.partition("=")
        builds[folder] = Path(build)
    assemble(args.out, builds, args.book_url)
    print(f"site_assembly: the site is in {args.out} ({', '.join(f'{f}/' for f in builds)}, root page, "
          f"{len(redirected(pages(args.out / EDITIONS[0].folder)))} redirects)")  # fmt: skip


if __name__ == "__main__":
    main()
