"""Sphinx configuration of the rnndoc book (MyST-NB chapters, sphinx-book-theme)."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
from pathlib import Path

import mathjax  # the django-static-mathjax wheel: MathJax's files, nothing else
import nbformat
import sphinx.builders
from jupyter_cache import get_cache

import rnndoc

DOCS = Path(__file__).parent
ROOT = DOCS.parent
BUILD = DOCS / "_build"
sys.path.insert(0, str(DOCS / "_ext"))

import editions  # docs/_ext, on the path just above
import execution_keys
import latex_edition
import reader_links
import translated_edition

project = "rnndoc"
author = "The rnndoc authors"
copyright = "2026, the rnndoc authors"
release = version = rnndoc.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
    "sphinxcontrib.bibtex",
    "notfound.extension",
    "execution_keys",  # docs/_ext: a chapter re-executes when the rnndoc code it imports changes
    "latex_edition",  # docs/_ext: the PDF's chapters as in the HTML; wide equations scaled to fit
    "sphinx_exercise",  # exercises; solutions are gated so their code cells execute
    "sphinx_togglebutton",  # folds the solutions (":class: dropdown") in the HTML
    "notebook_export",  # docs/_ext: each chapter as a plain Jupyter notebook (_notebooks/) that runs anywhere
    "a11y_markup",  # docs/_ext: aria-level on the sidebar's captions, citations as list items
    "translated_glue",  # docs/_ext: glue roles work in translated text (myst-nb's renderer lent to it)
    "translated_edition",  # docs/_ext: the zh_TW edition's catalogs, page chrome and search
    "editions",  # docs/_ext: each edition's folder in the published site, the switcher, hreflang
]
bibtex_bibfiles = ["references.bib"]
import bibstyle  # noqa: F401 (docs/_ext, on the path above: registers the "rnndoc" pybtex style)

bibtex_default_style = "rnndoc"  # labels such as [Elman 1990], the same in the text and the list
bibtex_reference_style = "label"
exclude_patterns = ["_build", "jupyter_execute", ".jupyter_cache", "**.ipynb_checkpoints", "README.md"]

# --- translated editions (README, "Translations"): sphinx-build -D language=zh_TW -------------
# The prose of a translated edition comes from docs/locales/<language>/LC_MESSAGES, one catalog
# per page (chapters/order.po), made by `sphinx-build -b gettext` and `sphinx-intl update`. No
# uuids and no source line numbers in the catalogs: editing one paragraph changes its own entry
# only. A message without a translation (or a fuzzy one) shows the English text.
locale_dirs = ["locales"]
gettext_compact = False
gettext_uuid = False
gettext_location = False

# --- strictness: every warning fails the build (sphinx-build -n -W) -------------------
nitpicky = True
# Intersphinx inventories cannot be fetched here, so third-party types in signatures and
# docstrings cannot resolve; the chapters link to their documentation in plain links.
nitpick_ignore_regex = [
    ("py:class", r"(torch|sympy|argparse)\..*"),
    ("py:class", r"(Tensor|Expr|Matrix|Float)"),
    ("py:class", r"collections\.abc\..*"),
    ("py:class", r"(Numbers|Vector|Matrix)"),  # rnndoc's own type aliases
]

# --- notebooks: executed at build time, failures fatal, tracebacks in the log ---------
nb_execution_mode = "cache"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 120
nb_merge_streams = True
nb_render_markdown_format = "myst"  # tables and math in Markdown outputs
# sympy's text/latex output is typeset by MathJax; rank it above the PNG fallback.
nb_mime_priority_overrides = [("html", "text/latex", 5)]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- figures sharp on high-density screens --------------------------------------------------
# The kernels that execute the chapters draw matplotlib's inline figures as PNG at twice the
# pixels ("retina"), and IPython gives each its display width and height (half the pixels),
# which myst-nb writes on the <img>: the same size on the page, twice the detail. PNG rather
# than SVG: the PDF edition takes the same image files (LaTeX does not include SVG), and PNG
# bytes do not depend on the run (SVG's element ids and date do). Only the figure files change:
# the cells compute the same values. The setting is IPython kernel configuration, in a profile
# folder the build writes and points the kernels at (IPYTHONDIR, which they inherit); it is
# part of the execution cache's key (_versions_key), so a change executes every chapter again.
KERNEL_CONFIG = """\
c.InlineBackend.figure_formats = {"retina"}
c.HistoryManager.enabled = False
"""
_IPYTHON_DIR = BUILD / "ipython"
(_IPYTHON_DIR / "profile_default").mkdir(parents=True, exist_ok=True)
_kernel_config = _IPYTHON_DIR / "profile_default" / "ipython_kernel_config.py"
if not _kernel_config.is_file() or _kernel_config.read_text("utf-8") != KERNEL_CONFIG:
    _kernel_config.write_text(KERNEL_CONFIG, "utf-8")
os.environ["IPYTHONDIR"] = str(_IPYTHON_DIR)


def _versions_key() -> str:
    """A hash of what every chapter's outputs depend on besides its own cells and code.

    The cache folder is keyed on the library versions (what the chapters compute with and
    what the status page reports), rnndoc's version and Python's: a change to any of them
    re-executes every chapter (a changed config value also makes Sphinx re-read every page).
    The package's source is keyed per chapter instead, on the modules the chapter imports
    (the execution_keys extension in docs/_ext).
    """
    digest = hashlib.sha256()
    for dist in (
        "rnndoc", "torch", "sympy", "numpy", "matplotlib", "myst-nb", "myst-parser", "sphinx", "docutils",
        "sphinx-book-theme", "pydata-sphinx-theme", "jupyter-cache", "nbclient", "ipykernel",
        "sphinxcontrib-bibtex", "numpydoc", "django-static-mathjax",
    ):  # fmt: skip
        digest.update(f"{dist}=={importlib.metadata.version(dist)}".encode())
    digest.update(sys.version.encode())
    digest.update(KERNEL_CONFIG.encode())  # how the kernels draw figures (above)
    return digest.hexdigest()[:16]


execution_keys_package = str(Path(rnndoc.__file__).parent)
_CACHES = BUILD / ".jupyter_cache"
nb_execution_cache_path = str(_CACHES / _versions_key())
if _CACHES.is_dir():  # drop caches of earlier library versions
    for stale in _CACHES.iterdir():
        if stale.name != Path(nb_execution_cache_path).name:
            shutil.rmtree(stale, ignore_errors=True)

# Parallel reading (sphinx-build -j): Sphinx splits the pages into one equal-count batch per
# process, so one process may draw most of the slow chapters (76.9 s against 54.7 s of
# execution here). Reading one page per batch lets whichever process is free take the next
# page. Writing keeps Sphinx's batches (one page per batch writes slower: 18 s against 10 s).
_read_parallel = sphinx.builders.Builder._read_parallel


def _read_one_page_per_batch(builder, docnames, nproc):
    make_chunks = sphinx.builders.make_chunks
    sphinx.builders.make_chunks = lambda arguments, nproc, maxbatch=10: [[a] for a in arguments]
    try:
        return _read_parallel(builder, docnames, nproc)
    finally:
        sphinx.builders.make_chunks = make_chunks


sphinx.builders.Builder._read_parallel = _read_one_page_per_batch

# Number equations and figures per chapter: (1.2) is chapter 1's second equation.
numfig = True
math_numfig = True
numfig_secnum_depth = 1
math_eqref_format = "({number})"

# --- API reference ------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections give types with shapes
autodoc_default_options = {"members": True, "show-inheritance": False}
numpydoc_show_class_members = False  # autodoc lists the members; avoid duplicates
numpydoc_xref_param_type = False  # types carry shapes ("Tensor, shape (N, H)"): plain text
numpydoc_attributes_as_param_list = True
doctest_test_doctest_blocks = "default"


def _dataclass_factories(app, what, name, obj, options, signature, return_annotation):
    """Show a dataclass field's default factory as a call (``steps=list()``), not ``<factory>``."""
    if what != "class" or not signature or not dataclasses.is_dataclass(obj):
        return None
    for field in dataclasses.fields(obj):
        if field.default_factory is not dataclasses.MISSING:
            factory = getattr(field.default_factory, "__name__", "factory")
            signature = signature.replace(f"{field.name}=<factory>", f"{field.name}={factory}()")
    return signature, return_annotation


