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

import os
import shlex
import shutil
from pathlib import Path

import nox

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
    """Install the pinned torch, then the package (editable) with the given dependency groups."""
    session.install(*TORCH)
    requirements = [req for group in groups for req in nox.project.dependency_groups(PYPROJECT, group)]
    session.install("-e", ".", *requirements)


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff (no changes are made)."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", *session.posargs)
    session.run("ruff", "format", "--check", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit tests, the property-based tests and the package's doctests (pytest)."""
    _install(session, "test")
    session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """Check the package's types with mypy (configuration in pyproject.toml: src/, sympy untyped)."""
    _install(session, "typecheck")
    session.run("mypy", *session.posargs)


def _sphinx(session: nox.Session, builder: str, *args: str, outdir: Path | None = None) -> None:
    # -j auto: chapters are read, and so executed, in parallel (a cold build took 28 s with
    # one process and 19 s with two on a 2-core machine).
    common = ["-n", "-W", "--keep-going", "-T", "-j", "auto", "-d", str(BUILD / "doctrees"), *args]
    session.run("sphinx-build", "-b", builder, *common, str(DOCS), str(outdir or BUILD / builder))


@nox.session
def docs(session: nox.Session) -> None:
    """Run the package's doctests, then build the executed HTML book into docs/_build/html.

    Strict: any warning, broken reference, failing cell or failing doctest fails the
    session. Pass ``--clean`` after ``--`` for a cold build (removes docs/_build,
    including the execution cache); other arguments go to both sphinx-build calls.
    """
    _install(session, "docs")
    args = list(session.posargs)
    if "--clean" in args:
        args.remove("--clean")
        shutil.rmtree(BUILD, ignore_errors=True)
    # The doctest builder runs every >>> example in the API pages (the package's docstrings).
    _sphinx(session, "doctest", *args)
    _sphinx(session, "html", *args)
    session.log(f"The book is in {BUILD / 'html' / 'index.html'}")


@nox.session(default=False)
def browser(session: nox.Session) -> None:
    """Open every built page in headless Chromium (Debian's, no download) and check it.

    Builds the HTML book first (reusing the execution cache, so an unchanged book costs
    seconds), serves it on 127.0.0.1 and asserts: every equation typeset, no request to
    another host, no console error, no TeX escape or lone value shown as text; every display
    equation fits the text column at 1280 px, and at 390 px one that is too wide scrolls in
    its own box. Needs /usr/bin/chromium (or RNNDOC_CHROMIUM).
    """
    _install(session, "docs", "browser")
    _sphinx(session, "html")
    session.run("pytest", "browser", "-o", "testpaths=", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Time rnndoc.layers against the torch modules (float32, CPU) and print the ratios.

    Two scripts, each interleaving the two sides and printing median ratios: the forward pass
    (targets RNN 1.2, GRU 1.3, LSTM 3.0, LSTM without oneDNN 1.3) and forward plus backward
    against torch's forward plus autograd (targets RNN 1.2, GRU 1.3, LSTM 1.6, with the bytes
    each keeps for the backward pass). Fails if a ratio misses its target. Pass
    ``--threads N`` after ``--`` to fix torch's thread count.
    """
    _install(session)
    session.run("python", "benchmarks/bench_layers.py", *session.posargs)
    session.run("python", "benchmarks/bench_backward.py", *session.posargs)


@nox.session(default=False)
def reproducible(session: nox.Session) -> None:
    """Build the book cold twice and compare: the HTML must be byte-identical.

    Only pages that show measured wall-clock times may differ; their file names contain
    ``status`` or ``timing``. The two builds go to docs/_build/repro-1 and repro-2.
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

    diffs = differing(filecmp.dircmp(outputs[0], outputs[1], ignore=[".buildinfo", ".doctrees"]))
    allowed = [d for d in diffs if "status" in d or "timing" in d]
    session.log(f"differing files allowed (measured times): {allowed}")
    if set(diffs) - set(allowed):
        session.error(f"the two cold builds differ in: {sorted(set(diffs) - set(allowed))}")
    session.log("the two cold builds are byte-identical outside the timing pages")


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
