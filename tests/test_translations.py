"""The translated editions' catalogs keep the English data markup (docs/_ext/translation_check.py).

Every translated message of docs/locales keeps its English's glue roles (key and format), reference
targets, inline math and code, and types no number of its own; fuzzy and untranslated messages
show in English and are only counted. The checker itself is tested on made-up messages first.
"""

from __future__ import annotations

import sys
from pathlib import Path

import opencc  # the test group installs it (pyproject.toml)
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import translation_check  # docs/_ext, on the path above

ENGLISH = (
    "The gap is {glue:text}`gap:.1e` (see {numref}`Chapter %s <chap-bptt>` and {term}`witness`), "
    "for $h_t$ and `h_n` over 3 steps, [PyTorch](https://pytorch.org)."
)


def test_a_faithful_translation_passes():
    translated = (
        "差距為 {glue:text}`gap:.1e`（見{numref}`第 %s 章 <chap-bptt>`與{term}`見證 <witness>`），"
        "對 $h_t$ 與 `h_n`，共 3 步，[PyTorch](https://pytorch.org)。"
    )
    assert translation_check.compare(ENGLISH, translated) == []


@pytest.mark.parametrize(
    ("changed", "kind"),
    [
        ("{glue:text}`gap:.1e`", "{glue:text}`gap:.2e`"),  # another format
        ("{glue:text}`gap:.1e`", "{glue:text}`gaps:.1e`"),  # another key
        ("{glue:text}`gap:.1e`", "0.3"),  # the value typed by hand
        ("<chap-bptt>", "<chap-order>"),  # another target
        ("$h_t$", "$h_{t}$"),  # other math
        ("`h_n`", "`h_0`"),  # other code
        ("https://pytorch.org", "https://example.org"),  # another link
        ("over 3 steps", "over 4 steps"),  # a number the English does not have
        ("over 3 steps", "over ４ steps"),  # a full-width one
    ],
)
def test_a_changed_markup_or_typed_number_fails(changed, kind):
    assert translation_check.compare(ENGLISH, ENGLISH.replace(changed, kind)) != []


def test_braces_inside_inline_code_are_code_not_a_role():
    # `weight_hh_l{l}` is a parameter name: its {l} must not read as a role whose body runs on
    english = "With the projection, `weight_hh_l{l}` reads $P$ features, `weight_ih_l{l}` too."
    translated = "有投影時，`weight_hh_l{l}` 讀取 $P$ 個特徵，`weight_ih_l{l}` 亦同。"
    assert translation_check.compare(english, translated) == []
    assert translation_check.compare(english, translated.replace("_l{l}", "_l{k}", 1)) != []


def test_a_dollar_inside_inline_code_opens_no_math():
    # the end marker `$` is code: read as math, it would pair with the $ of $b$ and make the
    # English words between them "math" that a translation must copy
    english = "The input is $a^n b^n$, and the end marker `$` after the last $b$; never `$`."
    translated = "輸入是 $a^n b^n$，最後一個 $b$ 之後是結束標記 `$`；絕不會是 `$`。"
    assert translation_check.compare(english, translated) == []
    assert translation_check.compare(english, translated.replace("$b$", "$c$")) != []


def test_the_catalogs_keep_the_english_markup():
    report = translation_check.check(ROOT / "docs" / "locales")
    assert report.counts, "no catalog found under docs/locales"
    assert report.problems == {}
    translated = sum(c["translated"] for c in report.counts.values())
    assert translated > 0


#: Characters that OpenCC's Simplified-to-Taiwan conversion changes although they are standard
#: Traditional in the words the catalogs use them in (Taiwan's Ministry of Education dictionary):
#: 干 in 干擾 (interference), 占 in 占用 (to occupy), 了 in 了解 (to understand), 才 (only then).
TRADITIONAL_AS_WELL = {"干", "占", "了", "才"}


def _simplified(text: str, to_traditional) -> set[str]:
    """The characters of ``text`` that OpenCC would write differently in Traditional Chinese."""
    return {a for a in text if a not in TRADITIONAL_AS_WELL and to_traditional.convert(a) != a}


def test_the_checker_of_simplified_characters_sees_them():
    to_traditional = opencc.OpenCC("s2tw")
    assert _simplified("递归神经网络的梯度", to_traditional) == {"递", "归", "经", "网", "络"}
    assert _simplified("遞迴神經網路的梯度，干擾", to_traditional) == set()


def test_the_zh_tw_catalogs_hold_no_simplified_character():
    from babel.messages.pofile import read_po  # noqa: PLC0415 (sphinx's dependency, test group)

    to_traditional = opencc.OpenCC("s2tw")
    found = {}
    for catalog in sorted((ROOT / "docs" / "locales" / "zh_TW" / "LC_MESSAGES").rglob("*.po")):
        with catalog.open("rb") as handle:
            for message in read_po(handle):
                text = message.string if isinstance(message.string, str) else "".join(message.string)
                if message.id and text and (chars := _simplified(text, to_traditional)):
                    found.setdefault(catalog.name, set()).update(chars)
    assert found == {}
