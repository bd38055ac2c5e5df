"""Accessibility of every built page, measured in Debian's Chromium.

- axe-core (the copy that the axe-playwright-python wheel ships), WCAG 2.1 A and AA rules,
  on every page in light and dark mode at a desktop and a phone width: any critical or
  serious violation fails, named by page, rule and element.
- The keyboard: Tab through each page; every element that takes the focus must show a focus
  indicator (its outline or box-shadow differs from the unfocused element's: WCAG 2.4.7).
- MathJax's accessibility components come from the book itself: no request under
  _static/mathjax fails, and the explorer loads and speaks an equation offline.
"""

from __future__ import annotations

import collections

import pytest
from _book import HTML, pages, screen
from axe_playwright_python.sync_playwright import Axe

PAGES = pages()
MODES = ("light", "dark")
#: CSS px; the phone is the narrowest common one (iPhone SE/mini class), 375 px.
WIDTHS = {"desktop": 1280, "phone": 375}
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
BLOCKING = ("critical", "serious")
#: (rule, impact) -> elements found over every run, all impacts (printed by test_a11y_summary)
FOUND: collections.Counter[tuple[str, str]] = collections.Counter()
RUNS = {"axe": 0, "focus stops": 0}
AXE = Axe()

# Waits for the page to settle: MathJax typeset, the book's page helpers
# (docs/_static/rnndoc.js) done, and the colour transitions of a change of mode finished
# (mid-way, text and background are neither mode's colours). Returns the theme shown.
SETTLE = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  for (let i = 0; i < 50 && !document.documentElement.dataset.rnndocFitted; i++) {
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  const finite = document.getAnimations().filter(a => a.effect && a.effect.getTiming().iterations !== Infinity);
  await Promise.race([Promise.all(finite.map(a => a.finished.catch(() => null))),
                      new Promise(resolve => setTimeout(resolve, 3000))]);
  return document.documentElement.dataset.theme;
}"""


def open_page(browser, url: str, mode: str, width_name: str):
    """A new context and page showing ``url`` in ``mode`` (light or dark) at ``width_name``.

    The mode is chosen as a reader's choice is kept: pydata-sphinx-theme reads localStorage
    "mode" and "theme" before it paints, and sets ``data-theme`` on <html>.
    """
    phone = width_name == "phone"
    context = screen(browser, WIDTHS[width_name], phone=phone, height=812 if phone else 800, scale=2,
                     color_scheme=mode)  # fmt: skip
    context.add_init_script(
        f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');"
    )
    page = context.new_page()
    page.goto(url, wait_until="networkidle")
    shown = page.evaluate(SETTLE)
    assert shown == mode, f"{url}: data-theme is {shown!r}, not {mode!r}"
    return context, page


def axe_problems(results: dict, where: str) -> list[str]:
    """One line per element of each critical or serious violation; counts every violation in FOUND."""
    problems = []
    for violation in results["violations"]:
        FOUND[violation["id"], violation["impact"]] += len(violation["nodes"])
        if violation["impact"] not in BLOCKING:
            continue
        for node in violation["nodes"]:
            summary = " ".join(node.get("failureSummary", "").split())[:200]
            problems.append(f"{where}: {violation['id']} ({violation['impact']}): "
                            f"{' '.join(map(str, node['target']))}: {summary}")  # fmt: skip
    return problems


# Shows the page in the other mode (as the theme's switch does: data-theme on <html>) or at
# another width (the window resized: rnndoc.js fits the tables again, then marks the page).
SHOW = """async ([mode, width]) => {
  document.documentElement.dataset.mode = mode;
  document.documentElement.dataset.theme = mode;
  if (document.documentElement.clientWidth !== width) {
    delete document.documentElement.dataset.rnndocFitted;
    return true;  // the caller resizes the window, then waits for SETTLE
  }
  return false;
}"""


@pytest.mark.parametrize("page_path", PAGES)
def test_axe(browser, book_url, page_path):
    """No critical or serious WCAG 2.1 A/AA violation that axe-core finds, in light and dark
    mode, at the desktop and the phone width (one load of the page, shown four ways)."""
    context, page = open_page(browser, book_url + page_path, "light", "desktop")
    problems = []
    for width_name, width in WIDTHS.items():
        for mode in MODES:
            if page.evaluate(SHOW, [mode, width]):
                page.set_viewport_size({"width": width, "height": 812 if width_name == "phone" else 800})
            assert page.evaluate(SETTLE) == mode
            results = AXE.run(page, options=AXE_OPTIONS).response
            RUNS["axe"] += 1
            problems += axe_problems(results, f"{page_path} ({mode}, {width} px)")
    context.close()
    assert problems == [], "\n  ".join(["axe-core:", *problems])


def test_axe_problems_reports_page_rule_and_target():
    """The report, on a made-up result: serious and critical fail, others are only counted."""
    node = {"target": ["#x > a"], "failureSummary": "Fix any of the following:\n  Element has low contrast"}
    results = {"violations": [
        {"id": "color-contrast", "impact": "serious", "nodes": [node]},
        {"id": "region", "impact": "moderate", "nodes": [node, node]},
    ]}  # fmt: skip
    before = FOUND.copy()
    problems = axe_problems(results, "p.html (dark, 375 px)")
    expected = "p.html (dark, 375 px): color-contrast (serious): #x > a: Fix any of the following: "
    assert problems == [expected + "Element has low contrast"]
    assert FOUND - before == collections.Counter(
        {("color-contrast", "serious"): 1, ("region", "moderate"): 2}
    )
    FOUND.clear()
    FOUND.update(before)


# Before the first Tab: the outline and box-shadow of each focusable element and of its
# two nearest ancestors (a search field's ring is drawn by its box, with :focus-within),
# unfocused.
FOCUS_BASELINE = """() => {
  const look = el => { const s = getComputedStyle(el);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.outlineOffset, s.boxShadow].join('|'); };
  window.rnndocLook = look;
  window.rnndocUnfocused = new Map();
  document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex], [contenteditable]')
    .forEach(el => {
      for (let e = el, up = 0; e && up < 3; e = e.parentElement, up++) { window.rnndocUnfocused.set(e, look(e)); }
    });
}"""

# After a Tab: the focused element, and whether an outline or box-shadow that was not there
# unfocused shows the focus, on the element or on one of its two nearest ancestors.
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) { return null; }
  const transparent = c => c === 'transparent' || /rgba\\(.*,\\s*0\\)$/.test(c);
  const ring = e => {
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 && !transparent(s.outlineColor);
    return (outline || s.boxShadow !== 'none') && window.rnndocLook(e) !== window.rnndocUnfocused.get(e);
  };
  let shown = false;
  for (let e = el, up = 0; e && up < 3 && !shown; e = e.parentElement, up++) { shown = ring(e); }
  const box = el.getBoundingClientRect();
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  return {
    name: name.slice(0, 90),
    text: (el.getAttribute('aria-label') || el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40),
    shown: shown,
    sized: box.width > 0 && box.height > 0,
    key: el.dataset.rnndocFocusKey || (el.dataset.rnndocFocusKey = String(Math.random())),
    inline_math: el.tagName === 'MJX-CONTAINER' && el.getAttribute('display') !== 'true',
  };
}"""