# numpydoc loads autosummary, which by default imports every documented module (torch
# included: 1.8 s) at each start to look for autosummary directives. The book has none.
autosummary_generate = False

# --- offline math: MathJax from PyPI, copied into the build ---------------------------
# The default MathJax comes from a CDN, so no equation renders offline. The
# django-static-mathjax wheel (no dependencies) carries MathJax 3's files; the TeX-to-CHTML
# component is copied into _static/mathjax with the components its menu loads on demand:
# fonts and the SVG output (output/), the accessibility extensions (a11y/: assistive MathML,
# the explorer, speech) with the speech rule engine's rules (sre/mathmaps), MathML input
# (input/, which the explorer needs) and the menu's parts (ui/). Without them a reader's
# screen reader gets no speech and the explorer fails offline (issue 18).
mathjax_path = "mathjax/tex-chtml.js"
_MATHJAX_FILES = ["es5/tex-chtml.js", "es5/output", "es5/input", "es5/a11y", "es5/sre", "es5/ui"]


def _copy_mathjax(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    source = Path(mathjax.__file__).parent / "static" / "mathjax"
    target = Path(app.outdir) / "_static" / "mathjax"
    for relative in _MATHJAX_FILES:
        src = source / relative
        dst = target / Path(relative).relative_to("es5")
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    shutil.copy2(source / "LICENSE", target / "LICENSE")


# --- downloads: the executed notebook, with its outputs ---------------------------------
# myst-nb saves the notebook it parsed into jupyter_execute/ (jupyter_execute-<language>/ for a
# translated edition), which has no outputs when they
# came from the execution cache; the {nb-download} links would then offer an empty
# notebook. Merge the cached outputs in before the downloads are copied. Sphinx records each
# of these notebooks as a dependency of its page: a notebook is rewritten only when its
# content changes, and keeps the time myst-nb wrote it (before the page's read finished), so
# an unchanged book re-reads no page.
def _merge_cached_outputs(app, env):
    cache = get_cache(nb_execution_cache_path)
    for path in sorted(translated_edition.output_folder(app).rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        try:
            _, merged = cache.merge_match_into_notebook(notebook)
        except KeyError:  # not in the cache (or merged already): nothing to merge
            continue
        for index, cell in enumerate(merged.cells):  # reading Markdown draws random cell ids
            cell.id = f"cell-{index}"
        execution_keys.strip_key(merged)
        content = nbformat.writes(merged).encode("utf-8")
        if path.read_bytes() != content:
            written = path.stat()
            path.write_bytes(content)
            os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns))


