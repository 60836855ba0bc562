"""The documentation site (mkdocs.yml: the README, docs/ and an API reference from the docstrings) builds in
strict mode, so a broken link or a missing API object fails; copied elsewhere, every local link of every page
resolves; and in a real headless Chromium it opens and its search finds a page. Skips without the `docs` extra."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from test_leaderboard_html import browser, in_a_browser  # noqa: F401  (the shared Chromium fixture)

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("mkdocs", reason="pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings", reason="pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built strictly, then copied to another folder and the original removed."""
    built = tmp_path_factory.mktemp("docs-site") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(built)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr[-4000:]}"
    copied = built.parent / "elsewhere" / "copy"
    shutil.copytree(built, copied)
    shutil.rmtree(built)
    return copied


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or (tag in ("img", "script") and name == "src")):
                self.links.append(value)


def test_the_site_has_every_page_and_the_api_reference(site: Path):
    pages = {p.name for p in site.glob("*.html")}
    docs = {p.stem + ".html" for p in (ROOT / "docs").glob("*.md")}
    assert docs | {"index.html", "api.html"} <= pages, docs - pages
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("sentibench.run.runner.run", "sentibench.tasks.registry.resolve", "sentibench.mteb.get_model"):
        assert f'id="{name}"' in api, f"{name} missing from the API reference"
    assert "Two commands" in (site / "index.html").read_text(encoding="utf-8"), "the README is the home page"


def test_no_local_link_breaks_in_the_copied_site(site: Path):
    broken = []
    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue  # a server's error page: its links are absolute by design
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue  # external, or an anchor on the same page
            target = (page.parent / unquote(parts.path)).resolve()
            if not (target.is_file() or (target / "index.html").is_file()):
                broken.append(f"{page.relative_to(site)} -> {link}")
    assert not broken, broken[:20]


@in_a_browser
def test_the_site_opens_and_search_finds_a_page(site: Path, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # search fetches its index: not file://
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/index.html?q=SentiCSE")
        assert "sentibench" in browser.title
        WebDriverWait(browser, 30).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".md-search-result__item a")))
        hits = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, ".md-search-result__item a")]
        assert any("senticse.html" in href for href in hits), hits
    finally:
        server.shutdown()
