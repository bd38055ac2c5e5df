"""Every built page in a real browser: math typeset, nothing fetched from outside, no console errors."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from _book import HTML, pages, screen

PAGES = pages()
TOTALS = {"pages": 0, "equations": 0}
FIT = {"desktop": 0, "phone": 0}  # display equations measured at each width

# After MathJax has run, report what is left: raw TeX delimiters and escapes in the text
# outside code, .math elements that hold no typeset container, TeX errors, TeX escapes
# that MathJax printed as text (``\text{num\_layers}`` shows its backslash), and cell
# outputs that are a lone number (a cell ending in a call whose value nobody wanted).
INSPECT = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const math = Array.from(document.querySelectorAll('.math'));
  const untypeset = math.filter(el => !el.querySelector('mjx-container')).map(el => el.textContent.slice(0, 80));
  const prose = document.body.cloneNode(true);  // code may quote TeX on purpose: leave it out
  prose.querySelectorAll('pre, code, script, style, mjx-container').forEach(el => el.remove());
  const text = prose.textContent;
  const raw = ['\\\\(', '\\\\[', '$$', '\\\\begin{'].filter(d => text.includes(d));
  const escapes = (text.match(/\\\\[A-Za-z_{}%&#$]+/g) || []).map(e => 'text: ' + e);
  for (const item of (window.MathJax && MathJax.startup.document ? MathJax.startup.document.math : [])) {
    item.root.walkTree(node => {
      if (node.isKind('mtext') && node.getText().includes('\\\\')) {
        escapes.push(`math: ${node.getText()} in ${item.math.trim().slice(0, 60)}`);
      }
    });
  }
  return {
    equations: document.querySelectorAll('mjx-container').length,
    math: math.length,
    untypeset: untypeset,
    errors: Array.from(document.querySelectorAll('mjx-merror')).map(el => el.textContent.slice(0, 80)),
    raw: raw,
    escapes: escapes,
    stray: Array.from(document.querySelectorAll('.cell_output .output.text_plain'))
      .map(el => el.textContent.trim()).filter(t => /^([-+]?[0-9.]+([eE][-+]?[0-9]+)?|None|True|False)$/.test(t)),
  };
}"""

