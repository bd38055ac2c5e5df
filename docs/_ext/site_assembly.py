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
  missing address;
- the English edition's ``objects.inv`` (intersphinx links made against the old root resolve to
  the redirect pages), and, with the book's address, a ``sitemap.xml`` index of the editions'
  sitemaps. A ``.nojekyll`` is kept when an edition has one.

Nothing here imports Sphinx: the assembly runs in any Python, and tests/test_site_assembly.py
tests it without building the book.
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import sys
from pathlib import Path

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


def redirect_target(page: str, folder: str = EDITIONS[0].folder) -> str:
    """The new address of ``page`` relative to its old place: the same page in ``folder``.

    >>> redirect_target("chapters/bptt.html")
    '../en/chapters/bptt.html'
    >>> redirect_target("notation.html")
    'en/notation.html'
    """
    return "../" * page.count("/") + f"{folder}/{page}"


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
    canonical = f"{book_url.rstrip('/')}/{folder}/{page}" if book_url else target
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
      var primary = String(wanted[i]).toLowerCase().split("-")[0];
      if (Object.prototype.hasOwnProperty.call(byLanguage, primary)) { choice = byLanguage[primary]; break; }
    }
  }
  location.replace(choice + "/index.html" + location.search + location.hash);
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
    shutil.copy2(english / "404.html", out / "404.html")
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
