"""Readable bibliography labels: [Elman 1990], [Hochreiter & Schmidhuber 1997], [Gers et al. 2000].

An entry with a ``shorthand`` field (biblatex's name for it) is labelled with it instead:
[PyTorch: torch.nn.RNN], [PyTorch #138401]. Entries are listed in the order of their labels.
Importing this module registers the formatting style ``rnndoc`` with pybtex (``alpha``, with
these labels and this order); ``bibtex_default_style = "rnndoc"`` in conf.py selects it.
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle


def label(entry) -> str:
    """The label of one entry, before same-label entries get a, b, ..."""
    if "shorthand" in entry.fields:
        return entry.fields["shorthand"]
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [Text.from_latex(" ".join(p.prelast_names + p.last_names)).render_as("text") for p in persons]
    if len(names) > 2:
        who = f"{names[0]} et al."
    else:
        who = " & ".join(names) or entry.fields.get("title", entry.key)
    return f"{who} {entry.fields['year']}" if "year" in entry.fields else who


class LabelStyle(BaseLabelStyle):
    """Author-year labels; a, b, ... appended where two entries would share one."""

    def format_labels(self, sorted_entries):
        labels = [label(entry) for entry in sorted_entries]
        total, seen = Counter(labels), Counter()
        for text in labels:
            yield text if total[text] == 1 else text + "abcdefghijklmnopqrstuvwxyz"[seen[text]]
            seen[text] += 1


class SortingStyle(BaseSortingStyle):
    """Entries in the order of their labels (case-insensitive), as a reader scans the list."""

    def sorting_key(self, entry):
        return (label(entry).casefold(), entry.fields.get("title", ""))


class Style(AlphaStyle):
    default_label_style = "rnndoc"
    default_sorting_style = "rnndoc"


register_plugin("pybtex.style.labels", "rnndoc", LabelStyle)
register_plugin("pybtex.style.sorting", "rnndoc", SortingStyle)
register_plugin("pybtex.style.formatting", "rnndoc", Style)
