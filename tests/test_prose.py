"""The book's first promise: no computed-looking number typed into a chapter's prose.

Prose is what remains of a chapter's Markdown after code cells, inline code, math and
roles (``{glue:text}`` and friends) are taken out. A number there that looks computed
(a decimal with three or more significant digits, or scientific notation) must come
from ``glue`` instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

DOCS = Path(__file__).resolve().parents[1] / "docs"
CHAPTERS = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)

_DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+(?![\w.])")
# (a number may end a sentence: "near 1e-8." is caught; "1e-8.5" or "1e-8x" is not a number)
_SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-+]?\d+(?!\w|\.\d)|\d\s*[×x]\s*10\^?[-−]?\d")
# "Python 3.11", "version 2.13": release numbers, not results.
_VERSION = re.compile(r"\b(?:[Pp]ython|[Vv]ersion|torch|sympy|Sphinx)\s+\d+(?:\.\d+)+")
_PARSER = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(dollarmath_plugin)


def _significant(number: str) -> int:
    return len(number.replace(".", "").lstrip("0"))


def computed_looking(markdown: str) -> list[str]:
    """The computed-looking numbers in the prose of a MyST Markdown text."""
    found = []
    for token in _PARSER.parse(markdown):
        for child in token.children or []:
            if child.type != "text":
                continue  # code_inline, math_inline, ... are not prose
            text = _VERSION.sub("", child.content)
            found += [m for m in _DECIMAL.findall(text) if _significant(m) >= 3]
            found += _SCIENTIFIC.findall(text)
    return found


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("The gap is 5.6e-17 here.", ["5.6e-17"]),
        ("It ends near 1e-8.", ["1e-8"]),
        ("A loss of 0.0948 was found.", ["0.0948"]),
        ("It is 12.5 times faster.", ["12.5"]),
        ("About 3 × 10^-7 of it.", ["3 × 10^-7"]),
        ("Version 2.13 and T = 3 and eps 0.5 are setup.", []),
        ("Glued {glue:text}`gap:.1e` and `1.234` and $0.123$ are fine.", []),
        ("```{code-cell} ipython3\nx = 0.12345\n```\n", []),
    ],
)
def test_the_checker_sees_computed_numbers(markdown, expected):
    assert computed_looking(markdown) == expected


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_computed_number_is_typed_into_prose(chapter):
    assert computed_looking(chapter.read_text(encoding="utf-8")) == []


def test_chapters_are_found():
    assert any(p.parent.name == "chapters" for p in CHAPTERS)


# --- Alt texts and docstrings are prose too ------------------------------------------------
# A figure's alt text (a directive's ``:alt:`` option, or ``alt:`` in a code cell's mystnb
# metadata) and the package's docstrings (rendered on the API page, with ``#:`` attribute
# comments) are read as text, so they are held to a stricter rule than a chapter's prose: no
# computed-looking number, no percentage and no approximate value ("near 40", "about 1e-4"),
# except the definitions in the allow-list below. Doctest examples (``>>>`` and their output)
# are executed by the doctest build, and math and literals are not prose; both are left out.

_PERCENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:%|percent\b)")
_APPROXIMATE = re.compile(
    r"\b(?:near|about|around|roughly|approximately|nearly)\s+(?:[-−]?\d[\d.]*(?:[eE][-+]?\d+)?)"
)
_ALT = re.compile(r"^[ \t]*:?alt:[ \t]*(.+)$", re.MULTILINE)
SOURCE = DOCS.parent / "src" / "rnndoc"
MODULES = sorted(SOURCE.rglob("*.py"))

#: (where, number): why it is a definition, not a result. ``where`` is a chapter's path under
#: docs/ or a module's under src/rnndoc/.
ALLOWED = {
    # the finite-difference step the book uses: rnndoc.finite_differences.FINITE_DIFF_EPS
    ("finite_differences.py", "1e-6"): "FINITE_DIFF_EPS, the default step",
    ("witnesses.py", "1e-6"): "FINITE_DIFF_EPS, the default step",
    ("report.py", "1e-6"): "FINITE_DIFF_EPS, the default step",
    # the ends of FINITE_DIFF_EPS_RANGE, stated as constants
    ("report.py", "1e-8"): "FINITE_DIFF_EPS_RANGE's lower end",
    ("report.py", "1e-4"): "FINITE_DIFF_EPS_RANGE's upper end",
    ("verdict.py", "1e-8"): "FINITE_DIFF_EPS_RANGE's lower end",
    ("verdict.py", "1e-4"): "FINITE_DIFF_EPS_RANGE's upper end",
    # the tolerance table of rnndoc.verdict: each a named constant
    ("verdict.py", "1e-12"): "FLOAT64_ATOL",
    ("verdict.py", "1e-14"): "FORWARD_ATOL",
    ("verdict.py", "1e-13"): "EXACT_ATOL",
    ("verdict.py", "1e-7"): "FINITE_DIFF_ATOL",
    ("verdict.py", "1e-16"): "float64's unit round-off, in the O(1e-16 / eps) of the table",
    # the definition of a failed run, FAILED_MSE = 0.9 * MEAN_BASELINE_MSE
    ("adding/task.py", "90"): "FAILED_MSE, stated as a share of the baseline",
    # a default argument: Adam's learning rate in train_adding
    ("adding/training.py", "1e-2"): "train_adding's default lr",
}


def _strict(text: str) -> list[str]:
    """Computed-looking numbers, percentages and approximate values in plain text."""
    text = _VERSION.sub("", text)
    found = [m for m in _DECIMAL.findall(text) if _significant(m) >= 3]
    found += _SCIENTIFIC.findall(text)
    found += _PERCENT.findall(text) + _APPROXIMATE.findall(text)
    return found


def _number(found: str) -> str:
    return re.sub(r"^\D+|\s*(?:%|percent)$", "", found)


def alt_texts(markdown: str) -> list[str]:
    """Every alt text of a MyST Markdown text, quotes stripped."""
    return [m.strip().strip("\"'") for m in _ALT.findall(markdown)]


def _prose_of_docstring(doc: str) -> str:
    kept, in_example, in_math = [], False, False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True  # executed by the doctest build; its output follows
            continue
        if in_example and stripped:
            continue
        in_example = False
        if stripped.startswith(".. math::"):
            in_math = True
            continue
        if in_math and (not stripped or line.startswith((" ", "\t"))):
            continue
        in_math = False
        kept.append(line)
    text = "\n".join(kept)
    return re.sub(r":\w+:`[^`]*`|``[^`]*``|`[^`]*`", "", text)  # roles, literals, code


def docstrings(path: Path) -> list[str]:
    """The docstrings of a module, its classes and functions, and its ``#:`` comments."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, _DOCUMENTED))]
    found = [ast.get_docstring(n) or "" for n in nodes]
    comments = re.findall(r"(?:^[ \t]*#:.*\n)+", source, re.MULTILINE)
    found += [re.sub(r"^[ \t]*#:", "", c, flags=re.MULTILINE) for c in comments]
    return [_prose_of_docstring(d) for d in found if d]


