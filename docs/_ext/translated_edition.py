"""The translated editions' machinery (issue 19): catalogs without computed text, chrome, search.

The English book is the source; a translated edition (``sphinx-build -D language=zh_TW``) takes its
prose from docs/locales/<language>/LC_MESSAGES/*.po (README, "Translations"). This extension:

- keeps computed text out of the catalogs (``translatable = False``, read by Sphinx's gettext
  builder and its Locale transform alike): everything a code cell printed or displayed (except a
  figure's caption and alt text, which the chapter's author wrote), every display equation without
  words (``\\text``) and every pasted ``{glue:math}``, and every paragraph that is only glued values
  and math. A value change then invalidates no translation. An element of class
  ``rnndoc-untranslated`` (the bilingual term list, docs/terms.md) is left out too; an
  exercise's own title, which sphinx-exercise gives no source, is made a message.
- sets the strings of the page chrome that conf.py (or an extension's default) fixes before
  ``-D language`` applies (``EDITIONS``: the book's title, the search field, the folds' hints,
  myst-nb's fold prompts, the 404 page, the footer).
- gives each language its own myst-nb output folder (the parsed notebooks, glue data and images):
  the English build's notebooks are dependencies of its pages, and a second language rewriting
  them would make the English build re-read every page. The execution cache stays shared, so
  nothing executes twice.
- compiles the project's catalog for sphinx-exercise's titles ("Exercise", "Solution to"), which
  sphinx-exercise does not ship for every language.
- Chinese search: jieba segments the text (a user dictionary of the book's terms, the Chinese
  column of docs/terms.md, also spares jieba reloading its whole default dictionary on every build), and on Sphinx 9.0 the search page's stemmer is defined (sphinx-doc/sphinx#14229:
  Sphinx 9.0 writes ``window.Stemmer = ChineseStemmer``, which no script defines, and the search
  page never answers).
- after a gettext build, merges pydata-sphinx-theme's message template into sphinx.pot, so that
  ``sphinx-intl update`` keeps the project's translations of the theme's strings (the theme ships
  only a Simplified ``zh`` catalog, which zh_TW would otherwise fall back to).
"""

from __future__ import annotations

import re
from pathlib import Path

import sphinx
from docutils import nodes
from sphinx.transforms import SphinxTransform

DOCS = Path(__file__).resolve().parents[1]
LOCALES = DOCS / "locales"

#: Per language, the configuration values conf.py sets in English (applied at config-inited).
EDITIONS: dict[str, dict[str, str]] = {
    "zh_TW": {
        "html_title": "rnndoc：遞迴神經網路，推導並驗證",
        "search_bar_text": "搜尋本書…",
        "togglebutton_hint": "點一下展開",
        "togglebutton_hint_hide": "點一下收合",
        "nb_code_prompt_show": "顯示儲存格內容",
        "nb_code_prompt_hide": "隱藏儲存格內容",
        "notfound_title": "找不到頁面",
        "notfound_body": (
            "<h1>找不到頁面</h1><p>這個頁面不存在（或已經不在了）。試試"
            "<a href='{prefix}index.html'>首頁</a>、搜尋，或左側的目錄。</p>"
        ),
        "extra_footer": (
            "<p>程式碼：MIT 授權。文字與圖："
            '<a href="https://creativecommons.org/licenses/by/4.0/deed.zh_TW">CC BY 4.0</a>。'
            "見儲存庫中的 LICENSE 與 LICENSE-text。</p>"
        ),
    },
}

