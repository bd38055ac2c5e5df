"""The book's editions side by side (issue 19): each edition's folder, its addresses, the switcher.

The published site holds the English edition under ``en/`` and the Traditional Chinese one under
``zh-TW/`` (``docs/_ext/site_assembly.py`` puts them together, with a root page that picks one).
This extension gives every page of either edition:

- **its addresses under its folder**, when the book is built for publication (``RNNDOC_BOOK_URL``
  or ``RNNDOC_BASE_URL`` set, conf.py's ``editions_book_url`` and ``editions_base_url``): the
  canonical link, the sitemap and ``og:url`` (``html_baseurl``, ``ogp_site_url``), the notebooks'
  links into the book and the problem report's page address all get ``<book>en/`` (or
  ``<book>zh-TW/``); the 404 page's absolute links get ``<base>en/``. Unset (a local build),
  nothing changes: the addresses stay relative.
- **a switcher** in the article header (``_templates/rnndoc-edition.html``): a link to the same
  page in the other edition, relative (``../zh-TW/chapters/bptt.html`` from
  ``en/chapters/bptt.html``), in that edition's language and labelled in it. Its script
  (``_static/rnndoc-editions.js``) adds the reader's place: the address's ``#fragment`` while
  what it names is on screen, else the section being read (the ids are the same in both
  editions: they come from the English source and its labels), and the query. Clicking it stores
  the choice (``localStorage``, key ``rnndoc-edition``) that the site's root page follows. In a
  local build the editions are the sibling folders docs/_build/html and docs/_build/html-zh_TW,
  and the switcher links between them.
- **hreflang alternates** in the head: ``<link rel="alternate" hreflang="...">`` for every
  edition's copy of the page, and ``x-default`` for the site's root page (the picker) when the
  book is built for publication; absolute with ``RNNDOC_BOOK_URL``, relative otherwise.

The table of editions (``EDITIONS``) is the one place that names them; the site assembly reads
it too. It imports nothing from Sphinx, so the tests and the assembly can use it alone.
"""

from __future__ import annotations

import html
import posixpath
from dataclasses import dataclass


@dataclass(frozen=True)
class Edition:
    """One edition of the book."""

    #: Sphinx's ``language`` (``-D language=...``).
    language: str
    #: Its folder in the published site.
    folder: str
    #: Its folder beside the English book in a local build (docs/_build/<local>).
    local: str
    #: The language tag of its pages (``<html lang>``, ``hreflang``); BCP 47, as Sphinx writes
    #: ``lang`` (``zh_TW`` becomes ``zh-TW``: Chinese as written in Taiwan, Traditional script).
    tag: str
    #: Its name, in its own language (what the switcher and the root page show).
    name: str


#: The editions, the English (source) one first.
EDITIONS: tuple[Edition, ...] = (
    Edition(language="en", folder="en", local="html", tag="en", name="English"),
    Edition(language="zh_TW", folder="zh-TW", local="html-zh_TW", tag="zh-TW", name="中文（台灣）"),
)
#: The key under which a reader's choice of edition is stored (``localStorage``).
STORAGE_KEY = "rnndoc-edition"


def edition(language: str | None) -> Edition | None:
    """The edition built with Sphinx's ``language`` (None: English), or None for another language.

    >>> edition("zh_TW").folder
    'zh-TW'
    >>> edition(None).folder
    'en'
    >>> edition("fr") is None
    True
    """
    return next((e for e in EDITIONS if e.language == (language or "en")), None)


def others(this: Edition) -> list[Edition]:
    """The other editions than ``this``, in the table's order."""
    return [e for e in EDITIONS if e != this]


def to_other_edition(page: str, other: Edition, *, published: bool) -> str:
    """The relative address, from ``page`` (a file's path in its edition), of the same page in ``other``.

    Both editions' folders are siblings: ``en/`` and ``zh-TW/`` in the published site,
    ``html/`` and ``html-zh_TW/`` in a local build.

    >>> to_other_edition("chapters/bptt.html", EDITIONS[1], published=True)
    '../../zh-TW/chapters/bptt.html'
    >>> to_other_edition("index.html", EDITIONS[0], published=True)
    '../en/index.html'
    >>> to_other_edition("index.html", EDITIONS[1], published=False)
    '../html-zh_TW/index.html'
    """
    up = "../" * (page.count("/") + 1)
    return f"{up}{other.folder if published else other.local}/{page}"


def edition_url(book_url: str, this: Edition) -> str:
    """The published address of an edition's folder (``book_url`` is the site's root).

    >>> edition_url("https://someone.github.io/rnndoc", EDITIONS[1])
    'https://someone.github.io/rnndoc/zh-TW/'
    """
    return f"{book_url.rstrip('/')}/{this.folder}/"