# --- the 404 page, at any path ---------------------------------------------------------
# It is served at whatever URL was missing: at any depth, and under whatever path the site is
# published. sphinx-notfound-page renders it with absolute links; here its stylesheets and
# scripts are taken out of the markup (so the browser cannot fetch them from a wrong place
# ahead of time) and written back by a small script once it has found the site's root: the
# shallowest folder of the URL that holds _static/favicon.png (or, in the published site, whose
# edition folder does: the site's root 404 page is the English edition's, docs/_ext/editions.py).
# Links are then re-rooted.
_ROOT_FINDER = """<script>
(function () {
  var folders = location.pathname.split("/").slice(0, -1);
  var editions = %EDITIONS%;
  window.rnndocRoot = "/";
  found: for (var i = 1; i <= folders.length; i++) {
    for (var j = 0; j < editions.length; j++) {
      var root = folders.slice(0, i).join("/") + "/" + editions[j];
      var probe = new XMLHttpRequest();
      probe.open("HEAD", root + "_static/favicon.png", false);
      try { probe.send(); } catch (error) { continue; }
      if (probe.status === 200) { window.rnndocRoot = root; break found; }
    }
  }
  window.rnndocWrite = function (html) { document.write(html.split("%ROOT%").join(window.rnndocRoot)); };
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("a[href^='%PREFIX%']").forEach(function (a) {
      a.setAttribute("href", window.rnndocRoot + a.getAttribute("href").slice(%N%));
    });
  });
})();
rnndocWrite(%HEAD%);
</script>"""
_RESOURCE = re.compile(
    r"<(?:link[^>]*\b(?:rel=\"(?:stylesheet|preload|icon)\")[^>]*/?>|script[^>]*\bsrc=\"[^\"]*\"[^>]*></script>)"
)