#: A chapter holds a few hundred tab stops (each display equation is one: MathJax's menu); enough.
MAX_TABS = 1500


def focus_problems(page, where: str) -> list[str]:
    """Tab through the page from its top until the focus comes back round; list every stop
    that shows no focus indicator."""
    page.evaluate(FOCUS_BASELINE)
    seen, problems = set(), []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop is None:
            if seen:
                break  # back to the top: the focus went round once
            continue
        if stop["key"] in seen:
            break
        seen.add(stop["key"])
        if stop["sized"] and not stop["shown"]:
            problems.append(f"{where}: no focus indicator on {stop['name']} ({stop['text']!r})")
        if stop["inline_math"]:  # rnndoc.js takes inline formulas out of the tab order
            problems.append(f"{where}: an inline formula is a Tab stop ({stop['text']!r})")
    RUNS["focus stops"] += len(seen)
    return problems


@pytest.mark.parametrize("page_path", PAGES)
def test_focus_is_visible(browser, book_url, page_path):
    """Every element that Tab reaches shows a focus ring (desktop width, light mode; the
    phone sample below is dark)."""
    context, page = open_page(browser, book_url + page_path, "light", "desktop")
    problems = focus_problems(page, f"{page_path} (light)")
    context.close()
    assert problems == [], "\n  ".join(["keyboard:", *sorted(set(problems))])


#: One page of each kind for the phone: a chapter with folded checks and exercises, the
#: notation page (stacked tables), the references, the API page.
PHONE_SAMPLE = ["chapters/gru.html", "notation.html", "references.html", "api.html"]


@pytest.mark.parametrize("page_path", PHONE_SAMPLE)
def test_focus_is_visible_on_a_phone(browser, book_url, page_path):
    """The same at phone width, in dark mode, on a page of each kind."""
    context, page = open_page(browser, book_url + page_path, "dark", "phone")
    problems = focus_problems(page, f"{page_path} (dark, phone)")
    context.close()
    assert problems == [], "\n  ".join(["keyboard:", *sorted(set(problems))])


# The formulas and the buttons as rnndoc.js leaves them: each formula's tabindex and whether it
# keeps MathJax's assistive MathML; each copy button's and fold button's name.
NAMES = """() => {
  const math = [...document.querySelectorAll('article.bd-article mjx-container')].map(box => ({
    display: box.getAttribute('display') === 'true',
    tabindex: box.getAttribute('tabindex'),
    mml: Boolean(box.querySelector('mjx-assistive-mml math')),
  }));
  const names = sel => [...document.querySelectorAll(sel)].map(b => ({
    label: b.getAttribute('aria-label'), expanded: b.getAttribute('aria-expanded'),
    title: (b.closest('.admonition-title') || b.parentElement).textContent.trim(),
  }));
  return {math: math, copy: names('button.copybtn'), toggle: names('button.toggle-button')};
}"""