# Every display equation against the text column it sits in. ``natural`` is the typeset
# width, ``column`` the article's content width; an equation is cut off when it is wider
# than the column or when its box must scroll (scrollWidth > clientWidth). ``own_scroll``
# says whether an element between the equation and the column scrolls sideways and stays
# inside the column (so the page itself does not move); ``cue`` whether that box shows it
# scrolls (docs/_static/rnndoc.js marks it, rnndoc.css fades its clipped edge);
# ``page_overflow`` is how far the whole page is wider than the window. Every table of the
# article is measured too (after rnndoc.js has stacked the wide ones on a phone).
MEASURE = """async () => {
  const source = new Map();
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
    for (const item of MathJax.startup.document.math) { source.set(item.typesetRoot, item.math); }
  }
  for (let i = 0; i < 50 && !document.documentElement.dataset.rnndocFitted; i++) {
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  // open every folded box (a section's Checks, an exercise's solution), as a reader does: a
  // closed one holds its content at height 0 behind overflow hidden, which is not a cut equation,
  // and an equation inside one must fit once it is open
  const folded = Array.from(document.querySelectorAll('button.toggle-button.toggle-button-hidden'));
  folded.forEach(button => button.click());
  // rnndoc.js marks the opened content again after the transition, then sets rnndocFitted
  for (let i = 0; i < 50 && !document.documentElement.dataset.rnndocFitted; i++) {
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  const column = document.querySelector('article.bd-article') || document.querySelector('main');
  const style = getComputedStyle(column);
  const width = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const equations = Array.from(document.querySelectorAll('mjx-container[display="true"]')).map(box => {
    let own_scroll = false;
    for (let el = box; el && el !== column; el = el.parentElement) {
      const overflow = getComputedStyle(el).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && el.clientWidth <= width + 1) { own_scroll = true; break; }
    }
    const holder = box.closest('.math, .output, .cell_output, section');
    const label = holder && holder.id ? '#' + holder.id : (box.closest('[id]') || {id: ''}).id;
    const tex = (source.get(box) || box.textContent).replace(/\\s+/g, ' ').trim();
    // its width at MathJax's own size, before rnndoc.js set it smaller (what a reader sees
    // until the script has run, and for good where it does not)
    const set = box.style.fontSize;
    if (box.dataset.rnndocSize !== undefined) { box.style.fontSize = box.dataset.rnndocSize; }
    const own_size_scroll = box.scrollWidth;
    box.style.fontSize = set;
    // cut at the top or bottom: a box (the equation's or one around it) that does not let its
    // content show past its edges and whose content is taller than it (a tall glyph, a
    // superscript above the first line), so the reader sees it clipped or scrolls it up and down
    let vclip = 0;
    for (let el = box; el && el !== column; el = el.parentElement) {
      if (getComputedStyle(el).overflowY !== 'visible') { vclip = Math.max(vclip, el.scrollHeight - el.clientHeight); }
    }
    return {
      tex: tex.slice(0, 90), where: label,
      natural: Math.ceil(box.querySelector('mjx-math').getBoundingClientRect().width),
      scroll: box.scrollWidth, client: box.clientWidth, own_scroll: own_scroll, own_size_scroll: own_size_scroll,
      cue: box.classList.contains('rnndoc-scrolls'),
      right: Math.ceil(box.getBoundingClientRect().right), vclip: vclip,
    };
  });
  const tables = Array.from(column.querySelectorAll('table')).map(table => ({
    where: (table.closest('section[id]') || {id: ''}).id,
    head: (table.querySelector('th') || table).textContent.trim().slice(0, 40),
    width: Math.ceil(table.getBoundingClientRect().width),
    room: table.parentElement.clientWidth,
    scrolls: table.scrollWidth > table.clientWidth + 1,
    cue: table.classList.contains('rnndoc-scrolls'),
  }));
  const code = Array.from(column.querySelectorAll('div.cell_input div.highlight pre')).map(pre => ({
    where: (pre.closest('section[id]') || {id: ''}).id,
    line: pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '').slice(0, 60),
    scroll: pre.scrollWidth, client: pre.clientWidth,
    cue: pre.classList.contains('rnndoc-scrolls'),
  }));
  // the previous/next links under the page: each title whole inside its link and the window
  const footer = Array.from(document.querySelectorAll('.prev-next-area a')).map(link => {
    const parts = [link].concat(Array.from(link.querySelectorAll('*')));
    return {
      title: link.textContent.replace(/\\s+/g, ' ').trim().slice(0, 60),
      overflow: Math.max(...parts.map(el => el.scrollWidth - el.clientWidth)),
      right: Math.ceil(Math.max(...parts.map(el => el.getBoundingClientRect().right))),
    };
  });
  return {
    footer: footer,
    // the layout viewport: a phone zooms out over a page wider than itself, widening innerWidth
    column: Math.floor(width), window: document.documentElement.clientWidth,
    equations: equations, tables: tables, code: code,
    page_overflow: document.scrollingElement.scrollWidth - document.documentElement.clientWidth,
  };
}"""

#: Desktop and phone widths (CSS px) at which every page is measured.
#: "narrow" is a phone's width in a plain (desktop) window: MathJax sets its equations larger
#: there than on an emulated phone, so an equation that just fits a phone may not fit it.
WIDTHS = {"desktop": 1280, "phone": 390, "narrow": 390}
FIT["narrow"] = 0

#: Pages where a display equation may scroll in its box on a phone, as a last resort: the API
#: reference, whose equations are the package's docstrings. Everywhere else (the chapters, the
#: notation page, the cheat sheet) a phone shows every equation whole.
MAY_SCROLL = frozenset({"api.html"})

#: Equations that still fit a 390 px window only once rnndoc.js has set them smaller (before it
#: runs, and where it does not, they are cut at the edge of their box): to be made narrower,
#: then taken off this list. Empty: every equation of the book fits at MathJax's own size,
#: those inside folded boxes too (the check opens them).
SET_SMALLER_PENDING: frozenset[str] = frozenset()