_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _not_allowed(where: str, found: list[str]) -> list[str]:
    return [f for f in found if (where, _number(f)) not in ALLOWED]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The GRU starts near 1e-8 and rises.", ["1e-8", "near 1e-8"]),
        ("It is largest, near 40 percent, for one step.", ["40 percent", "near 40"]),
        ("the LSTM creeps up to about 1e-4", ["1e-4", "about 1e-4"]),
        ("One line per sequence of lengths 2, 5 and 3; stays above the threshold.", []),
    ],
)
def test_the_strict_checker_sees_results(text, expected):
    assert sorted(_strict(text)) == sorted(expected)


def test_alt_texts_are_found():
    cell = '```{code-cell} ipython3\n---\nmystnb:\n  image:\n    alt: "near 40 percent"\n---\n'
    directive = "```{figure} a.svg\n:alt: A curve near 1e-8.\n```\n"
    assert alt_texts(cell + directive) == ["near 40 percent", "A curve near 1e-8."]


def test_docstrings_are_found_without_examples_or_math():
    module = '"""Top, 19.4 ms.\n\n.. math:: x = 0.123\n\n>>> 1.2345\n1.2345\n"""\n#: about 11 us\nX = 1\n'
    path = Path(__file__).parent / "_docstring_probe.py"
    try:
        path.write_text(module, encoding="utf-8")
        texts = docstrings(path)
    finally:
        path.unlink()
    assert [_strict(t) for t in texts] == [["19.4"], ["about 11"]]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_computed_number_is_typed_into_alt_text(chapter):
    where = chapter.relative_to(DOCS).as_posix()
    found = [f for alt in alt_texts(chapter.read_text(encoding="utf-8")) for f in _strict(alt)]
    assert _not_allowed(where, found) == []


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.relative_to(SOURCE).as_posix())
def test_no_computed_number_is_typed_into_a_docstring(module):
    where = module.relative_to(SOURCE).as_posix()
    found = [f for doc in docstrings(module) for f in _strict(doc)]
    assert _not_allowed(where, found) == []


def test_the_allow_list_is_used():
    """An entry that no longer matches anything is stale: remove it."""
    seen = set()
    for chapter in CHAPTERS:
        where = chapter.relative_to(DOCS).as_posix()
        for alt in alt_texts(chapter.read_text(encoding="utf-8")):
            seen |= {(where, _number(f)) for f in _strict(alt)}
    for module in MODULES:
        where = module.relative_to(SOURCE).as_posix()
        seen |= {(where, _number(f)) for doc in docstrings(module) for f in _strict(doc)}
    assert set(ALLOWED) <= seen, set(ALLOWED) - seen


# ---- every glued value is used ------------------------------------------------------------------
# A value glued under a literal key and shown nowhere is left over from prose that changed (the
# number it held is then checked by nobody's eyes). Keys built at run time (f-strings) are skipped.
_GLUED = re.compile(r"""\bglue\(\s*["']([^"'{}]+)["']""")
_SHOWN = re.compile(r"""\{glue(?::[a-z]+)?\}`([^`:]+)|[`:]{3}\{glue(?::[a-z]+)?\}\s+(\S+)""")


def glued_unused(markdown: str) -> set[str]:
    """Keys glued with a literal name in a page's cells and shown by no glue role or directive."""
    shown = {a or b for a, b in _SHOWN.findall(markdown)}
    return set(_GLUED.findall(markdown)) - shown


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ('glue("a", 1)\nglue("b", 2)\n{glue:text}`a:.1f`', {"b"}),
        ('glue("m", x)\n```{glue:math} m\n```', set()),
        ('glue("f", fig)\n:::{glue:figure} f\n:::', set()),
        ('glue(f"k_{h}", 1)\nglue("s", 2) {glue}`s`', set()),
    ],
)
def test_the_unused_glue_checker_sees_leftovers(markdown, expected):
    assert glued_unused(markdown) == expected


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_glued_value_is_shown(chapter):
    assert glued_unused(chapter.read_text(encoding="utf-8")) == set()
