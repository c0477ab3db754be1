"""Every page of the documentation site, seen in Chromium at a laptop's width: nothing is cut off.

The site is where a newcomer reads the API; a code block or a table that runs off the right edge
hides the end of a command or a signature. Each page is loaded at 1366 px (the most common laptop
width) and checked: the page itself never scrolls sideways, and any element whose content is wider
than its box lets the reader scroll it (a wide table), rather than hiding the rest. A screenshot of
each page is saved under tests/ui/artifacts/docs/ to look at.
"""

from __future__ import annotations

import functools
import html
import http.server
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import ARTIFACTS

REPOSITORY = Path(__file__).resolve().parents[2]
LAPTOP = (1366, 768)

# Elements that reach past what the reader can see, and cannot be scrolled into view: past the
# window's right edge, or past an ancestor that clips its overflow. An element inside a box that
# scrolls sideways (a wide table, a long code line) can be read, so it is not cut.
CUT_OFF = """
const cut = [];
const visibleRight = window.innerWidth;
for (const element of document.querySelectorAll('.md-content *')) {
  const right = element.getBoundingClientRect().right;
  let limit = visibleRight, scrolls = false;
  for (let box = element.parentElement; box; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowX;
    if (overflow === 'auto' || overflow === 'scroll') { scrolls = true; break; }
    if (overflow === 'hidden' || overflow === 'clip') limit = Math.min(limit, box.getBoundingClientRect().right);
  }
  if (!scrolls && right > limit + 1) {
    cut.push(element.tagName.toLowerCase() + ' ' + Math.round(right) + '>' + Math.round(limit) + ': ' +
             (element.textContent || '').trim().slice(0, 60));
  }
}
return {page: document.documentElement.scrollWidth - window.innerWidth, cut: cut.slice(0, 5)};
"""


def _site() -> Path:
    """The built site: $SMOL_SITE_DIR (scripts/test builds it there), else built now into a
    temporary folder with the docs environment (`hatch run docs:build`, a few seconds)."""
    given = os.environ.get("SMOL_SITE_DIR")
    if given and (Path(given) / "index.html").is_file():
        return Path(given)
    if shutil.which("hatch") is None:
        pytest.skip("no built site ($SMOL_SITE_DIR) and no hatch to build one (pip install hatch)")
    return Path()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = _site()
    if built != Path():
        return built
    folder = tmp_path_factory.mktemp("site") / "site"
    env = {
        name: value for name, value in os.environ.items() if not name.startswith(("HATCH_", "VIRTUAL_ENV"))
    }
    done = subprocess.run(
        ["hatch", "run", "docs:build"],
        cwd=REPOSITORY,
        env={**env, "SMOL_SITE_DIR": str(folder)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on 127.0.0.1, as `hatch run docs:serve` shows it."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _pages(site: Path) -> list[str]:
    return sorted(
        path.relative_to(site).as_posix()
        for path in site.rglob("index.html")
        if not path.relative_to(site).as_posix().startswith(("assets/", "search/"))
    )


def test_no_page_of_the_site_is_cut_off_at_a_laptops_width(browser: Any, site: Path, served: str) -> None:
    pages = _pages(site)
    assert len(pages) >= 10, pages  # the guides and the API reference
    shots = ARTIFACTS / "docs"
    shots.mkdir(parents=True, exist_ok=True)
    browser.set_window_size(*LAPTOP)
    problems: dict[str, object] = {}
    for page in pages:
        browser.get(f"{served}/{page}")
        seen = browser.execute_script(CUT_OFF)
        name = page.removesuffix("index.html").strip("/").replace("/", "_") or "home"
        browser.save_screenshot(str(shots / f"{name}.png"))
        if seen["page"] > 0 or seen["cut"]:
            problems[page] = seen
    assert problems == {}


FILE_NAME = re.compile(r"[\w/.{}-]+\.py\b")
NAMES_A_READER_CAN_USE = {"_plugin.py", "app.py", "{tool_file_name}.py"}
"""File names the API reference may show: ones a reader writes (a plugin's `_plugin.py`) or gets
(`save()`'s files), and the repository's tests (`tests/...`), which a contributor can open."""


def test_the_api_reference_names_modules_not_source_files(site: Path) -> None:
    """A reader of the site sees docstrings, not the source tree: `agents/budget.py` means nothing
    there, while `smol_core.agents.budget` can be imported and looked up."""
    named: dict[str, set[str]] = {}
    for page in (site / "reference").rglob("index.html"):
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
        files = {name for name in FILE_NAME.findall(text) if name not in NAMES_A_READER_CAN_USE}
        files = {name for name in files if not name.startswith("tests/")}
        if files:
            named[page.relative_to(site).as_posix()] = files
    assert named == {}