def fit_problems(measured: dict, width_name: str, may_scroll: bool = False) -> list[str]:
    """What does not fit the page, one line per equation, from a MEASURE report.

    Desktop: every display equation fits the text column, with no scrolling. Phone: every
    display equation fits its box too (its box, not the column: Sphinx floats the number
    "(8.2)" beside it, so the box is some 70 px narrower than the column; an equation that
    fits the column but not its box scrolls, and a reader sees it cut at the edge, whatever
    the cue). Only where ``may_scroll`` (the pages of :data:`MAY_SCROLL`) may an equation
    wider than its box scroll inside it, showing that it scrolls (the ``rnndoc-scrolls``
    cue). At every width no display equation is cut at its top or bottom (a box that clips
    or scrolls its content and is shorter than it). On a phone the page never scrolls
    sideways. At both widths,
    every table fits the width it is given (on a phone, wide ones are stacked), or scrolls
    in its own box with the cue. A code cell's lines fit on a desktop; on a phone a wider one
    scrolls with the cue.
    """
    problems = []
    if width_name == "narrow":  # a phone's width in a plain window: the phone's rules
        width_name = "phone"
    for eq in measured["equations"]:
        sizes = f"{eq['natural']} px typeset, box {eq['client']} px (scrollWidth {eq['scroll']})"
        too_wide = eq["natural"] > measured["column"] + 1 or eq["scroll"] > eq["client"] + 1
        if eq.get("vclip", 0) > 1:
            problems.append(f"cut at the top or bottom (content {eq['vclip']} px taller than its box): "
                            f"{eq['where']}: {eq['tex']}")  # fmt: skip
        elif width_name == "desktop" and too_wide:
            problems.append(f"cut off at {measured['column']} px column: {sizes}: {eq['where']}: {eq['tex']}")
        elif (
            width_name == "phone"
            and eq.get("own_size_scroll", 0) > eq["client"] + 1
            and not may_scroll
            and eq["where"].removeprefix("#equation-") not in SET_SMALLER_PENDING
        ):
            # rnndoc.js sets it smaller to fit, but until it has run (and where it does not) the
            # reader sees it cut at the edge of its box
            problems.append(f"fits its box only once set smaller ({eq['own_size_scroll']} px at MathJax's"
                            f" size, box {eq['client']} px): {eq['where']}: {eq['tex']}")  # fmt: skip
        elif width_name == "phone" and too_wide and not may_scroll:
            problems.append(f"cut off on a phone ({measured['column']} px column): {sizes}: "
                            f"{eq['where']}: {eq['tex']}")  # fmt: skip
        elif width_name == "phone" and too_wide and not eq["own_scroll"]:
            problems.append(f"too wide, does not scroll in its own box: {sizes}: {eq['where']}: {eq['tex']}")
        elif width_name == "phone" and eq["scroll"] > eq["client"] + 1 and not eq["cue"]:
            problems.append(f"scrolls with no visible cue: {sizes}: {eq['where']}: {eq['tex']}")
        elif width_name == "phone" and eq["right"] > measured["window"] + 1:
            problems.append(f"reaches past the window ({eq['right']} px): {eq['where']}: {eq['tex']}")
    for table in measured.get("tables", []):
        if table["width"] > table["room"] + 1:
            problems.append(f"table wider than its room ({table['width']} > {table['room']} px): "
                            f"{table['where']}: {table['head']}")  # fmt: skip
        elif table.get("scrolls") and not table.get("cue"):
            problems.append(f"table scrolls with no visible cue: {table['where']}: {table['head']}")
    for cell in measured.get("code", []):  # a chapter's code: whole lines on a desktop
        if cell["scroll"] <= cell["client"] + 1:
            continue
        if width_name == "desktop":
            problems.append(
                f"code cut off ({cell['scroll']} > {cell['client']} px): {cell['where']}: {cell['line']}"
            )
        elif not cell["cue"]:
            problems.append(f"code scrolls with no visible cue: {cell['where']}: {cell['line']}")
    for link in measured.get("footer", []):  # the previous/next titles wrap, never clipped
        if link["overflow"] > 1 or link["right"] > measured["window"] + 1:
            problems.append(f"footer link cut off (by {link['overflow']} px, right edge {link['right']} px): "
                            f"{link['title']}")  # fmt: skip
    if width_name == "phone" and measured["page_overflow"] > 1:
        problems.append(f"the page scrolls sideways by {measured['page_overflow']} px")
    return problems


