"""Serve the built book on 127.0.0.1 and drive Debian's Chromium with Playwright.

Nothing is downloaded: Playwright launches the system browser (``RNNDOC_CHROMIUM``,
default ``/usr/bin/chromium``), and every request to a host other than the local
server is aborted and recorded.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
from _book import HTML

CHROMIUM = os.environ.get("RNNDOC_CHROMIUM", "/usr/bin/chromium")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the book; a missing path gets the book's 404.html, as GitHub Pages does."""

    def log_message(self, format, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        page = HTML / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _UnderPathHandler(_QuietHandler):
    """Serves the book under /some/sub/path/, as a project site is served."""

    prefix = "/some/sub/path/"

    def translate_path(self, path):
        inside = "/" + path[len(self.prefix) :] if path.startswith(self.prefix) else "/no-such-file"
        return super().translate_path(inside)


def _serve(handler_class, path: str):
    """Serve the built book with ``handler_class`` from a thread; yield its base URL."""
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built book at {HTML}: run `nox -s docs` first")
    handler = functools.partial(handler_class, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def book_url_under_path():
    """Base URL of the book served under a sub-path (/some/sub/path/) it was not built for."""
    yield from _serve(_UnderPathHandler, _UnderPathHandler.prefix)


@pytest.fixture(scope="session")
def book_url():
    """Base URL of the built book, served at the root."""
    yield from _serve(_QuietHandler, "/")


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium, with background networking off (the machine has none)."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (only this session has it)

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's chromium or set RNNDOC_CHROMIUM")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()
