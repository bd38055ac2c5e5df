"""The translations' gate: a translated message keeps its English's data markup and types no number.

Run on the catalogs (``python docs/_ext/translation_check.py docs/locales``, by ``nox -s docs``
before the translated builds and ``nox -s translations`` after an update; tests/test_translations.py
runs it under pytest). A translated message (msgstr, not fuzzy) fails when, compared with its English
(msgid), it differs in

- its glue roles: the same roles with the same key and format spec, as many times
  (``{glue:text}`loss:.3f```): every value is the English edition's, computed once;
- its reference targets: roles' targets (``{doc}``, ``{numref}``, ``{eq}``, ``{term}``, ``{func}``,
  ``{cite:p}``, ...: the part in ``<...>``, or the whole text when there is none) and link URLs;
  titles may be translated (``{term}`見證 <witness>```);
- its inline math (``$...$`` and ``{math}`...```) and inline code (```h_n```), character for character;
- or when its text outside that markup holds a number (``0.25``, ``3``, full-width digits too) that
  the English text outside its markup does not: a value typed by hand.

Fuzzy and untranslated messages are counted, not failed: Sphinx shows the English text for both
(README, "Translations"). Returns the problems and the counts; as a script, prints them and exits 1
on any problem.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_ROLE = re.compile(r"\{(?P<name>[\w:-]+)\}`(?P<body>[^`]*)`")
_MATH = re.compile(r"\$\$[^$]+\$\$|\$[^$\n]+\$")
_CODE = re.compile(r"``[^`]+``|`[^`]+`")
_LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[+-]?\d+)?")


def _target(body: str) -> str:
    explicit = re.search(r"<([^<>]+)>\s*$", body)
    return (explicit.group(1) if explicit else body).strip()


@dataclass
class Markup:
    """What a message's data markup is made of, and its numbers outside that markup."""

    glue: Counter = field(default_factory=Counter)
    targets: Counter = field(default_factory=Counter)
    math: Counter = field(default_factory=Counter)
    code: Counter = field(default_factory=Counter)
    numbers: set = field(default_factory=set)


def markup(text: str) -> Markup:
    """The glue roles, reference targets, inline math and code, and numbers of one message."""
    text = unicodedata.normalize("NFKC", text)  # full-width digits and signs as ASCII
    found = Markup()
    # a role's {name} inside inline code (`weight_ih_l{l}`) is code, not a role, and a `$` inside
    # inline code (the end marker `$`) opens no math: scan left to right, roles, code spans and
    # math together, as MyST's parser does, and read each piece as what starts first
    pieces = re.compile(f"{_ROLE.pattern}|(?P<code>{_CODE.pattern})|(?P<dollars>{_MATH.pattern})")
    for piece in pieces.finditer(text):
        if piece["name"]:
            name, body = piece["name"], piece["body"]
            if name.startswith("glue"):
                found.glue[f"{{{name}}}`{body}`"] += 1
            elif name == "math":
                found.math[body] += 1
            else:
                found.targets[f"{name}:{_target(body)}"] += 1
        elif piece["code"]:
            found.code[piece["code"].strip("`")] += 1
        else:
            found.math[piece["dollars"].strip("$")] += 1
    rest = pieces.sub(" ", text)
    found.targets.update(f"link:{url}" for url in _LINK.findall(rest))
    rest = _LINK.sub("]", rest)
    found.numbers = set(_NUMBER.findall(rest))
    return found


def compare(english: str, translated: str) -> list[str]:
    """What the translated message changed in the English one's markup, and the numbers it typed."""
    en, tr = markup(english), markup(translated)
    problems = []
    for kind in ("glue", "targets", "math", "code"):
        ours, theirs = getattr(en, kind), getattr(tr, kind)
        if ours != theirs:
            missing, extra = sorted((ours - theirs).elements()), sorted((theirs - ours).elements())
            problems.append(f"{kind} differ: missing {missing}, added {extra}")
    typed = sorted(tr.numbers - en.numbers)
    if typed:
        problems.append(f"numbers not in the English text: {typed}")
    return problems


@dataclass
class Report:
    """Per catalog: problems (``msgid: problem``) and the counts of each kind of message."""

    problems: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, Counter] = field(default_factory=dict)


def check(locales: Path) -> Report:
    """Check every catalog under ``locales`` (docs/locales/<language>/LC_MESSAGES/**/*.po)."""
    from babel.messages.pofile import read_po  # noqa: PLC0415 (babel: a Sphinx dependency)

    report = Report()
    for path in sorted(Path(locales).glob("*/LC_MESSAGES/**/*.po")):
        name = path.relative_to(locales).as_posix()
        with path.open("rb") as po:
            catalog = read_po(po)
        counts = report.counts.setdefault(name, Counter())
        for message in catalog:
            if not message.id:
                continue
            english = message.id if isinstance(message.id, str) else message.id[0]
            translated = message.string if isinstance(message.string, str) else message.string[0]
            if message.fuzzy:
                counts["fuzzy"] += 1
            elif not translated:
                counts["untranslated"] += 1
            else:
                counts["translated"] += 1
                for problem in compare(english, translated):
                    report.problems.setdefault(name, []).append(f"{english[:60]!r}: {problem}")
    return report


def main(argv: list[str]) -> int:
    locales = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[1] / "locales")
    report = check(locales)
    for name, counts in report.counts.items():
        print(f"{name}: {counts['translated']} translated, {counts['fuzzy']} fuzzy, "
              f"{counts['untranslated']} untranslated (fuzzy and untranslated show in English)")  # fmt: skip
    for name, problems in report.problems.items():
        for problem in problems:
            print(f"ERROR {name}: {problem}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