# The head's inline scripts move with its script files, in their order: some files read
# variables an inline script defines (sphinx-togglebutton's togglebutton.js reads
# toggleOpenOnPrint).
_HEAD_SCRIPTS = re.compile(f"{_RESOURCE.pattern}|<script>[^<]*</script>")


def _js_string(html: str) -> str:
    return json.dumps(html).replace("</", "<\\/")


def _relocatable_404(app, exception):
    page = Path(app.outdir) / "404.html"
    if exception is not None or app.builder.format != "html" or not page.is_file():
        return
    html = page.read_text("utf-8")
    prefix = app.config.notfound_urls_prefix  # with the edition's folder (docs/_ext/editions.py)
    this = editions.edition(app.config.language)
    folders = ["", f"{this.folder}/"] if this and app.config.editions_base_url else [""]
    head_end, body_end = html.index("</head>"), html.rindex("</body>")
    head_tags = _HEAD_SCRIPTS.findall(html[:head_end])
    body_tags = _RESOURCE.findall(html[head_end:body_end])
    for tag in head_tags + body_tags:
        html = html.replace(tag, "", 1)

    def rooted(tags):
        return "\n".join(re.sub(r'\b(href|src)="' + re.escape(prefix), r'\1="%ROOT%', t) for t in tags)

    finder = (_ROOT_FINDER.replace("%PREFIX%", prefix).replace("%N%", str(len(prefix)))
              .replace("%EDITIONS%", json.dumps(folders))
              .replace("%HEAD%", _js_string(rooted(head_tags))))  # fmt: skip
    html = html.replace("<head>", "<head>\n" + finder, 1)
    body_end = html.rindex("</body>")
    html = (
        html[:body_end]
        + f"<script>rnndocWrite({_js_string(rooted(body_tags))});</script>\n"
        + html[body_end:]
    )
    page.write_text(html, "utf-8")


# --- the PDF edition, offered on every page ----------------------------------------------
# `nox -s pdf` writes the whole book to rnndoc.pdf beside the HTML pages, and the Pages workflow
# publishes both. Every page's download menu offers it after the theme's own entries (the
# page's .ipynb and .md, and printing the page); pages without that menu (search, general
# index) get a button of their own. The link is offered only where the PDF is there: a plain
# `nox -s docs` has none, and `nox -s pdf` writes the pages again (reading none) once the
# PDF is in place.
PDF_EDITION = "rnndoc.pdf"


def _pdf_edition_button(app, pagename, templatename, context, doctree):
    buttons = context.get("header_buttons")
    if buttons is None or not (Path(app.outdir) / PDF_EDITION).is_file():  # not the book theme; no PDF
        return
    link = {
        "type": "link",
        "url": context["pathto"](PDF_EDITION, 1),
        "text": "book .pdf",
        "tooltip": "Download the whole book as one PDF",
        "icon": "fas fa-book",
        "label": "download-book-pdf-button",
    }
    # no download menu (search, general index): an icon of its own, first
    reader_links.add_menu_entry(buttons, "download-buttons", link,
                                alone={**link, "text": "", "classes": "pst-navbar-icon"}, at=0)  # fmt: skip


