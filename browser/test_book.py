"""Every built page in a real browser: math typeset, nothing fetched from outside, no console errors."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from _book import HTML, pages

PAGES = pages()
TOTALS = {"pages": 0, "equations": 0}

# After MathJax has run, report what is left: raw TeX delimiters in the text outside code,
# .math elements that hold no typeset container, and TeX errors.
INSPECT = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const math = Array.from(document.querySelectorAll('.math'));
  const untypeset = math.filter(el => !el.querySelector('mjx-container')).map(el => el.textContent.slice(0, 80));
  const prose = document.body.cloneNode(true);  // code may quote TeX on purpose: leave it out
  prose.querySelectorAll('pre, code, script, style, mjx-container').forEach(el => el.remove());
  const text = prose.textContent;
  const raw = ['\\\\(', '\\\\[', '$$', '\\\\begin{'].filter(d => text.includes(d));
  return {
    equations: document.querySelectorAll('mjx-container').length,
    math: math.length,
    untypeset: untypeset,
    errors: Array.from(document.querySelectorAll('mjx-merror')).map(el => el.textContent.slice(0, 80)),
    raw: raw,
  };
}"""


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
    assert report["equations"] >= report["math"]
    TOTALS["pages"] += 1
    TOTALS["equations"] += report["equations"]
    print(f"{page_path}: {report['equations']} equations typeset")


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
        )
    assert TOTALS["pages"] == len(PAGES)
