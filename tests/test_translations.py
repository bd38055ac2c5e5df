"""The translated editions' catalogs keep the English data markup (docs/_ext/translation_check.py).

Every translated message of docs/locales keeps its English's glue roles (key and format), reference
targets, inline math and code, and types no number of its own; fuzzy and untranslated messages
show in English and are only counted. The checker itself is tested on made-up messages first.
"""

from __future__ import annotations

import sys
from pathlib import Path

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


def test_the_catalogs_keep_the_english_markup():
    report = translation_check.check(ROOT / "docs" / "locales")
    assert report.counts, "no catalog found under docs/locales"
    assert report.problems == {}
    translated = sum(c["translated"] for c in report.counts.values())
    assert translated > 0