# --- pages that show other pages: rewritten when what they show changed -------------------
# Every page shows the whole book's navigation (the sidebar's titles, chapter numbers,
# previous and next), and the References page lists the cited entries of every page. Sphinx
# rewrites only the pages it re-read, so after adding, removing or reordering a chapter, or
# retitling one, or citing a new entry, the other pages kept the old sidebar, numbers or
# bibliography. `env-get-updated` (emitted after reading) names pages to write again without
# reading them (nothing is executed): all of them, whenever this summary of the book-wide
# state differs from the one this builder last wrote with. The summaries are kept per builder
# (the doctest and HTML builders share one environment), so a build where nothing changed
# rewrites nothing.
def _book_wide_key(env) -> str:
    citations = getattr(env.get_domain("cite"), "citations", [])
    state = {
        "docs": sorted(env.found_docs),
        "toctrees": sorted(env.toctree_includes.items()),
        "titles": sorted((doc, title.astext()) for doc, title in env.titles.items()),
        "secnumbers": sorted((doc, sorted(n.items())) for doc, n in env.toc_secnumbers.items()),
        "citations": sorted((c.key, c.citation_id, c.formatted_entry.label) for c in citations),
        "bib": [hashlib.sha256((DOCS / bib).read_bytes()).hexdigest() for bib in bibtex_bibfiles],
    }
    return hashlib.sha256(json.dumps(state, default=str).encode()).hexdigest()


def _rewrite_all_if_book_changed(app, env):
    keys = env.__dict__.setdefault("rnndoc_book_wide_keys", {})
    key = _book_wide_key(env)
    if keys.get(app.builder.name) == key:
        return []
    keys[app.builder.name] = key
    return sorted(env.found_docs)


# --- pages another builder re-read: written again by this one ------------------------------
# The doctest builder runs first and re-reads (executes) every page whose source or rnndoc
# module changed; the HTML builder, sharing the environment, then finds nothing to read, and
# Sphinx writes only the pages a builder read itself or whose source file is newer than its
# output. A page re-read because a docstring or an imported module changed would keep its old
# HTML. So each read is logged with a serial number, and each builder writes again every page
# read since it last wrote (read, not executed: the doctrees are already there).
def _log_reads(app, env, docnames):
    env.rnndoc_read_serial = env.__dict__.get("rnndoc_read_serial", 0) + 1
    reads = env.__dict__.setdefault("rnndoc_reads", {})
    reads.update(dict.fromkeys(docnames, env.rnndoc_read_serial))


def _write_pages_others_read(app, env):
    seen = env.__dict__.setdefault("rnndoc_written_serial", {})
    last = seen.get(app.builder.name, 0)
    reads = env.__dict__.get("rnndoc_reads", {})
    seen[app.builder.name] = env.__dict__.get("rnndoc_read_serial", 0)
    return sorted(doc for doc, serial in reads.items() if serial > last and doc in env.found_docs)


# --- exercises in the PDF ----------------------------------------------------------------
# sphinx-exercise labels an exercise "exercise:<label>" in LaTeX, while a solution's title links
# to "<docname>:<label>", as Sphinx's LaTeX writer names targets; without that second label the
# PDF has undefined references. Add it at the top of each exercise.
def _latex_exercise_labels(app, doctree, docname):
    if app.builder.format != "latex":
        return
    from docutils import nodes  # noqa: PLC0415 (only the LaTeX build needs these)
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node  # noqa: PLC0415

    registry = app.env.sphinx_exercise_registry
    for node in doctree.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node))):
        target = f"{registry[node['label']]['docname']}:{node['label']}"
        label = rf"\phantomsection\label{{\detokenize{{{target}}}}}"
        node.insert(0, nodes.raw("", label, format="latex"))


def setup(app):
    app.connect("doctree-resolved", _latex_exercise_labels)
    app.connect("env-get-updated", _rewrite_all_if_book_changed)
    app.connect("env-before-read-docs", _log_reads)
    app.connect("env-get-updated", _write_pages_others_read)
    app.connect("autodoc-process-signature", _dataclass_factories)
    app.connect("html-page-context", _pdf_edition_button, priority=502)  # after the theme's (501)
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _relocatable_404)
    app.connect("env-updated", _merge_cached_outputs)


# --- HTML -------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
# docs/_static: wide tables stacked and scrolling equations marked on narrow screens
html_static_path = ["_static"]
html_css_files = ["rnndoc.css"]
html_js_files = ["rnndoc.js"]
html_title = "rnndoc: recurrent networks, derived and proven"


