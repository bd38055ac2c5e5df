"""What a reader of an online book expects around the text: launch buttons, a problem report,
the version, a title that is not said twice.

- **Launch buttons** (Colab, Binder) on every chapter, pointing at the chapter's *plain*
  notebook (docs/_ext/notebook_export.py) on the repository's ``notebooks`` branch, which the
  Pages workflow (.github/workflows/book.yml) replaces with each published build's
  ``_notebooks/`` folder, as d2l publishes its Colab notebooks. sphinx-book-theme's own
  ``launch_buttons`` do not fit: they take the branch and folder from ``repository_branch``
  and ``path_to_docs``, which the source and edit buttons need for the MyST sources on
  ``main``, and would open ``docs/chapters/<page>.ipynb``, which does not exist (the chapters
  are MyST Markdown). The buttons use the theme's group format and its Colab and Binder logos.
- **The notebooks branch's files**, written beside the notebooks: ``requirements.txt`` (what
  Binder installs: rnndoc from the repository at the commit the book was built from, and
  torch, sympy and matplotlib at the versions the book was executed with), ``runtime.txt``
  (Binder's Python) and a ``README.md``.
- **"Report a problem with this chapter"** in the repository menu: a new GitHub issue with the
  chapter's number and title in its title, and the page's address and the book's version in
  its body (it replaces the theme's generic "Open issue").
- The **front page's** ``<title>`` is the book's title once (Sphinx writes "page title — book
  title", which there is the same text twice): ``docs/_templates/layout.html`` reads the flag
  set here.

Everything that names the repository is left out of a build without one
(``RNNDOC_REPOSITORY_URL`` unset): a local build shows no button that points nowhere, and
reaches no network.
"""

from __future__ import annotations

import html as htmllib
import importlib.metadata
import posixpath
import re
import sys
from pathlib import Path
from urllib.parse import quote, urlencode

COLAB = "https://colab.research.google.com"
BINDER = "https://mybinder.org"
#: The distributions whose versions the notebooks branch's requirements pin (what the book ran).
PINNED = ("torch", "sympy", "matplotlib")


def github_parts(repository_url: str) -> tuple[str, str] | None:
    """The (owner, name) of a GitHub repository URL, or None for any other URL.

    >>> github_parts("https://github.com/someone/rnndoc")
    ('someone', 'rnndoc')
    >>> github_parts("https://gitlab.com/someone/rnndoc") is None
    True
    """
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repository_url)
    return (match[1], match[2]) if match else None


def launch_urls(repository_url: str, branch: str, notebook: str) -> dict[str, str]:
    """The Colab and Binder addresses of ``notebook`` (a path on ``branch``); none off GitHub.

    >>> urls = launch_urls("https://github.com/someone/rnndoc", "notebooks", "bptt.ipynb")
    >>> urls["Colab"]
    'https://colab.research.google.com/github/someone/rnndoc/blob/notebooks/bptt.ipynb'
    >>> urls["Binder"]
    'https://mybinder.org/v2/gh/someone/rnndoc/notebooks?urlpath=lab/tree/bptt.ipynb'
    >>> launch_urls("", "notebooks", "bptt.ipynb")
    {}
    """
    parts = github_parts(repository_url)
    if parts is None:
        return {}
    owner, name = parts
    path = quote(notebook)
    return {
        "Colab": f"{COLAB}/github/{owner}/{name}/blob/{quote(branch)}/{path}",
        "Binder": f"{BINDER}/v2/gh/{owner}/{name}/{quote(branch)}?urlpath=lab/tree/{path}",
    }


def issue_url(repository_url: str, title: str, body: str) -> str:
    """A link that opens GitHub's new-issue form with ``title`` and ``body`` filled in.

    >>> issue_url("https://github.com/someone/rnndoc", "Chapter 2: a typo", "Page: bptt.html")
    'https://github.com/someone/rnndoc/issues/new?title=Chapter%202%3A%20a%20typo&body=Page%3A%20bptt.html'
    """
    return f"{repository_url}/issues/new?" + urlencode({"title": title, "body": body}, quote_via=quote)


def _plain(html: str) -> str:
    """Text without tags or entities (a page title may hold markup)."""
    return " ".join(htmllib.unescape(re.sub(r"<[^>]*>", "", html)).split())


def _chapter_number(app, pagename: str) -> str | None:
    number = app.env.toc_secnumbers.get(pagename, {}).get("")
    return ".".join(map(str, number)) if number else None


def add_menu_entry(buttons: list[dict], menu: str, entry: dict, alone: dict | None = None,
                   at: int | None = None) -> None:  # fmt: skip
    """Add ``entry`` to the theme's header menu labelled ``menu`` (its last entry).

    A page without that menu gets ``alone`` (default: ``entry`` itself) as a button of its
    own, at index ``at`` of the header's buttons (default: after the others).
    """
    for button in buttons:
        if button.get("label") == menu:
            button["buttons"].append(entry)
            return
    buttons.insert(len(buttons) if at is None else at, entry if alone is None else alone)


