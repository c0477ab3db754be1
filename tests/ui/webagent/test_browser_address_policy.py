"""The webagent's browser reaches only what smol's address policy allows (as the web tools do):
no `file:` pages, no loopback or private hosts, whether named by `go_to`, reached by a redirect, by a
link, or requested by a page (a frame, an image, a script). Servers run on 127.0.0.1 only; the user
allows the one "public" stand-in site by host and port, and nothing else on the machine."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browser_kit import CHROMEDRIVER, CHROMIUM, browser_missing

from smol_core.errors import AgentToolExecutionError

pytest.importorskip("helium")

from smol_ui_webagent import BrowserSession, browser_tools  # noqa: E402

pytestmark = pytest.mark.slow

SECRET = "TOP-SECRET-LOOPBACK-ONLY"


class Site:
    """A site on 127.0.0.1 that records the paths it was asked for."""

    def __init__(self, pages: dict[str, tuple[int, dict[str, str], str]]) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                status, headers, body = pages.get(self.path, (404, {}, "not here"))
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        self.url = f"http://{self.address}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def internal() -> Iterator[Site]:
    """A service only this machine can reach (an admin page, a database UI): never to be shown."""
    site = Site({"/": (200, {}, f"<html><body><p>{SECRET}</p></body></html>")})
    yield site
    site.close()


@pytest.fixture(scope="module")
def host_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("host") / "secret.txt"
    path.write_text("HOST-FILE-CONTENT-NEVER-SHOWN")
    return path


@pytest.fixture(scope="module")
def public(internal: Site, host_file: Path) -> Iterator[Site]:
    """The stand-in for a site on the internet, which tries every way into `internal`."""
    pages = {
        "/": (200, {}, "<html><body><p>Hello from the public site</p></body></html>"),
        "/redirect": (302, {"Location": internal.url + "/"}, ""),
        "/to-file": (302, {"Location": host_file.as_uri()}, ""),
        "/embeds": (
            200,
            {},
            f'<html><body><p>Embeds</p><iframe src="{internal.url}/"></iframe>'
            f'<img src="{internal.url}/img.png"><script src="{internal.url}/x.js"></script>'
            f'<script>fetch("{internal.url}/fetched").catch(() => 0)</script></body></html>',
        ),
        "/link": (200, {}, f'<html><body><a href="{internal.url}/">Admin</a></body></html>'),
        "/download": (200, {"Content-Disposition": 'attachment; filename="dropped.txt"'}, "DROPPED"),
    }
    site = Site(pages)
    yield site
    site.close()


@pytest.fixture(scope="module")
def tools(public: Site) -> Iterator[dict[str, Any]]:
    reason = browser_missing()
    if reason:
        if os.environ.get("SMOL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    os.environ.setdefault("SMOL_CHROMIUM", CHROMIUM)
    os.environ.setdefault("SMOL_CHROMEDRIVER", CHROMEDRIVER)
    with BrowserSession(
        page_load_timeout=60, find_timeout=2, allow_private_addresses=[public.address]
    ) as session:
        yield {tool.name: tool for tool in browser_tools(session)}


@pytest.fixture(autouse=True)
def _no_environment_grant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


def page_text(tools: dict[str, Any]) -> str:
    driver = tools["go_to"].session.driver
    return str(driver.execute_script("return document.documentElement.outerHTML"))


def test_the_allowed_site_opens(tools: dict[str, Any], public: Site) -> None:
    assert "Opened" in tools["go_to"](url=public.url + "/")
    assert "Hello from the public site" in page_text(tools)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/hostname",
        "FILE:///etc/passwd",
        "file://localhost/etc/hostname",
        "view-source:file:///etc/hostname",
    ],
)
def test_go_to_a_host_file_is_refused(tools: dict[str, Any], url: str, host_file: Path) -> None:
    with pytest.raises(AgentToolExecutionError, match="refused to open"):
        tools["go_to"](url=url)
    with pytest.raises(AgentToolExecutionError, match="refused to open"):
        tools["go_to"](url=host_file.as_uri())
    assert not tools["go_to"].session.current_url.startswith(("file:", "view-source:"))
    assert "HOST-FILE-CONTENT-NEVER-SHOWN" not in page_text(tools)


def test_go_to_a_loopback_service_is_refused_and_never_requested(
    tools: dict[str, Any], internal: Site
) -> None:
    before = len(internal.hits)
    for url in (internal.url + "/", f"http://localhost:{internal.server.server_address[1]}/"):
        with pytest.raises(AgentToolExecutionError, match="loopback addresses are not allowed"):
            tools["go_to"](url=url)
    assert len(internal.hits) == before
    assert SECRET not in page_text(tools)


def test_a_redirect_to_loopback_or_to_a_file_is_refused(
    tools: dict[str, Any], public: Site, internal: Site, host_file: Path
) -> None:
    before = len(internal.hits)
    with pytest.raises(AgentToolExecutionError, match="refused to open"):
        tools["go_to"](url=public.url + "/redirect")
    assert SECRET not in page_text(tools)
    assert len(internal.hits) == before
    try:
        tools["go_to"](url=public.url + "/to-file")
    except AgentToolExecutionError:
        pass
    assert not tools["go_to"].session.current_url.startswith("file:")
    assert "HOST-FILE-CONTENT-NEVER-SHOWN" not in page_text(tools)


def test_what_a_page_requests_from_loopback_is_never_requested(
    tools: dict[str, Any], public: Site, internal: Site
) -> None:
    before = len(internal.hits)
    tools["go_to"](url=public.url + "/embeds")
    tools["go_to"](url=public.url + "/")  # the page's requests have all been made (or refused) by now
    assert internal.hits[before:] == []


def test_a_link_to_loopback_is_refused_after_the_click(
    tools: dict[str, Any], public: Site, internal: Site
) -> None:
    before = len(internal.hits)
    tools["go_to"](url=public.url + "/link")
    with pytest.raises(AgentToolExecutionError, match="loopback addresses are not allowed"):
        tools["click"](text="Admin")
    assert internal.hits[before:] == []
    assert SECRET not in page_text(tools)


def test_a_page_cannot_download_files_onto_this_machine(tools: dict[str, Any], public: Site) -> None:
    session = tools["go_to"].session
    profile = Path(session._profile.name)
    try:
        tools["go_to"](url=public.url + "/download")
    except AgentToolExecutionError:
        pass  # a download is not a page: the browser may report an aborted load
    tools["go_to"](url=public.url + "/")  # the download, had it started, has been decided by now
    assert not list(profile.rglob("dropped.txt*"))
    assert not list((Path.home() / "Downloads").glob("dropped.txt*"))


def test_the_webagent_command_takes_the_users_grants() -> None:
    from smol_ui_webagent.cli import build_parser

    args = build_parser().parse_args(
        ["task", "--allow-address", "127.0.0.1:8080", "--allow-address", "10.0.0.0/8"]
    )
    assert args.allow_address == ["127.0.0.1:8080", "10.0.0.0/8"]
    assert build_parser().parse_args(["task"]).allow_address == []