# The favicon is drawn here (no hand-made image files): an h_t box as in the figures. It is
# drawn again only when this code or matplotlib's version changed (drawing it costs 0.7 s,
# a third of a rebuild with nothing to do).
def _draw_favicon(path: Path) -> Path:
    import inspect  # noqa: PLC0415

    key = path.with_suffix(".key")
    stamp = f"{importlib.metadata.version('matplotlib')}\n{inspect.getsource(_draw_favicon)}"
    if path.is_file() and key.is_file() and key.read_text("utf-8") == stamp:
        return path
    import matplotlib.figure  # noqa: PLC0415 (only the HTML build needs it)

    fig = matplotlib.figure.Figure(figsize=(0.5, 0.5), dpi=64)
    fig.patch.set_alpha(0)
    fig.text(0.5, 0.45, "$h_t$", ha="center", va="center", fontsize=17, color="#9a3412")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})  # no version string: reproducible bytes
    key.write_text(stamp, "utf-8")
    return path


html_favicon = str(_draw_favicon(BUILD / "generated" / "favicon.png"))

# One setting drives the repository, source and issue buttons: set RNNDOC_REPOSITORY_URL
# (for example https://github.com/OWNER/rnndoc) when building for publication. Unset,
# the buttons are hidden rather than pointing nowhere.
repository_url = os.environ.get("RNNDOC_REPOSITORY_URL", "").rstrip("/")
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": True,
    "repository_url": repository_url,
    "repository_branch": "main",
    "path_to_docs": "docs",
    "use_repository_button": bool(repository_url),
    "use_issues_button": bool(repository_url),
    "use_source_button": bool(repository_url),
    "extra_footer": (
        "<p>Code: MIT license. Text and figures: "
        '<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>. '
        "See LICENSE and LICENSE-text in the repository.</p>"
    ),
}
# The plain notebooks (docs/_ext/notebook_export.py): their links point into the published
# book at RNNDOC_BOOK_URL (e.g. https://owner.github.io/rnndoc/; unset, relative to the
# notebook's place in the built site), and their install cell takes rnndoc from the
# repository at the commit the book was built from. Neither value changes a page: no re-read.
notebook_export_book_url = os.environ.get("RNNDOC_BOOK_URL", "")
notebook_export_repository = repository_url
html_last_updated_fmt = None
html_context = {"default_mode": "auto"}  # without it the theme logs a console error on first visit

# --- what readers of an online book expect (docs/_ext/reader_links.py and three extensions) ----
# - Launch buttons (Colab, Binder) on every chapter, pointing at its plain notebook on the
#   repository's `notebooks` branch, which the Pages workflow replaces with the build's
#   _notebooks/ folder (with the requirements.txt and runtime.txt Binder reads); "Report a
#   problem with this chapter" (a pre-filled GitHub issue) in the repository menu; the front
#   page's <title> said once. All need RNNDOC_REPOSITORY_URL, and are left out without it.
# - The version in the sidebar (_templates/rnndoc-version.html).
# - Each page's "last updated" date: the date of the last commit that changed its source or a
#   file it depends on (the rnndoc modules a chapter imports), from git (sphinx-last-updated-by-git;
#   CI's checkout needs the whole history: fetch-depth 0). An uncommitted new page keeps its
#   source link and shows no date.
# - Preview metadata for shared links (sphinxext-opengraph: og:title, og:description, og:url)
#   and a sitemap (sphinx-sitemap), both at the published address RNNDOC_BOOK_URL. Without it
#   the preview's addresses are relative and no sitemap is written (the extension is not
#   loaded: it would warn).
book_url = notebook_export_book_url.rstrip("/") + "/" if notebook_export_book_url else ""
extensions += ["reader_links", "sphinx_last_updated_by_git", "sphinxext.opengraph"]
reader_links_repository = repository_url
reader_links_book_url = book_url
html_theme_options["use_issues_button"] = False  # reader_links' report link, with the page named
templates_path = ["_templates"]
html_sidebars = {
    "**": ["navbar-logo.html", "rnndoc-version.html", "icon-links.html", "search-button-field.html",
           "sbt-sidebar-nav.html"],
}  # fmt: skip
html_last_updated_fmt = "%Y-%m-%d"  # replaces None above: the date is git's, never the build's
git_untracked_show_sourcelink = True
git_last_updated_timezone = "UTC"  # the same date wherever the book is built
html_baseurl = book_url
ogp_site_url = book_url
ogp_social_cards = {"enable": False}  # no drawn card per page (matplotlib, fonts): the text is the preview
ogp_enable_meta_description = True
if book_url:
    extensions.append("sphinx_sitemap")
    sitemap_url_scheme = "{link}"  # html_baseurl holds the edition's folder (below): nothing to add
    sitemap_show_lastmod = True
    # no alternates guessed from locale_dirs (they would name the same address for zh_TW): the
    # pages' heads carry the hreflang alternates (docs/_ext/editions.py)
    sitemap_locales = [None]