@pytest.mark.parametrize("page_path", ["chapters/gru.html", "chapters/bptt.html"])
def test_math_tab_order_and_button_names(browser, book_url, page_path):
    """Inline formulas are out of the tab order but keep their MathML for screen readers;
    display equations are Tab stops; copy buttons are named "Copy code"; each fold button is
    named from its box's title ("Show How we know"), and "Hide ..." once open."""
    context, page = open_page(browser, book_url + page_path, "light", "desktop")
    found = page.evaluate(NAMES)
    inline = [m for m in found["math"] if not m["display"]]
    display = [m for m in found["math"] if m["display"]]
    assert inline, found["math"][:5]
    assert display, found["math"][:5]
    assert {m["tabindex"] for m in inline} == {"-1"}
    assert {m["tabindex"] for m in display} == {"0"}
    assert all(m["mml"] for m in found["math"]), "MathJax's assistive MathML is gone"
    assert found["copy"]
    assert {b["label"] for b in found["copy"]} == {"Copy code"}
    assert found["toggle"], "the page has folded boxes"
    for button in found["toggle"]:
        assert button["label"].startswith("Show "), button
        assert button["expanded"] == "false", button
        assert button["label"] != "Show hidden content", button
    if page_path == "chapters/gru.html":
        assert "Show How we know" in {b["label"] for b in found["toggle"]}
        assert any(b["label"].startswith("Show solution to Exercise") for b in found["toggle"])
    page.locator("button.toggle-button").first.click()
    opened = page.evaluate(NAMES)["toggle"][0]
    assert opened["label"].startswith("Hide "), opened
    assert opened["expanded"] == "true", opened
    context.close()


# After the explorer has started: the equations' speech (SRE's text, MathJax puts it in
# aria-label), and the words spoken for the first display equation's first part.
SPEECH = """async () => {
  for (let i = 0; i < 100 && !document.querySelector('mjx-container[aria-label]'); i++) {
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  const box = document.querySelector('mjx-container[display="true"]');
  return {
    explorer: Boolean(MathJax._.a11y && MathJax._.a11y.explorer),
    spoken: document.querySelectorAll('mjx-container[aria-label]').length,
    equations: document.querySelectorAll('mjx-container').length,
    speech: (box && box.getAttribute('aria-label') || '').slice(0, 120),
  };
}"""


def test_mathjax_accessibility_works_offline(browser, book_url):
    """MathJax's explorer, switched on from its menu, loads its components (speech rule
    engine, MathML input, the rules' English) from the book: no request under
    _static/mathjax fails, none goes elsewhere, and every equation is then spoken."""
    page_path = "chapters/gru.html"
    context = browser.new_context(viewport={"width": WIDTHS["desktop"], "height": 800})
    page = context.new_page()
    failed, loaded = [], []

    def response(r):
        if "/_static/mathjax/" in r.url:
            loaded.append(r.url.split("/_static/mathjax/")[1].split("?")[0])
        if r.status >= 400:
            failed.append(f"{r.status} {r.url}")

    page.on("response", response)
    # the reload stops the menu's first loads mid-way (net::ERR_ABORTED): not a failure
    page.on("requestfailed", lambda r: r.failure == "net::ERR_ABORTED" or failed.append(f"failed {r.url}"))
    page.goto(book_url + page_path, wait_until="networkidle")
    page.evaluate(SETTLE)
    assert page.evaluate("document.querySelectorAll('mjx-container[aria-label]').length") == 0
    # as a reader does: the equation's menu, Accessibility > Activate; rnndoc.js then loads
    # the page again (MathJax issue 3124)
    page.click('mjx-container[display="true"]', button="right")
    page.locator(".CtxtMenu_MenuItem", has_text="Accessibility").first.hover()
    with page.expect_navigation(wait_until="networkidle"):
        page.locator(".CtxtMenu_MenuItem", has_text="Activate").first.click()
    page.evaluate(SETTLE)
    spoken = page.evaluate(SPEECH)
    context.close()
    assert failed == [], failed
    assert {"a11y/explorer.js", "a11y/sre.js", "input/mml.js", "sre/mathmaps/en.json"} <= set(loaded), loaded
    assert spoken["explorer"], spoken
    assert spoken["spoken"] == spoken["equations"] > 0, spoken
    assert "Subscript" in spoken["speech"], spoken  # speech rule engine's English words


def test_a11y_summary(capsys):
    """Runs last in this file: what axe-core found over all runs, by rule and impact."""
    with capsys.disabled():
        lines = [f"  {rule} ({impact}): {count}" for (rule, impact), count in sorted(FOUND.items())]
        print(f"\naxe-core: {RUNS['axe']} runs (pages x light/dark x {'/'.join(map(str, WIDTHS.values()))} px)"
              f" under {HTML}; elements in violation by rule:", *(lines or ["  none"]), sep="\n")  # fmt: skip
        print(f"keyboard: {RUNS['focus stops']} focus stops checked")