def test_the_book_has_pages():
    assert "index.html" in PAGES
    assert any(p.startswith("chapters/") for p in PAGES), PAGES


@pytest.mark.parametrize("page_path", PAGES)
def test_page(browser, book_url, page_path):
    host = urlsplit(book_url).netloc
    outside, console_errors = [], []
    context = browser.new_context()
    page = context.new_page()

    def route(route):
        if urlsplit(route.request.url).netloc == host:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    response = page.goto(book_url + page_path, wait_until="networkidle")
    assert response is not None, page_path
    assert response.ok, f"{page_path}: HTTP {response.status}"
    report = page.evaluate(INSPECT)
    page.wait_for_load_state("networkidle")
    context.close()

    assert outside == [], f"{page_path} requested other hosts: {outside}"
    assert console_errors == [], f"{page_path} console errors: {console_errors}"
    assert report["untypeset"] == [], f"{page_path}: math left untypeset: {report['untypeset']}"
    assert report["errors"] == [], f"{page_path}: TeX errors: {report['errors']}"
    assert report["raw"] == [], f"{page_path}: raw TeX delimiters in the text: {report['raw']}"
    assert report["escapes"] == [], f"{page_path}: TeX escapes shown as text: {report['escapes']}"
    assert report["stray"] == [], f"{page_path}: a cell prints a lone value: {report['stray']}"
    assert report["equations"] >= report["math"]
    TOTALS["pages"] += 1
    TOTALS["equations"] += report["equations"]
    print(f"{page_path}: {report['equations']} equations typeset")


@pytest.mark.parametrize("width_name", WIDTHS)
@pytest.mark.parametrize("page_path", PAGES)
def test_equations_fit(browser, book_url, page_path, width_name):
    """Every display equation fits: the text column on a desktop, its numbered box on a phone.

    Only on the API page (MAY_SCROLL) may one too wide for a phone scroll in its own box, with a
    visible cue; nowhere may the page itself scroll sideways.
    """
    phone = width_name == "phone"
    height = 800 if width_name == "desktop" else 844
    context = screen(browser, WIDTHS[width_name], phone=phone, height=height, scale=3)
    page = context.new_page()
    page.goto(book_url + page_path, wait_until="networkidle")
    measured = page.evaluate(MEASURE)
    context.close()
    problems = fit_problems(measured, width_name, may_scroll=page_path in MAY_SCROLL)
    FIT[width_name] += len(measured["equations"])
    assert problems == [], f"{page_path} at {WIDTHS[width_name]} px:\n  " + "\n  ".join(problems)