# --- the editions side by side (docs/_ext/editions.py, docs/_ext/site_assembly.py) ------------
# The published site holds each edition in its folder (en/, zh-TW/) under the site's address
# RNNDOC_BOOK_URL and path RNNDOC_BASE_URL: the extension adds the folder to html_baseurl,
# ogp_site_url, the notebooks' and the problem report's book address and the 404 page's prefix
# (below) at config-inited, once `-D language` is known. Unset, nothing changes.
editions_book_url = book_url
editions_base_url = os.environ.get("RNNDOC_BASE_URL", "")
# the switcher to the same page in the other edition, before the theme's header buttons
html_theme_options["article_header_end"] = ["rnndoc-edition.html", "article-header-buttons.html"]

# sphinx-notfound-page renders the 404 page with absolute links under this prefix; with it
# set to the published path (RNNDOC_BASE_URL, "/rnndoc/" for a GitHub project page, to which
# docs/_ext/editions.py adds the edition's folder: /rnndoc/en/) no probe is needed there, and
# _relocatable_404 (above) makes the page work under any other path.
notfound_urls_prefix = os.environ.get("RNNDOC_BASE_URL", "/")
notfound_context = {
    "title": "Page not found",
    "body": "<h1>Page not found</h1><p>This page does not exist (any more). Try the "
    f"<a href='{notfound_urls_prefix}index.html'>front page</a>, the search, or the contents "
    "on the left.</p>",
}  # without it the theme logs a console error on first visit


# --- PDF edition (nox -s pdf): Sphinx's LaTeX builder and XeLaTeX, from Debian's TeX Live ------
# XeLaTeX reads the text's Unicode (δ, ⊙, −, —) directly. The fonts are Debian's
# fonts-freefont-otf (Sphinx's defaults for XeLaTeX), whose serif face carries Greek and the
# mathematical operators. Code outputs, glued values and sympy's LaTeX come out as text and
# math; figures as the PNG the notebooks made (myst-nb's LaTeX priority: PDF, PNG, JPEG).
latex_engine = "xelatex"
latex_documents = [("index", "rnndoc.tex", html_title, author, "manual")]
latex_show_urls = "footnote"
latex_show_pagerefs = True
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "figure_align": "htbp",
    # a book read on screen: no blank pages before chapters, the same margins on every page
    "extraclassoptions": "openany,oneside",
    # LaTeX's own chapter heading: fncychap's (Sphinx's default) sets titles in capitals,
    # which turns "the δ recursion" into "THE Δ RECURSION", another symbol.
    "fncychap": "",
    # Long equations and wide code outputs: let LaTeX break display math across pages, and
    # wrap verbatim lines instead of running into the margin.
    "preamble": r"""
\allowdisplaybreaks
\sphinxsetup{verbatimwrapslines=true, verbatimforcewraps=true, verbatimmaxoverfull=1}
% tables (the notation's, the chapters' Markdown outputs) in a smaller size: their math and
% code cannot wrap, and at the text's size some run past the margin
\let\rnndocattablestart\sphinxattablestart
\renewcommand{\sphinxattablestart}{\rnndocattablestart\small}
% inline code (weight_ih_l0, ...) may break after an underscore, as Sphinx lets it after . , ; /
\makeatletter
\g@addto@macro\sphinxbreaksviaactive{\sphinxbreaksattexescapedchars}
\makeatother
"""
    + latex_edition.PREAMBLE,
}
