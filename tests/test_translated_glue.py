"""Glue roles in translated text (docs/_ext/translated_glue.py), on a made-up one-page book.

A notebook glues a float and a LaTeX matrix; a zh_TW catalog translates its paragraph and its
heading, keeping the roles. With the extension every role renders its value in the translated
text; without it (myst-nb as released, executablebooks/MyST-NB#587) they render nothing and
warn. The second case pins the bug: when it fails, myst-nb has fixed it and the extension can go.
Sphinx runs in a subprocess (its own warnings filters), executing nothing (the outputs are stored).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"

PARAGRAPH = "The loss is {glue:text}`loss:.3f` and the matrix is {glue}`matrix`."
HEADING = "Loss {glue:text}`loss:.2f`"
TRANSLATED = {
    PARAGRAPH: "損失為 {glue:text}`loss:.3f`，矩陣為 {glue}`matrix`。",
    HEADING: "損失 {glue:text}`loss:.2f`",
}


def _glue_output(key: str, data: dict[str, str]) -> dict:
    prefix = "application/papermill.record/"
    return {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": key, "mime_prefix": prefix}},
        "data": {prefix + mime: value for mime, value in data.items()},
    }


def _book(root: Path, with_extension: bool) -> None:
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": f"# {HEADING}\n\n{PARAGRAPH}\n"},
            {
                "cell_type": "code",
                "id": "c1",
                "metadata": {"tags": ["remove-cell"]},
                "execution_count": 1,
                "source": "glue('loss', 0.123456789, display=False)",
                "outputs": [
                    _glue_output("loss", {"text/plain": "0.123456789"}),
                    _glue_output(
                        "matrix",
                        {"text/plain": "M", "text/latex": r"$\left[\begin{matrix}7\end{matrix}\right]$"},
                    ),
                ],
            },
        ],
    }
    (root / "index.ipynb").write_text(json.dumps(notebook), "utf-8")
    extensions = ["myst_nb", "translated_glue"] if with_extension else ["myst_nb"]
    (root / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(EXT)!r})\nextensions = {extensions!r}\n"
        "nb_execution_mode = 'off'\nlanguage = 'zh_TW'\nlocale_dirs = ['locales']\n"
        "gettext_compact = False\nexclude_patterns = ['_build']\n",
        "utf-8",
    )
    catalog = root / "locales" / "zh_TW" / "LC_MESSAGES"
    catalog.mkdir(parents=True)
    entries = "".join(
        f"msgid {json.dumps(k)}\nmsgstr {json.dumps(v, ensure_ascii=False)}\n\n"
        for k, v in TRANSLATED.items()
    )
    (catalog / "index.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + entries, "utf-8"
    )


def _build(root: Path) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", str(root), str(root / "_build")],
        capture_output=True,
        text=True,
        check=True,
    )
    return (root / "_build" / "index.html").read_text("utf-8"), done.stderr


@pytest.mark.parametrize("with_extension", [True, False])
def test_glue_roles_in_translated_text(tmp_path, with_extension):
    _book(tmp_path, with_extension)
    html, warnings = _build(tmp_path)
    assert "損失為" in html, "the translation was not applied"
    if with_extension:
        assert '損失為 <span class="pasted-text">0.123</span>' in html
        assert '<h1>損失 <span class="pasted-text">0.12</span>' in html
        assert r"\begin{matrix}7\end{matrix}" in html
        assert "No key" not in warnings, warnings
    else:  # the bug this extension works around; if this fails, myst-nb fixed it upstream
        assert "pasted-text" not in html
        assert "No key 'loss' found in glue data" in warnings