def test_fit_problems_names_each_case():
    """The rules themselves, on made-up measurements: each kind of misfit is reported."""

    def eq(natural, client, scroll, own_scroll=True, right=300, cue=True):
        return {"tex": "x", "where": "#e", "natural": natural, "client": client, "scroll": scroll,
                "own_scroll": own_scroll, "right": right, "cue": cue}  # fmt: skip

    def page(*equations, overflow=0, window=1280):
        return {"column": 600, "window": window, "equations": list(equations), "page_overflow": overflow}

    assert fit_problems(page(eq(500, 560, 500)), "desktop") == []
    assert "cut off" in fit_problems(page(eq(650, 560, 650)), "desktop")[0]  # wider than the column
    assert "cut off" in fit_problems(page(eq(590, 560, 590)), "desktop")[0]  # its box scrolls
    phone = page(eq(650, 340, 650, own_scroll=True), window=390)
    assert "cut off on a phone" in fit_problems({**phone, "column": 340}, "phone")[0]
    assert fit_problems({**phone, "column": 340}, "phone", may_scroll=True) == []  # scrolls: fine
    beside_number = page(eq(300, 280, 343), window=390)  # fits the column, not its numbered box
    assert "cut off on a phone" in fit_problems({**beside_number, "column": 340}, "phone")[0]
    assert fit_problems({**page(eq(270, 280, 270), window=390), "column": 340}, "phone") == []
    tall = page({**eq(500, 560, 500), "vclip": 6})
    assert "cut at the top or bottom (content 6 px taller" in fit_problems(tall, "desktop")[0]
    assert fit_problems(page({**eq(500, 560, 500), "vclip": 1}), "desktop") == []  # rounding
    shrunk = {**page({**eq(270, 280, 280), "own_size_scroll": 300}, window=390), "column": 340}
    assert "only once set smaller" in fit_problems(shrunk, "narrow")[0]
    hidden = page(eq(650, 340, 650, cue=False), window=390)
    assert "no visible cue" in fit_problems({**hidden, "column": 340}, "phone", may_scroll=True)[0]
    cut = {**page(window=390), "footer": [{"title": "Next 2. Backpropagation", "overflow": 30, "right": 420}]}
    assert "footer link cut off" in fit_problems({**cut, "column": 340}, "phone")[0]
    whole = {
        **page(window=390),
        "footer": [{"title": "Next 2. Backpropagation", "overflow": 0, "right": 380}],
    }
    assert fit_problems({**whole, "column": 340}, "phone") == []
    wide_table = {**page(), "tables": [{"where": "t", "head": "topic", "width": 700, "room": 600}]}
    assert "table wider than its room" in fit_problems(wide_table, "desktop")[0]
    bare = {"where": "t", "head": "topic", "width": 600, "room": 600, "scrolls": True, "cue": False}
    assert "table scrolls with no visible cue" in fit_problems({**page(), "tables": [bare]}, "desktop")[0]
    assert fit_problems({**page(), "tables": [{**bare, "cue": True}]}, "desktop") == []
    code = {"where": "c", "line": "x = 1", "scroll": 760, "client": 684, "cue": True}
    assert "code cut off (760 > 684 px)" in fit_problems({**page(), "code": [code]}, "desktop")[0]
    assert fit_problems({**page(window=390), "code": [code]}, "phone") == []  # scrolls, with the cue
    assert (
        "code scrolls with no visible cue"
        in fit_problems({**page(), "code": [{**code, "cue": False}]}, "phone")[0]
    )
    stuck = page(eq(650, 340, 650, own_scroll=False, right=700), window=390, overflow=310)
    problems = fit_problems({**stuck, "column": 340}, "phone", may_scroll=True)
    assert "does not scroll in its own box" in problems[0]
    assert "the page scrolls sideways by 310 px" in problems[-1]


@pytest.mark.parametrize(("overflow", "cue", "width_name", "may_scroll", "misfits"),
                         [("auto", True, "phone", True, 0), ("auto", False, "phone", True, 1),
                          ("visible", True, "phone", True, 2), ("auto", True, "phone", False, 1),
                          ("auto", True, "desktop", False, 1)])  # fmt: skip
def test_measure_sees_a_wide_equation(browser, overflow, cue, width_name, may_scroll, misfits):
    """MEASURE in a real browser, on a made-up page with one 900 px equation."""
    context = browser.new_context(viewport={"width": WIDTHS[width_name], "height": 600})
    page = context.new_page()
    page.set_content(
        '<meta name="viewport" content="width=device-width">'
        '<article class="bd-article" style="max-width: 600px; padding: 0 10px">'
        f'<mjx-container display="true" class="{"rnndoc-scrolls" if cue else ""}"'
        f' style="display: block; overflow-x: {overflow}">'
        '<mjx-math style="display: inline-block; width: 900px">x</mjx-math></mjx-container></article>'
        '<script>document.documentElement.dataset.rnndocFitted = "1";</script>'
    )
    problems = fit_problems(page.evaluate(MEASURE), width_name, may_scroll=may_scroll)
    context.close()
    assert len(problems) == misfits, problems


@pytest.mark.parametrize(("overflow", "height", "misfits"),
                         [("auto", 40, 1), ("hidden", 40, 1), ("auto", 80, 0), ("visible", 40, 0)])  # fmt: skip