def _page_links(app, pagename, templatename, context, doctree) -> None:
    buttons = context.get("header_buttons")
    config = app.config
    if pagename == config.root_doc and _plain(context.get("title", "")) == _plain(
        context.get("docstitle", "")
    ):
        context["rnndoc_title_once"] = True  # the front page: the book's title once (_templates/layout.html)
    if buttons is None or not config.reader_links_repository:
        return
    repository = config.reader_links_repository.rstrip("/")
    if pagename.startswith("chapters/"):
        notebook = f"{posixpath.basename(pagename)}.ipynb"
        urls = launch_urls(repository, config.reader_links_notebooks_branch, notebook)
        icons = {"Colab": "_static/images/logo_colab.png", "Binder": "_static/images/logo_binder.svg"}
        if urls:
            buttons.append({
                "type": "group",
                "tooltip": "Run this chapter's notebook online",
                "icon": "fas fa-rocket",
                "label": "launch-buttons",
                "buttons": [
                    {"type": "link", "text": name, "tooltip": f"Open this chapter's notebook in {name}",
                     "icon": icons[name], "url": url, "label": f"launch-{name.lower()}-button"}
                    for name, url in urls.items()
                ],
            })  # fmt: skip
    if doctree is None or github_parts(repository) is None:
        return
    title = _plain(context.get("title", pagename))
    number = _chapter_number(app, pagename)
    if number:  # the title carries the chapter's number ("2. Backpropagation ..."): once is enough
        title = title.removeprefix(f"{number}. ")
    where = f"Chapter {number} “{title}”" if number else title
    book = config.reader_links_book_url
    page = f"{book.rstrip('/')}/{pagename}.html" if book else f"{pagename}.html"
    body = (
        f"Page: {page}\nBook: rnndoc {config.release}\n\n"
        "What is wrong, and where (section, equation, figure or cell)?\n\n"
        "What did you expect instead?\n"
    )
    what = "chapter" if number else "page"
    report = {
        "type": "link",
        "url": issue_url(repository, f"{where}: ", body),
        "text": f"Report a problem with this {what}",
        "tooltip": f"Open a GitHub issue about this {what} (title and address filled in)",
        "icon": "fas fa-bug",
        "label": "report-problem-button",
    }
    add_menu_entry(buttons, "source-buttons", report)


# --- the notebooks branch: what Binder reads beside the notebooks --------------------------------


def _version(dist: str) -> str:
    return importlib.metadata.version(dist).split("+")[0]  # torch's "+cpu": a build, not a version


def requirements_txt(rnndoc: str, torch_index: str | None) -> str:
    """Binder's requirements: ``rnndoc`` (a pip requirement) and what the book ran with."""
    lines = ["# What the book's notebooks need, as the book was built (Binder installs these)."]
    if torch_index:
        lines.append(f"--extra-index-url {torch_index}")
    lines.append(rnndoc)
    lines += [f"{dist}=={_version(dist)}" for dist in PINNED]
    return "\n".join(lines) + "\n"


def _torch_index(pip_arguments: str) -> str | None:
    """The index in ``RNNDOC_TORCH``'s pip arguments (the CPU wheels), if it names one."""
    match = re.search(r"--(?:extra-)?index-url[ =](\S+)", pip_arguments)
    return match[1] if match else None


def _write_branch_files(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import os  # noqa: PLC0415

    import notebook_export  # noqa: PLC0415 (docs/_ext, loaded before this one)

    folder = Path(app.outdir) / notebook_export.FOLDER
    if not folder.is_dir():
        return
    root = Path(app.confdir).parent
    rnndoc = notebook_export._requirements(app, root)["rnndoc"]
    book = app.config.reader_links_book_url or "the book"
    files = {
        "requirements.txt": requirements_txt(rnndoc, _torch_index(os.environ.get("RNNDOC_TORCH", ""))),
        "runtime.txt": f"python-{sys.version_info.major}.{sys.version_info.minor}\n",
        "README.md": (
            "# rnndoc's notebooks\n\n"
            f"The chapters of {book} as plain Jupyter notebooks, generated by each build of the book "
            "(this branch is replaced each time: do not edit it). Open one in Jupyter, Colab or "
            "Binder; its first cell installs what is missing. `requirements.txt` is what Binder "
            f"installs (rnndoc {app.config.release} and the versions the book was executed with).\n"
        ),
    }
    for name, content in files.items():
        path = folder / name
        if not path.is_file() or path.read_text("utf-8") != content:
            path.write_text(content, "utf-8")


def setup(app):
    app.add_config_value("reader_links_repository", "", "html", types=[str])
    app.add_config_value("reader_links_notebooks_branch", "notebooks", "html", types=[str])
    app.add_config_value("reader_links_book_url", "", "html", types=[str])
    app.connect("html-page-context", _page_links, priority=503)  # after the theme's and the PDF's
    app.connect("build-finished", _write_branch_files, priority=600)  # after notebook_export's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