#: The class of an element written in both languages already (``:class: rnndoc-untranslated``).
UNTRANSLATED = "rnndoc-untranslated"
#: A paragraph with no words of its own: glue roles, inline math, punctuation and spaces.
_ROLE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`|\{math\}`[^`]*`|\$[^$]+\$")
_WORDLESS = re.compile(r"[\s\W\d]*")


def _keeps_author_text(node: nodes.Node) -> bool:
    """A figure's caption or legend inside a cell's output: the author's words, translated."""
    while node is not None:
        if isinstance(node, (nodes.caption, nodes.legend)):
            return True
        node = node.parent
    return False


class ComputedTextUntranslatable(SphinxTransform):
    """Mark computed text ``translatable = False`` (before Sphinx's Locale transform, priority 20)."""

    default_priority = 15

    def apply(self, **kwargs) -> None:
        for output in self.document.findall(nodes.container):
            if output.get("nb_element") != "cell_code_output":
                continue
            for node in output.findall(nodes.TextElement):
                if not _keeps_author_text(node):
                    node["translatable"] = False
        for marked in self.document.findall(nodes.Element):
            if UNTRANSLATED in marked["classes"]:  # bilingual already (docs/terms.md)
                for node in marked.findall(nodes.TextElement):
                    node["translatable"] = False
        for block in self.document.findall(nodes.math_block):
            if "pasted-math" in block["classes"] or r"\text" not in block.astext():
                block["translatable"] = False
        for subtitle in self.document.findall(nodes.subtitle):
            _exercise_title_translatable(subtitle)
        for paragraph in self.document.findall(nodes.paragraph):
            if _WORDLESS.fullmatch(_ROLE.sub("", paragraph.rawsource or paragraph.astext())):
                paragraph["translatable"] = False


def _exercise_title_translatable(subtitle: nodes.subtitle) -> None:
    """An exercise's own title (sphinx-exercise's subtitle, which it gives no source) as a message.

    Its MyST text is written back from its parts (text, inline math, inline code); a title with
    other markup stays as it is, in English.
    """
    if subtitle.source or not isinstance(subtitle.parent, nodes.title):
        return
    parts = []
    for child in subtitle.children:
        if isinstance(child, nodes.Text):
            parts.append(child.astext())
        elif isinstance(child, nodes.math):
            parts.append(f"${child.astext()}$")
        elif isinstance(child, nodes.literal):
            parts.append(f"`{child.astext()}`")
        else:
            return
    holder = subtitle
    while holder is not None and not holder.source:
        holder = holder.parent
    if holder is None or not parts:
        return
    subtitle.rawsource = "".join(parts)
    subtitle.source, subtitle.line = holder.source, holder.line
    subtitle.parent["translatable"] = False  # "Exercise" and the title: the title alone is the message


def _exercise_titles_to_catalog(app, doctree, docname) -> None:
    """The gettext builder's share of the above: sphinx-exercise's post-transform builds each
    exercise's title anew (nodes the catalog skips, having no uid), so the titles are taken from
    the page as read."""
    if app.builder.name != "gettext":
        return
    from sphinx.util.i18n import docname_to_domain  # noqa: PLC0415

    catalog = app.builder.catalogs[docname_to_domain(docname, app.config.gettext_compact)]
    for subtitle in app.env.get_doctree(docname).findall(nodes.subtitle):
        if subtitle.rawsource and getattr(subtitle, "uid", None) is not None:
            catalog.add(subtitle.rawsource, subtitle)


class TranslatedExercisesRegistered(SphinxTransform):
    """sphinx-exercise keeps a copy of each exercise, made before the translation (Locale, priority
    20), for its solutions' titles: the copy is made again from the translated exercise."""

    default_priority = 25

    def apply(self, **kwargs) -> None:
        registry = getattr(self.env, "sphinx_exercise_registry", None)
        if not registry or (self.config.language or "en") == "en":
            return
        for node in self.document.findall(nodes.Element):
            entry = registry.get(node.get("label")) if "serial_number" in node else None
            if entry is not None and entry["docname"] == self.env.docname and "node" in entry:
                entry["node"] = node.deepcopy()


def _edition_strings(app, config) -> None:
    strings = EDITIONS.get(config.language or "en")
    if strings is None:
        return
    config.html_title = strings["html_title"]
    options = dict(config.html_theme_options)
    options["search_bar_text"] = strings["search_bar_text"]
    options["extra_footer"] = strings["extra_footer"]
    config.html_theme_options = options
    prefix = config.notfound_urls_prefix
    config.notfound_context = {
        "title": strings["notfound_title"],
        "body": strings["notfound_body"].format(prefix=prefix),
    }
    config.togglebutton_hint = strings["togglebutton_hint"]
    config.togglebutton_hint_hide = strings["togglebutton_hint_hide"]
    config.nb_code_prompt_show = strings["nb_code_prompt_show"]
    config.nb_code_prompt_hide = strings["nb_code_prompt_hide"]
    if config.language.startswith("zh"):
        words = _search_words(Path(app.outdir).parent / "generated" / f"jieba-{config.language}.txt")
        config.html_search_options = {**config.html_search_options, "dict": str(words)}


#: One term of docs/terms.md's Chinese column: a run of CJK characters, two or more.
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")


def _search_words(path: Path) -> Path:
    """jieba's user dictionary: the Chinese terms of docs/terms.md, one a line (written when changed).

    jieba's own dictionary is mostly Simplified and splits Traditional terms such as 遞迴 into
    single characters, which the search index drops; Sphinx's default for the option is jieba's
    whole dictionary, loaded again on every build.
    """
    terms = (DOCS / "terms.md").read_text("utf-8")
    rows = [line.removeprefix("  - ") for line in terms.splitlines() if line.startswith("  - ")]
    terms_found = {word for row in rows for word in _CJK_WORD.findall(re.sub("[與及]", " ", row))}
    # and the first word of a six-character compound (遞迴 of 遞迴神經網路), which search asks for alone
    words = sorted(terms_found | {word[:2] for word in terms_found if len(word) == 6})
    text = "".join(f"{word}\n" for word in words)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text("utf-8") != text:
        path.write_text(text, "utf-8")
    return path


def _own_output_folder(app) -> None:
    language = app.config.language or "en"
    if language == "en" or not hasattr(app.env, "mystnb_config"):
        return
    folder = Path(app.env.mystnb_config.output_folder)
    app.env.mystnb_config = app.env.mystnb_config.copy(
        output_folder=str(folder.with_name(f"{folder.name}-{language}"))
    )


def output_folder(app) -> Path:
    """The folder myst-nb writes this build's parsed notebooks into (per language, see above)."""
    return Path(app.env.mystnb_config.output_folder)


def _exercise_catalog(app, config) -> None:
    language = config.language or "en"
    source = LOCALES / language / "LC_MESSAGES" / "exercise.po"
    if not source.is_file():
        return
    from babel.messages.mofile import write_mo  # noqa: PLC0415 (babel: a Sphinx dependency)
    from babel.messages.pofile import read_po  # noqa: PLC0415

    target_dir = Path(app.outdir).parent / "locale-mo" / language / "LC_MESSAGES"
    target_dir.mkdir(parents=True, exist_ok=True)
    with source.open("rb") as po:
        catalog = read_po(po, locale=language)
    with (target_dir / "exercise.mo").open("wb") as mo:
        write_mo(mo, catalog)
    app.add_message_catalog("exercise", str(target_dir.parents[1]))


def _merge_theme_template(app, exception) -> None:
    if exception is not None or app.builder.name != "gettext":
        return
    import pydata_sphinx_theme  # noqa: PLC0415
    from babel.messages.pofile import read_po, write_po  # noqa: PLC0415

    ours = Path(app.outdir) / "sphinx.pot"
    theirs = Path(pydata_sphinx_theme.__file__).parent / "locale" / "sphinx.pot"
    with ours.open("rb") as f:
        catalog = read_po(f)
    with theirs.open("rb") as f:
        theme = read_po(f)
    for message in theme:
        if message.id and message.id not in catalog:
            catalog.add(message.id, locations=[], auto_comments=["pydata-sphinx-theme"])
    with ours.open("wb") as f:
        write_po(f, catalog, omit_header=False, sort_output=True, include_lineno=False)


def _search_language(app) -> None:
    from sphinx.search.zh import SearchChinese  # noqa: PLC0415

    if sphinx.version_info[:2] != (9, 0):
        return

    class SearchChineseStemmed(SearchChinese):
        """Sphinx 9.0's Chinese search with a stemmer the search page defines (#14229)."""

        # get_js_stemmer_code writes ``window.Stemmer = {language_name}Stemmer`` after the stemmer
        # script, english-stemmer.js, which defines EnglishStemmer (Latin terms are stemmed in English).
        language_name = "English"

    app.add_search_language(SearchChineseStemmed)


def setup(app):
    app.add_transform(ComputedTextUntranslatable)
    app.add_transform(TranslatedExercisesRegistered)
    app.connect("config-inited", _edition_strings, priority=400)  # before sphinx-togglebutton reads its hints
    app.connect("builder-inited", _own_output_folder, priority=600)  # after myst-nb's (500)
    # before sphinx-exercise's own config-inited handler translates "Exercise %s" (numfig_format)
    app.connect("config-inited", _exercise_catalog, priority=400)
    app.connect("build-finished", _merge_theme_template)
    app.connect("doctree-resolved", _exercise_titles_to_catalog)
    _search_language(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