def test_measure_sees_an_equation_cut_at_the_top(browser, overflow, height, misfits):
    """MEASURE in a real browser: a 60 px tall equation in a box of ``height`` px that clips
    or scrolls (``overflow``) is reported as cut; in a taller box, or one that lets it show, not."""
    context = browser.new_context(viewport={"width": WIDTHS["desktop"], "height": 600})
    page = context.new_page()
    page.set_content(
        '<article class="bd-article" style="max-width: 600px; padding: 0 10px"><div class="math">'
        f'<mjx-container display="true" style="display: block; overflow: {overflow}; height: {height}px">'
        '<mjx-math style="display: inline-block; width: 300px; height: 60px">x</mjx-math>'
        "</mjx-container></div></article>"
        '<script>document.documentElement.dataset.rnndocFitted = "1";</script>'
    )
    problems = fit_problems(page.evaluate(MEASURE), "desktop")
    context.close()
    assert len(problems) == misfits, problems
    assert all("cut at the top or bottom (content 20 px taller" in p for p in problems), problems


def test_page_helpers_stack_a_wide_table_and_mark_a_scrolling_equation(browser):
    """docs/_static/rnndoc.js and rnndoc.css on a made-up phone page: the wide table of text is
    stacked (each cell labelled with a copy of its column's head, math included) and fits; the
    wide table of numbers keeps its columns and scrolls with the cue; an equation a little too
    wide is set smaller and fits; the far too wide one scrolls in its box, which is marked and
    fades at its clipped edge; a line above the scrolling table and above the code block too
    long for the phone says that it scrolls; a figure's image becomes a link to its file."""
    static = Path(__file__).resolve().parents[1] / "docs" / "_static"
    context = browser.new_context(viewport={"width": WIDTHS["phone"], "height": 800}, is_mobile=True)
    page = context.new_page()
    cells = "".join(f"<td>the rule for <code>weight_hh_l{i}_reverse_and_more</code></td>" for i in range(4))
    numbers = "".join(f"<td>{1234567.0 + i:.6e}</td>" for i in range(12))
    page.set_content(
        '<meta name="viewport" content="width=device-width">'
        '<article class="bd-article" style="padding: 0 10px"><div class="math">'
        '<mjx-container display="true" style="display: block; overflow: auto hidden">'
        '<mjx-math style="display: inline-block; width: 900px">x</mjx-math></mjx-container></div>'
        '<div class="math"><mjx-container display="true" style="display: block; overflow: auto hidden">'
        '<mjx-math style="display: inline-block; width: 30em">y</mjx-math></mjx-container></div>'
        '<table id="text"><thead><tr><th><mjx-container class="MathJax">a</mjx-container></th>'
        "<th>b</th><th>c</th><th>d</th></tr></thead>"
        f"<tbody><tr>{cells}</tr></tbody></table>"
        f'<table id="numbers"><thead><tr>{"<th>x</th>" * 12}</tr></thead>'
        f"<tbody><tr>{numbers}</tr><tr>{numbers}</tr></tbody></table>"
        '<div class="highlight" id="code"><pre style="overflow-x: auto">'
        f"for step in range(steps):  # {'a long comment ' * 6}</pre></div>"
        '<div class="highlight" id="short"><pre style="overflow-x: auto">x = 1</pre></div>'
        '<figure><img src="fig.png" alt="a figure"></figure></article>'
    )
    page.add_style_tag(path=str(static / "rnndoc.css"))
    page.add_script_tag(path=str(static / "rnndoc.js"))
    measured = page.evaluate(MEASURE)
    marks = page.evaluate("""() => ({
      table: document.querySelector('#text').className,
      label: document.querySelector('td').dataset.label,
      label_math: document.querySelectorAll('#text td .rnndoc-label mjx-container').length,
      label_shown: getComputedStyle(document.querySelector('#text td .rnndoc-label')).display,
      numbers: document.querySelector('#numbers').className,
      hints: Array.from(document.querySelectorAll('.rnndoc-scroll-hint'))
        .map(hint => hint.nextElementSibling.id),
      figure_link: document.querySelector('figure a.rnndoc-figure-link img') !== null
        && document.querySelector('figure a').getAttribute('href'),
      box: document.querySelector('mjx-container').className,
      near: document.querySelectorAll('mjx-container')[1].className,
      near_size: document.querySelectorAll('mjx-container')[1].style.fontSize,
      mask: getComputedStyle(document.querySelector('mjx-container')).maskImage
        || getComputedStyle(document.querySelector('mjx-container')).webkitMaskImage,
    })""")
    context.close()
    assert marks["table"] == "rnndoc-stacked", marks
    assert marks["label"] == "a", marks
    assert marks["label_math"] == 1, marks  # the label copies the head's math
    assert marks["label_shown"] == "block", marks
    numbers_marks = {"rnndoc-scroll-table", "rnndoc-scrolls", "rnndoc-scrolls-at-start"}
    assert set(marks["numbers"].split()) == numbers_marks, marks  # kept a table: it scrolls
    # a line says so above the table and above the code block that scroll (not the short one)
    assert marks["hints"] == ["numbers", "code"], marks
    assert marks["figure_link"] == "fig.png", marks
    assert set(marks["box"].split()) >= {"rnndoc-scrolls", "rnndoc-scrolls-at-start"}, marks
    assert "linear-gradient" in marks["mask"], marks
    assert marks["near"] == "", marks  # fits once smaller: no cue needed
    assert 85 <= float(marks["near_size"].rstrip("%")) < 100, marks
    # the far too wide equation scrolls with the cue: allowed where scrolling is (the API page)
    assert fit_problems(measured, "phone", may_scroll=True) == [], measured
    # in a chapter both are problems: the far too wide one is cut off, and the one set smaller
    # fits only once rnndoc.js has run (until then a reader sees it cut at its box's edge)
    problems = fit_problems(measured, "phone")
    assert [problem.rsplit(": ", 1)[-1] for problem in problems] == ["x", "y"], problems