def alternates(page: str, this: Edition, *, book_url: str, published: bool) -> list[tuple[str, str]]:
    """The (hreflang, href) pairs of ``page``'s ``<link rel="alternate">`` tags, in every edition.

    Absolute with the book's address; relative to the page otherwise. ``x-default`` (the site's
    root page, which picks an edition) only where that root exists: in the published site.

    >>> alternates("notation.html", EDITIONS[0], book_url="https://x.org/b/", published=True)
    ... # doctest: +NORMALIZE_WHITESPACE
    [('en', 'https://x.org/b/en/notation.html'), ('zh-TW', 'https://x.org/b/zh-TW/notation.html'),
     ('x-default', 'https://x.org/b/')]
    >>> alternates("chapters/gru.html", EDITIONS[1], book_url="", published=True)
    ... # doctest: +NORMALIZE_WHITESPACE
    [('en', '../../en/chapters/gru.html'), ('zh-TW', 'gru.html'), ('x-default', '../../')]
    >>> alternates("index.html", EDITIONS[0], book_url="", published=False)
    [('en', 'index.html'), ('zh-TW', '../html-zh_TW/index.html')]
    """
    links = []
    for each in EDITIONS:
        if book_url:
            href = edition_url(book_url, each) + page
        elif each == this:
            href = posixpath.basename(page)
        else:
            href = to_other_edition(page, each, published=published)
        links.append((each.tag, href))
    if book_url:
        links.append(("x-default", book_url.rstrip("/") + "/"))
    elif published:
        links.append(("x-default", "../" * (page.count("/") + 1)))
    return links


# --- Sphinx ----------------------------------------------------------------------------------


def _published(config) -> bool:
    return bool(config.editions_book_url or config.editions_base_url)


def _edition_addresses(app, config) -> None:
    """Put this edition's folder into the addresses conf.py set for the whole site.

    Runs before docs/_ext/translated_edition.py writes the translated 404 page's text (which
    reads ``notfound_urls_prefix``); the English 404 text's front-page link is moved here.
    """
    this = edition(config.language)
    if this is None:
        return
    if config.editions_book_url:
        url = edition_url(config.editions_book_url, this)
        for name in ("html_baseurl", "ogp_site_url", "notebook_export_book_url", "reader_links_book_url"):
            if name in config:
                setattr(config, name, url)
    if config.editions_base_url:
        old = config.notfound_urls_prefix
        new = f"{config.editions_base_url.rstrip('/')}/{this.folder}/"
        config.notfound_urls_prefix = new
        context = dict(config.notfound_context)
        context["body"] = context.get("body", "").replace(f"'{old}index.html'", f"'{new}index.html'")
        config.notfound_context = context


def _static_files(app, config) -> None:
    """The switcher's script and style (docs/_static), as configuration: a page whose files
    change is written again."""
    config.html_css_files = [*config.html_css_files, "rnndoc-editions.css"]
    config.html_js_files = [*config.html_js_files, ("rnndoc-editions.js", {"defer": "defer"})]


def _switcher_and_alternates(app, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html" or not hasattr(app.builder, "get_target_uri"):
        return
    this = edition(app.config.language)
    if this is None:
        return
    published = _published(app.config)
    page = app.builder.get_target_uri(pagename)
    links = alternates(page, this, book_url=app.config.editions_book_url, published=published)
    tags = [f'<link rel="alternate" hreflang="{tag}" href="{html.escape(href)}" />' for tag, href in links]
    context["metatags"] = context.get("metatags", "") + "\n" + "\n".join(tags) + "\n"
    other = others(this)[0]
    if pagename == "404":
        # served at any missing address: the other edition's front page, by its absolute path
        if not app.config.editions_base_url:
            return
        url = f"{app.config.editions_base_url.rstrip('/')}/{other.folder}/index.html"
    else:
        url = to_other_edition(page, other, published=published)
    context["rnndoc_edition_switch"] = {
        "url": url,
        "tag": other.tag,
        "folder": other.folder,
        "name": other.name,
        "key": STORAGE_KEY,
    }


def setup(app):
    app.add_config_value("editions_book_url", "", "html", types=[str])
    app.add_config_value("editions_base_url", "", "html", types=[str])
    # before translated_edition's (400), which writes the 404 text from notfound_urls_prefix
    app.connect("config-inited", _edition_addresses, priority=350)
    app.connect("html-page-context", _switcher_and_alternates)
    app.connect("config-inited", _static_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
