#!/usr/bin/env python3
"""Sessions for building the book and testing the package.

Run ``nox -s tests`` or ``nox -s docs`` (see the README). Every session that imports the
package installs the pinned torch first. ``RNNDOC_TORCH`` overrides the requirement and may
carry pip options, for example
``RNNDOC_TORCH="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"`` on a
machine where PyPI would serve a multi-GB CUDA build. The ``venv`` backend is used on
purpose: uv ignores a local CPU torch wheel and would download the CUDA build.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).parent / "docs" / "_ext"))
import editions  # docs/_ext/editions.py: the editions' folders (it imports nothing from Sphinx)

nox.needs_version = ">=2024.10.9"
nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"  # rebuilds reuse .nox/<session>; pip only checks what is there

ROOT = Path(__file__).parent
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
#: The torch the book's numbers were checked with; override with RNNDOC_TORCH (pip arguments).
TORCH = shlex.split(os.environ.get("RNNDOC_TORCH", "torch==2.13.0"))


def _install(session: nox.Session, *groups: str) -> None:
    """Install the pinned torch and the dependencies, then the package (editable).

    pip checks every requirement on each run (a second or two when all are there). The
    editable package itself is reinstalled only when ``pyproject.toml`` or the version file
    changed: pip rebuilds an editable install each time it is asked, in an isolated build
    environment (10-15 s), although the installed package reads the source in place.
    """
    requirements = [*PYPROJECT["project"]["dependencies"]]
    requirements += [req for group in groups for req in nox.project.dependency_groups(PYPROJECT, group)]
    if any(arg.startswith("-") for arg in TORCH):  # pip options (an index) apply to torch alone
        session.install(*TORCH)
        session.install(*requirements)
    else:
        session.install(*TORCH, *requirements)
    stamp = Path(session.virtualenv.location) / "rnndoc-editable.key"
    version_file = ROOT / PYPROJECT["tool"]["hatch"]["version"]["path"]
    key = _digest([ROOT / "pyproject.toml", version_file], extra=[str(ROOT)])
    if not stamp.is_file() or stamp.read_text("utf-8") != key:
        session.install("--no-deps", "-e", ".")
        # run_install: written only when nox really installs (never under -R / --no-install)
        session.run_install("python", "-c", "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])",
                            str(stamp), key)  # fmt: skip


def _digest(paths: list[Path], extra: list[str] = ()) -> str:
    """A short hash of the files' names and bytes, and of the extra strings."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for item in extra:
        digest.update(item.encode() + b"\0")
    return digest.hexdigest()[:16]


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff (no changes are made)."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", *session.posargs)
    session.run("ruff", "format", "--check", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit tests, the property-based tests and the package's doctests (pytest).

    The tests are spread over the machine's cores (pytest-xdist, ``-n auto``); a free worker
    takes tests queued for a busy one (``--dist worksteal``: a few sympy tests take most of
    the time). Pass ``-n 0`` after ``--`` to run them in one process. A venv made before
    pytest-xdist joined the test group and reused with ``-R`` (no install) runs them in one
    process, as pytest without xdist would not know ``-n``.
    """
    _install(session, "test")
    venv = Path(session.virtualenv.location)
    if any(venv.glob("lib/python*/site-packages/xdist/__init__.py")):
        session.run("pytest", "-n", "auto", "--dist", "worksteal", *session.posargs)
    else:
        session.warn("pytest-xdist is not installed in this venv (run without -R to add it): one process")
        session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """Check the package's types with mypy (configuration in pyproject.toml: src/, sympy untyped)."""
    _install(session, "typecheck")
    session.run("mypy", *session.posargs)


def _sphinx(
    session: nox.Session, builder: str, *args: str, outdir: Path | None = None, doctrees: Path | None = None
) -> bool:
    """Run one Sphinx builder; False when nox skipped it (``--install-only``)."""
    # -j auto: chapters are read, and so executed, in parallel (a cold build took 28 s with
    # one process and 19 s with two on a 2-core machine).
    common = [
        "-n",
        "-W",
        "--keep-going",
        "-T",
        "-j",
        "auto",
        "-d",
        str(doctrees or BUILD / "doctrees"),
        *args,
    ]
    ran = session.run("sphinx-build", "-b", builder, *common, str(DOCS), str(outdir or BUILD / builder))
    return ran is not None


#: The translated editions: docs/locales/<language>/LC_MESSAGES (README, "Translations").
LANGUAGES = ["zh_TW"]
LOCALES = DOCS / "locales"


def _translated_html(session: nox.Session, language: str, *args: str) -> None:
    """Build one translated edition into docs/_build/html-<language>, from the shared execution cache.

    Its own doctree folder (the English one stays as it is: neither build re-reads the other's
    pages); the chapters' outputs come from the execution cache the English build filled, so
    nothing is executed again.
    """
    _sphinx(session, "html", "-D", f"language={language}", *args, outdir=BUILD / f"html-{language}",
            doctrees=BUILD / f"doctrees-{language}")  # fmt: skip


#: Pages whose text may hold doctests: ``>>>`` examples, doctest directives, autodoc'd docstrings.
_DOCTEST_TEXT = re.compile(
    r">>>|doctest|testcode|testsetup|testcleanup|testoutput|auto(module|class|function)"
)


def _doctest_key(session: nox.Session, args: list[str]) -> str:
    """What the doctest builder's result depends on: the package source, the pages that hold
    examples, the Sphinx configuration, the installed distributions and Python, the arguments."""
    venv = Path(session.virtualenv.location)
    pages = [p for p in sorted(DOCS.rglob("*.md")) if BUILD not in p.parents]
    files = [
        *sorted((ROOT / "src").rglob("*.py")),
        *[p for p in pages if _DOCTEST_TEXT.search(p.read_text("utf-8"))],
        DOCS / "conf.py",
        *sorted((DOCS / "_ext").glob("*.py")),
    ]
    distributions = sorted(p.name for p in venv.glob("lib/python*/site-packages/*.dist-info"))
    return _digest(files, extra=[*distributions, (venv / "pyvenv.cfg").read_text("utf-8"), *args])


def _doctests(session: nox.Session, args: list[str]) -> None:
    """Run the doctest builder unless it passed already for the same key (see _doctest_key).

    The keys of the last passing runs are kept, so undoing an edit does not rerun them either.
    """
    stamp = BUILD / "doctest" / "passed.keys"
    key = _doctest_key(session, args)
    passed = stamp.read_text("utf-8").split() if stamp.is_file() else []
    if key in passed:
        session.log(f"doctests: passed before for this package source and these versions ({key}); not rerun")
        return
    if not _sphinx(session, "doctest", *args):
        return  # --install-only: nothing ran, nothing to record
    stamp.write_text("\n".join([*passed[-15:], key]) + "\n", "utf-8")


@nox.session
def docs(session: nox.Session) -> None:
    """Run the package's doctests, build the executed HTML book into docs/_build/html, then
    the translated editions (``LANGUAGES``) into docs/_build/html-<language>.

    Strict: any warning, broken reference, failing cell or failing doctest fails the
    session. Pass ``--clean`` after ``--`` for a cold build (removes docs/_build,
    including the execution cache); other arguments go to both sphinx-build calls.
    The doctests are not rerun when they passed before with the same package source,
    pages, configuration and installed versions (a stamp in docs/_build/doctest).
    A chapter is executed again only when its code or an rnndoc module it imports
    (directly or through other rnndoc modules) changed, or when a library version did.
    """
    _install(session, "docs")
    args = list(session.posargs)
    if "--clean" in args:
        args.remove("--clean")
        shutil.rmtree(BUILD, ignore_errors=True)
    # The doctest builder runs every >>> example in the API pages (the package's docstrings).
    # Both builders share one doctree folder with the same settings, so the second re-reads nothing.
    _doctests(session, args)
    _sphinx(session, "html", *args)
    session.log(f"The book is in {BUILD / 'html' / 'index.html'}")
    # the translations' gate: counts, and a failure for changed data markup or a typed number
    session.run("python", str(DOCS / "_ext" / "translation_check.py"), str(LOCALES))
    for language in LANGUAGES:
        _translated_html(session, language, *args)
        session.log(f"The {language} edition is in {BUILD / f'html-{language}' / 'index.html'}")


@nox.session(default=False)
def translations(session: nox.Session) -> None:
    """Update the translated editions' catalogs from the English pages (after editing the English).

    ``sphinx-build -b gettext`` writes one message template per page into docs/_build/gettext
    (with a doctree folder of its own; the chapters' outputs come from the execution cache), then ``sphinx-intl update`` merges them into docs/locales/<language>/LC_MESSAGES:
    a changed English message becomes fuzzy (shown in English until a translator checks it and
    removes the flag), a new one untranslated (English), a removed one obsolete (``#~``). Only the
    pages that have a catalog already are updated, plus those named after ``--`` (e.g.
    ``nox -s translations -- chapters/bptt`` starts that chapter's catalog). Then prints, per
    catalog, the counts of translated, fuzzy and untranslated messages.
    """
    _install(session, "docs")
    pages = [arg.removesuffix(".md") for arg in session.posargs]
    templates = BUILD / "gettext"
    # its own doctrees: Sphinx refuses to share an environment between gettext and html
    if not _sphinx(session, "gettext", outdir=templates, doctrees=BUILD / "doctrees-gettext"):
        return
    selected = BUILD / "gettext-selected"
    shutil.rmtree(selected, ignore_errors=True)
    for language in LANGUAGES:
        catalogs = LOCALES / language / "LC_MESSAGES"
        have = {p.relative_to(catalogs).with_suffix("").as_posix() for p in catalogs.rglob("*.po")}
        for pot in templates.rglob("*.pot"):
            page = pot.relative_to(templates).with_suffix("").as_posix()
            if page in have or page in pages:
                (selected / pot.relative_to(templates)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(pot, selected / pot.relative_to(templates))
        session.run("sphinx-intl", "update", "-p", str(selected), "-d", str(LOCALES), "-l", language)
    session.run("python", str(DOCS / "_ext" / "translation_check.py"), str(LOCALES))


@nox.session(default=False)
def browser(session: nox.Session) -> None:
    """Open every built page in headless Chromium (Debian's, no download) and check it.

    Builds the HTML book first (reusing the execution cache, so an unchanged book costs
    seconds), serves it on 127.0.0.1 and asserts: every equation typeset, no request to
    another host, no console error, no TeX escape or lone value shown as text; every display
    equation fits the text column at 1280 px, and at 390 px it fits its box beside its number
    (only on the API page may one too wide scroll in its own box, with a visible cue). Accessibility (browser/test_a11y.py): no critical or serious axe-core
    violation (WCAG 2.1 A/AA) on any page, light and dark, at 1280 and 375 px; a visible
    focus ring on everything Tab reaches; MathJax's explorer and speech load offline.
    Needs /usr/bin/chromium (or RNNDOC_CHROMIUM).
    """
    _install(session, "docs", "browser")
    _sphinx(session, "html")
    session.run("pytest", "browser", "-o", "testpaths=", *session.posargs)


@nox.session(default=False, requires=["docs"])
def notebooks(session: nox.Session) -> None:
    """Check the chapters' plain notebooks and run two of them where only the package is.

    Runs after ``docs``, whose HTML build writes them (docs/_build/html/_notebooks, by
    docs/_ext/notebook_export.py), with the package's wheel beside them (``pip wheel
    --no-deps .``, by the same extension, in a local build). Makes a fresh venv
    (.nox/notebooks-kernel, cleared each run) with the pinned torch (``RNNDOC_TORCH``),
    rnndoc's other requirements, sympy, matplotlib and ipykernel, but not rnndoc, and runs
    notebooks/test_notebooks.py: no MyST left in any notebook, every glued value written in,
    no page linking a MyST notebook, and the notebooks named by ``RNNDOC_NOTEBOOKS``
    (default: order and cells) executed top to bottom on that venv's kernel with nbclient,
    each beside a copy of the wheel, which the first one's install cell installs; failing on
    any error. Arguments after ``--`` go to pytest.
    """
    session.install(*nox.project.dependency_groups(PYPROJECT, "notebooks"))
    kernel = ROOT / ".nox" / "notebooks-kernel"
    session.run("python", "-m", "venv", "--clear", str(kernel))
    python = kernel / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # rnndoc's other requirements, but not rnndoc: the notebooks install it from the wheel
    # the local build shipped beside them (their install cell, as a reader's kernel would)
    others = [req for req in PYPROJECT["project"]["dependencies"] if not req.startswith("torch")]
    extra = [*others, "sympy", "matplotlib", "ipykernel"]
    if any(arg.startswith("-") for arg in TORCH):  # pip options (an index) apply to torch alone
        session.run(*pip, *TORCH, external=True)
        session.run(*pip, *extra, external=True)
    else:
        session.run(*pip, *TORCH, *extra, external=True)
    session.run("pytest", "notebooks", "-o", "testpaths=", "-p", "no:cacheprovider", *session.posargs,
                env={"RNNDOC_KERNEL_PYTHON": str(python)})  # fmt: skip


#: Example addresses the ``published`` session builds with, as the Pages workflow sets them
#: (.github/workflows/book.yml) for the real repository.
PUBLISHED_ENV = {
    "RNNDOC_REPOSITORY_URL": "https://github.com/example/rnndoc",
    "RNNDOC_BOOK_URL": "https://example.github.io/rnndoc/",
    "RNNDOC_BASE_URL": "/rnndoc/",
}


def _assemble_site(session: nox.Session, out: Path, builds: dict[str, Path], book_url: str) -> None:
    """Put the editions' builds side by side in ``out`` (docs/_ext/site_assembly.py)."""
    pairs = [f"{folder}={build}" for folder, build in builds.items()]
    session.run(sys.executable, str(DOCS / "_ext" / "site_assembly.py"), str(out), *pairs,
                "--book-url", book_url, external=True)  # fmt: skip


#: Each edition's folder in the published site, by Sphinx language (docs/_ext/editions.py).
SITE_FOLDERS = {edition.language: edition.folder for edition in editions.EDITIONS}


@nox.session(venv_backend="none", default=False, requires=["docs"])
def site(session: nox.Session) -> None:
    """Assemble the published site from the editions ``docs`` built, into docs/_build/site.

    ``en/`` (docs/_build/html, with the PDF where ``nox -s pdf`` put it) and ``zh-TW/``
    (docs/_build/html-zh_TW) side by side, a root page that picks the edition (the reader's
    stored choice, else the browser's languages), a redirect page at every English page's old
    address, and the 404 page at the root (docs/_ext/site_assembly.py). The Pages workflow
    builds with its addresses set (RNNDOC_BOOK_URL, RNNDOC_BASE_URL) and uploads this folder;
    ``nox -s published`` checks the same assembly with example addresses.
    """
    if not (os.environ.get("RNNDOC_BOOK_URL") or os.environ.get("RNNDOC_BASE_URL")):
        session.warn("RNNDOC_BOOK_URL and RNNDOC_BASE_URL are unset: the editions were built for the local "
                     "layout (switchers to docs/_build/html-zh_TW, a 404 page for the root); set them as the "
                     "Pages workflow does, or run `nox -s published` (example addresses)")  # fmt: skip
    builds = {SITE_FOLDERS["en"]: BUILD / "html"}
    builds |= {SITE_FOLDERS[language]: BUILD / f"html-{language}" for language in LANGUAGES}
    _assemble_site(session, BUILD / "site", builds, os.environ.get("RNNDOC_BOOK_URL", ""))


@nox.session(default=False, requires=["docs"])
def published(session: nox.Session) -> None:
    """Build the book as the Pages workflow publishes it, and check what the addresses bring.

    Runs after ``docs``: the HTML builder with the workflow's three addresses set (example
    values, PUBLISHED_ENV), for the English edition into docs/_build/published/html and for
    each translated edition into docs/_build/published/html-<language>, each with a doctree
    folder of its own (the local builds' are left as they are) and the same execution cache
    (nothing is executed again); then the site assembled from them as ``nox -s site`` does
    (docs/_build/published/site). Then browser/test_reader_pages.py reads the English edition
    in the site: Colab and Binder buttons on every chapter pointing at its notebook on the
    notebooks branch, "Report a problem" links naming the page, the sitemap and the preview
    metadata at the edition's address, and all the rest that a local build also shows; and
    the site: the root page's picker, a redirect at every English page's old address, every
    page's switcher and hreflang links, the 404 page at the root. Nothing is fetched.
    """
    # the browser check's own dependencies: its conftest.py is loaded for any test in browser/
    session.install(*nox.project.dependency_groups(PYPROJECT, "browser"))
    docs_bin = Path(session.virtualenv.location).parent / "docs" / "bin"
    out = BUILD / "published"
    builds = {}
    for language in ["en", *LANGUAGES]:
        suffix = "" if language == "en" else f"-{language}"
        common = ["-n", "-W", "--keep-going", "-T", "-j", "auto", "-d", str(out / f"doctrees{suffix}")]
        if language != "en":
            common += ["-D", f"language={language}"]
        session.run(docs_bin / "sphinx-build", "-b", "html", *common, DOCS, out / f"html{suffix}",
                    external=True, env=PUBLISHED_ENV)  # fmt: skip
        builds[SITE_FOLDERS[language]] = out / f"html{suffix}"
    _assemble_site(session, out / "site", builds, PUBLISHED_ENV["RNNDOC_BOOK_URL"])
    session.run("pytest", "browser/test_reader_pages.py", "-o", "testpaths=", "-p", "no:cacheprovider",
                *session.posargs, env={**PUBLISHED_ENV, "RNNDOC_HTML": str(out / "site" / "en"),
                                       "RNNDOC_SITE": str(out / "site")})  # fmt: skip


@nox.session(default=False)
def adding(session: nox.Session) -> None:
    """Train the adding chapter's four networks on several seeds and check every outcome.

    Minutes of CPU: each of seeds 0-4 trains a tanh RNN, two LSTMs and a GRU, as the
    chapter does for seed 0, and asserts that each still fails or solves the task. Set
    ``RNNDOC_ADDING_SEEDS`` (e.g. ``"5 6 7"``) for other seeds; arguments after ``--`` go to
    pytest (e.g. ``-k GRU``).
    """
    _install(session, "test")
    session.run("pytest", "slow", "-o", "testpaths=", "-p", "no:cacheprovider", "-rA", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Time rnndoc.layers against the torch modules (float32, CPU) and print the ratios.

    Two scripts, each interleaving the two sides and printing median ratios: the forward pass
    (targets RNN 1.0, GRU 1.0, LSTM 1.3) and forward plus backward against torch's forward plus
    autograd (targets RNN 1.0, GRU 1.0, LSTM 1.3, and no more bytes kept for the backward pass
    than torch keeps). Each prints the CPU model, the matrix-product kernels each side ran and
    rnndoc's measured choice of kernel per product shape. Both always run; the session fails at
    the end if a ratio or the memory missed its target. Pass ``--threads N`` after ``--`` to fix
    torch's thread count.
    """
    _install(session)
    missed = []
    for script in ("benchmarks/bench_layers.py", "benchmarks/bench_backward.py"):
        try:
            session.run("python", script, *session.posargs)
        except nox.command.CommandFailed:
            missed.append(script)
    if missed:
        session.error(f"missed a target (or failed): {', '.join(missed)}")


@nox.session(default=False)
def reproducible(session: nox.Session) -> None:
    """Build the book cold twice and compare: the HTML must be byte-identical.

    Only pages that show measured wall-clock times may differ (their file names contain
    ``status`` or ``timing``), and the figures only they show (a measured time budget decides
    how far a curve goes). The two builds go to docs/_build/repro-1 and repro-2.
    """
    import filecmp  # noqa: PLC0415 (only this session needs it)

    _install(session, "docs")
    shutil.rmtree(BUILD, ignore_errors=True)
    outputs = [BUILD / "repro-1", BUILD / "repro-2"]
    for outdir in outputs:
        for cold in (BUILD / ".jupyter_cache", BUILD / "doctrees", BUILD / "jupyter_execute"):
            shutil.rmtree(cold, ignore_errors=True)  # nothing cached between the two builds
        _sphinx(session, "html", outdir=outdir)

    def differing(comparison: filecmp.dircmp, prefix: str = "") -> list[str]:
        found = [
            prefix + name for name in comparison.diff_files + comparison.left_only + comparison.right_only
        ]
        for name, sub in comparison.subdirs.items():
            found += differing(sub, f"{prefix}{name}/")
        return found

    def timing_page(name: str) -> bool:
        return "status" in name or "timing" in name

    def only_on_timing_pages(name: str) -> bool:
        """An image or download that only timing pages show (its name is a hash of its bytes)."""
        pages = [
            page for out in outputs for page in out.rglob("*.html") if Path(name).name in page.read_text()
        ]
        return bool(pages) and all(timing_page(page.name) for page in pages)

    diffs = differing(filecmp.dircmp(outputs[0], outputs[1], ignore=[".buildinfo", ".doctrees"]))
    allowed = [d for d in diffs if timing_page(d) or only_on_timing_pages(d)]
    session.log(f"differing files allowed (measured times): {allowed}")
    if set(diffs) - set(allowed):
        session.error(f"the two cold builds differ in: {sorted(set(diffs) - set(allowed))}")
    session.log("the two cold builds are byte-identical outside the timing pages")


#: Debian's packages for the PDF edition, each with a program or file that shows it is there
#: (``--no-install-recommends`` pulls in nothing else, so each is named).
PDF_PACKAGES = {
    "texlive-xetex": "xelatex",
    "texlive-latex-recommended": "fancyvrb.sty",
    "texlive-latex-extra": "fncychap.sty",
    "texlive-fonts-recommended": "ptmr8t.tfm",
    "tex-gyre": "tgtermes.sty",
    "fonts-freefont-otf": "/usr/share/fonts/opentype/freefont/FreeSerif.otf",
    "xindy": "xindy",
    "latexmk": "latexmk",
    "poppler-utils": "pdftotext",
}
#: What in XeLaTeX's log means a PDF that does not hold everything the HTML holds, or a line
#: that runs into the margin (more than 2 pt too wide).
_LATEX_PROBLEMS = re.compile(
    r"^(LaTeX Warning: (Reference|Citation|Hyper reference) .* undefined.*"
    r"|LaTeX Warning: There were undefined references.*"
    r"|Missing character: .*"
    r"|Overfull \\hbox \((\d{2,}|[2-9])\.\d+pt too wide\) (in paragraph at lines|detected at line) (?P<line>\d+).*"
    r"|! .*)$",
    re.MULTILINE,
)


def _latex_problems(log: str, tex: str) -> list[str]:
    """The problems in XeLaTeX's log, each with the .tex line it points at.

    A table set by tabulary reports its bookkeeping width as overfull at ``\\end{tabulary}``
    although it fits its columns to the text width: those reports are left out (the tables
    are looked at in the rendered pages).
    """
    lines = tex.splitlines()
    problems = set()
    for match in _LATEX_PROBLEMS.finditer(log):
        source = lines[int(match["line"]) - 1].strip() if match["line"] else ""
        if source != r"\end{tabulary}":
            problems.add(f"{match.group(0)}  [{source[:80]}]" if source else match.group(0))
    return sorted(problems)


def _missing_pdf_packages() -> list[str]:
    """The packages of PDF_PACKAGES that are not installed (what would fail, said up front)."""
    import subprocess  # noqa: PLC0415

    def present(probe: str) -> bool:
        if probe.startswith("/"):
            return Path(probe).is_file()
        if "." not in probe:
            return shutil.which(probe) is not None
        kpsewhich = shutil.which("kpsewhich")
        found = kpsewhich and subprocess.run([kpsewhich, probe], capture_output=True, check=False)
        return bool(found and found.returncode == 0)

    return [package for package, probe in PDF_PACKAGES.items() if not present(probe)]


@nox.session(default=False, requires=["docs"])
def pdf(session: nox.Session) -> None:
    """Build the whole book as one PDF (docs/_build/latex/rnndoc.pdf) and check it.

    Runs after ``docs`` (the HTML book and its execution cache, shared with this build):
    Sphinx's LaTeX builder, then XeLaTeX through latexmk, both strict. Fails on an
    undefined reference or citation, a character missing from the fonts, or a line more
    than 2 pt too wide. Then pdf/test_pdf.py checks the PDF's text against the HTML book
    (every chapter title, every glued number, no "??") and renders each chapter's first
    page to docs/_build/latex/pages/*.png. The PDF is copied beside the HTML
    (docs/_build/html/rnndoc.pdf), where every page's download menu links to it.
    Needs Debian's TeX Live packages (see PDF_PACKAGES; `.ci/run` installs them).
    """
    missing = _missing_pdf_packages()
    if missing:
        session.error(
            "the PDF edition needs Debian packages that are not installed: " + " ".join(missing)
            + "\ninstall them with: apt-get update && apt-get install -y --no-install-recommends "
            + " ".join(PDF_PACKAGES)
        )  # fmt: skip
    session.install(*nox.project.dependency_groups(PYPROJECT, "pdf"))
    docs_bin = Path(session.virtualenv.location).parent / "docs" / "bin"
    latex = BUILD / "latex"
    common = ["-n", "-W", "--keep-going", "-T", "-j", "auto", "-d", str(BUILD / "doctrees")]
    session.run(docs_bin / "sphinx-build", "-b", "latex", *common, *session.posargs, DOCS, latex,
                external=True)  # fmt: skip
    # Sphinx's Makefile runs latexmk with its latexmkrc (xelatex, xindy); stop at the first error.
    session.run("make", "-C", str(latex), "all-pdf", external=True,
                env={"LATEXMKOPTS": "-interaction=nonstopmode -halt-on-error"})  # fmt: skip
    log = (latex / "rnndoc.log").read_text("utf-8", errors="replace")
    problems = _latex_problems(log, (latex / "rnndoc.tex").read_text("utf-8"))
    if problems:
        session.error("XeLaTeX reported (docs/_build/latex/rnndoc.log):\n" + "\n".join(problems))
    if (BUILD / "html").is_dir():
        shutil.copy2(latex / "rnndoc.pdf", BUILD / "html" / "rnndoc.pdf")
        # the pages link the PDF only where it exists (docs/conf.py): write them all again with
        # the link (-a writes every page; nothing is read or executed)
        session.run(docs_bin / "sphinx-build", "-b", "html", "-a", *common, DOCS, BUILD / "html",
                    external=True)  # fmt: skip
    session.run("pytest", "pdf", "-o", "testpaths=", "-p", "no:cacheprovider")
    session.log(f"The PDF is {latex / 'rnndoc.pdf'}; first pages of the chapters in {latex / 'pages'}")


_EXECUTED = re.compile(
    r"^(?P<path>\S+?)\.\w+: Executed notebook in (?P<seconds>[\d.]+) seconds", re.MULTILINE
)
_UPDATED = re.compile(r"updating environment: (\d+) added, (\d+) changed")
_READING = re.compile(r"^reading sources\.\.\. \[ *\d+%\] (\S+)", re.MULTILINE)


def _timed_docs(session: nox.Session, label: str, *nox_args: str) -> dict:
    """Run ``nox <nox_args> -s docs`` as a reader would; time it; read what it executed and re-read."""
    import resource  # noqa: PLC0415 (Unix only, like the session)
    import subprocess  # noqa: PLC0415
    import time  # noqa: PLC0415

    command = [sys.executable, "-m", "nox", *nox_args]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        session.error(f"{label}: {' '.join(command[1:])} failed:\n{result.stdout}{result.stderr}")
    log = result.stdout + result.stderr
    logs = ROOT / ".nox" / "buildtimes"  # outside docs/_build, which the cold case removes
    logs.mkdir(parents=True, exist_ok=True)
    (logs / (re.sub(r"\W+", "-", label).strip("-") + ".log")).write_text(log, "utf-8")
    executed = {
        Path(m["path"]).relative_to(DOCS).as_posix(): float(m["seconds"]) for m in _EXECUTED.finditer(log)
    }
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    reread = sum(int(changed) + int(added) for added, changed in _UPDATED.findall(log))
    read = sorted(set(_READING.findall(log)))
    doctests = "skipped" if "doctests: passed before" in log else "run"
    session.log(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU; {len(executed)} executed "
                f"{sorted(executed)}; {reread} pages read {read}; doctests {doctests}")  # fmt: skip
    return {"label": label, "wall": wall, "cpu": cpu, "executed": executed, "reread": reread}


@nox.session(venv_backend="none", default=False)
def buildtimes(session: nox.Session) -> None:
    """Measure the book's build times and prove that per-chapter invalidation is exact.

    Runs ``nox -s docs`` as a reader would, in turn: cold (``-R -- --clean``), with nothing
    changed (``-R``, then with the install checks), after an edit to one chapter's code,
    after an edit to the rnndoc module that the fewest chapters import (only the chapters
    whose import closure holds it may execute, and all of them must), and after undoing
    each edit (nothing executes: the cache still holds the old outputs). Edits are undone
    whatever happens; each build's log is kept in .nox/buildtimes/. Fails if a wrong set of
    chapters executes or an unchanged build re-reads a page; prints each case's wall and CPU
    time against the targets of issue 11 without failing on them (the machine may be shared).
    """
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import time  # noqa: PLC0415

    timings = [_timed_docs(session, "cold (nox -R -s docs -- --clean)", "-R", "-s", "docs", "--", "--clean")]
    serial = sum(timings[0]["executed"].values())
    timings.append(_timed_docs(session, "no change (nox -R -s docs)", "-R", "-s", "docs"))
    timings.append(_timed_docs(session, "no change, install checks (nox -s docs)", "-s", "docs"))
    for case in timings[1:]:
        if case["executed"] or case["reread"]:
            session.error(f"{case['label']}: an unchanged book executed or re-read pages")

    python = Path(".nox", "docs", "bin", "python")
    closures = json.loads(subprocess.run(
        [python, DOCS / "_ext" / "execution_keys.py", DOCS, ROOT / "src" / "rnndoc"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout)  # fmt: skip
    chapters = {doc: mods for doc, mods in closures.items() if doc.startswith("chapters/")}
    # the edited chapter: the quickest to execute; the edited module: imported by the fewest chapters
    chapter = min(chapters, key=lambda doc: timings[0]["executed"].get(doc, 0.0))
    users = {}
    for doc, mods in closures.items():
        for module in mods:
            users.setdefault(module, set()).add(doc)
    module = min(
        users, key=lambda m: (len(users[m]), sum(timings[0]["executed"].get(d, 0) for d in users[m]))
    )
    module_file = ROOT / "src" / (module.replace(".", "/") + ".py")
    if not module_file.is_file():
        module_file = module_file.with_suffix("") / "__init__.py"
    chapter_file = DOCS / f"{chapter}.md"
    originals = {path: path.read_bytes() for path in (chapter_file, module_file)}
    try:
        chapter_file.write_bytes(
            originals[chapter_file] + b"\n```{code-cell} ipython3\n# buildtimes: an edit\n```\n"
        )
        case = _timed_docs(session, f"one chapter edited ({chapter})", "-R", "-s", "docs")
        timings.append(case)
        if set(case["executed"]) != {chapter}:
            session.error(f"editing {chapter} executed {sorted(case['executed'])}, not just {chapter}")
        chapter_file.write_bytes(originals[chapter_file])
        case = _timed_docs(session, "chapter edit undone (nox -R -s docs)", "-R", "-s", "docs")
        timings.append(case)
        if case["executed"]:
            session.error(f"undoing the chapter edit executed {sorted(case['executed'])}: cached before")
        module_file.write_bytes(originals[module_file] + b"\n# buildtimes: an edit\n")
        before = time.time()
        case = _timed_docs(session, f"package edit ({module})", "-R", "-s", "docs")
        timings.append(case)
        if set(case["executed"]) != users[module]:
            session.error(f"editing {module} executed {sorted(case['executed'])}, "
                          f"expected exactly {sorted(users[module])}")  # fmt: skip
        # the doctest builder re-read them; the HTML builder must write them again, not keep old pages
        stale = [doc for doc in users[module] if (BUILD / "html" / f"{doc}.html").stat().st_mtime < before]
        if stale:
            session.error(f"editing {module} re-executed {stale} but left their HTML pages unwritten")
        session.log(f"editing {module} re-executed {len(case['executed'])} of {len(closures)} notebooks, "
                    f"exactly those importing it")  # fmt: skip
    finally:
        for path, content in originals.items():
            if path.read_bytes() != content:  # an unchanged file keeps its time (no re-read)
                path.write_bytes(content)
    case = _timed_docs(session, "package edit undone (nox -R -s docs)", "-R", "-s", "docs")
    timings.append(case)
    if case["executed"]:
        session.error(f"undoing the module edit executed {sorted(case['executed'])}: cached before")

    budget = 1.2 * serial / 2 + 15
    targets = [budget, 5, 15, 15 + timings[3]["executed"].get(chapter, 0.0), None, None, None]
    session.log(f"serial execution time of the cold build: {serial:.1f} s (from its execution log)")
    session.log(f"{'case':<52} {'wall s':>7} {'CPU s':>7} {'target s':>9}")
    for case, target in zip(timings, targets, strict=True):
        verdict = "" if target is None else f"{target:9.1f} {'met' if case['wall'] <= target else 'MISSED'}"
        session.log(f"{case['label']:<52} {case['wall']:7.1f} {case['cpu']:7.1f} {verdict}")


@nox.session(default=False)
def serve(session: nox.Session) -> None:
    """Serve the built book on http://127.0.0.1:8000 (build it first with ``nox -s docs``)."""
    if not (BUILD / "html" / "index.html").exists():
        session.error("No built book: run `nox -s docs` first.")
    session.run(
        "python", "-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", str(BUILD / "html")
    )


if __name__ == "__main__":
    nox.main()