@pytest.mark.parametrize("served_under", ["root", "sub-path"])
@pytest.mark.parametrize("missing", ["no-such-page.html", "chapters/deep/no/such/page.html"])
def test_404_page_works_at_any_depth(browser, book_url, book_url_under_path, served_under, missing):
    """A missing URL gets the styled 404 page, whose assets and links load, wherever the book is served."""
    base = book_url if served_under == "root" else book_url_under_path
    url = base + missing
    bad, console_errors = [], []
    context = browser.new_context()
    page = context.new_page()

    def response(r):
        # the root finder probes from the top folder down: misses above the root are expected
        probe = r.request.method == "HEAD" and r.url.endswith("_static/favicon.png")
        if r.status >= 400 and r.url != url and not probe:
            bad.append(f"{r.status} {r.url}")

    page.on("response", response)
    page.on("requestfailed", lambda r: bad.append(f"failed {r.url}"))
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    response_ = page.goto(url, wait_until="networkidle")
    assert response_ is not None
    assert response_.status == 404
    assert "Page not found" in page.inner_text("main")
    styled = page.evaluate("getComputedStyle(document.querySelector('.bd-sidebar-primary')).display")
    home = page.get_attribute("main a[href$='index.html']", "href")
    assert urljoin(url, home) == base + "index.html", home
    assert page.goto(urljoin(url, home)).ok, home
    context.close()
    assert bad == [], bad  # every asset and the home link loaded
    # Allowed: Chromium's notes that the document itself, and the probes above the root, were 404s.
    document_404 = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert set(console_errors) <= {document_404}, console_errors
    if served_under == "root":
        assert len(console_errors) <= 1, console_errors  # served at the root, no probe misses
    assert styled != "inline", "the theme's stylesheet did not load"


def test_summary(capsys):
    """Runs last (file order): prints the totals for the log."""
    with capsys.disabled():
        print(
            f"\nbrowser check: {TOTALS['pages']} pages, {TOTALS['equations']} typeset equations, under {HTML}"
            f"\ndisplay equations that fit: {FIT['desktop']} at {WIDTHS['desktop']} px (none cut off), "
            f"{FIT['phone']} at {WIDTHS['phone']} px (a little too wide: set smaller; wider: scroll"
            " in their own box, edges faded)"
        )
    assert TOTALS["pages"] == len(PAGES)
