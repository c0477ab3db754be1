"""smol's one address policy (`smol_core.plugin_api`): URLs refused before they are opened, every
redirect hop re-checked, downloads bounded. Servers run on 127.0.0.1 only."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from smol_core.plugin_api import (
    AddressPolicy,
    AddressRefusedError,
    DownloadTooLargeError,
    check_url,
    guarded_request,
    url_refusal,
)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/redirect-to/"):
            self.send_response(302)
            self.send_header("Location", self.path.removeprefix("/redirect-to/"))
            self.end_headers()
            return
        if self.path == "/big":
            body = b"x" * 5000
        elif self.path == "/liar":  # no Content-Length: the size is only seen while reading
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"y" * 5000)
            return
        else:
            body = b"hello"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _no_environment_grant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "not file:"),
        ("FILE:///etc/passwd", "not file:"),
        ("data:text/html,hi", "not data:"),
        ("javascript:alert(1)", "not javascript:"),
        ("chrome://settings", "not chrome:"),
        ("view-source:http://127.0.0.1/", "not view-source:"),
        ("http://127.0.0.1:8000/", "loopback addresses"),
        ("http://localhost:8000/", "loopback addresses"),
        ("http://0x7f.1/", "loopback addresses"),
        ("http://[::ffff:127.0.0.1]/", "loopback addresses"),
        ("http://10.1.2.3/", "private addresses"),
        ("http://192.168.1.1/", "private addresses"),
        ("http://169.254.169.254/latest/meta-data", "cloud metadata"),
        ("http://metadata.google.internal/", "cloud metadata hosts"),
        ("http://[fe80::1]/", "link-local addresses"),
        ("http://224.0.0.1/", "multicast addresses"),
        ("http:///nohost", "names no host"),
    ],
)
def test_urls_that_reach_the_host_or_its_network_are_refused(url: str, reason: str) -> None:
    assert reason in (url_refusal(url) or "")
    with pytest.raises(AddressRefusedError, match="SMOL_WEB_ALLOW_PRIVATE"):
        check_url(url)


def test_a_public_address_passes_and_the_user_can_allow_one_host_and_port() -> None:
    assert url_refusal("http://8.8.8.8/", resolve=False) is None
    allowed = AddressPolicy.parse(["127.0.0.1:8123"])
    assert url_refusal("http://127.0.0.1:8123/x", allowed) is None
    assert "loopback" in (url_refusal("http://127.0.0.1:8124/x", allowed) or "")
    assert "not file:" in (url_refusal("file:///etc/passwd", AddressPolicy(allow_all=True)) or "")


def test_a_redirect_to_another_port_on_loopback_is_refused_at_that_hop(server: str) -> None:
    allowed = AddressPolicy.parse([server])
    assert guarded_request("GET", f"http://{server}/", policy=allowed).text == "hello"
    with pytest.raises(AddressRefusedError, match=r"127\.0\.0\.1:1/secret"):
        guarded_request("GET", f"http://{server}/redirect-to/http://127.0.0.1:1/secret", policy=allowed)
    with pytest.raises(AddressRefusedError, match="not file:"):
        guarded_request("GET", f"http://{server}/redirect-to/file:///etc/passwd", policy=allowed)


def test_a_loopback_server_is_refused_without_a_grant(server: str) -> None:
    with pytest.raises(AddressRefusedError, match="loopback"):
        guarded_request("GET", f"http://{server}/")


def test_downloads_are_bounded_whether_or_not_the_size_is_announced(server: str) -> None:
    allowed = AddressPolicy.parse([server])
    with pytest.raises(DownloadTooLargeError, match="5000 bytes"):
        guarded_request("GET", f"http://{server}/big", policy=allowed, max_bytes=1000)
    with pytest.raises(DownloadTooLargeError, match="more than the 1000 bytes"):
        guarded_request("GET", f"http://{server}/liar", policy=allowed, max_bytes=1000)
    assert len(guarded_request("GET", f"http://{server}/liar", policy=allowed).content) == 5000


def test_an_allowed_host_name_never_unlocks_the_cloud_metadata_address() -> None:
    import ipaddress

    metadata = ipaddress.ip_address("169.254.169.254")
    by_name = AddressPolicy.parse(["intranet.example"])
    assert by_name.refuse_address("intranet.example", 80, ipaddress.ip_address("10.0.0.5")) is None
    assert "cloud metadata" in (by_name.refuse_address("intranet.example", 80, metadata) or "")
    assert AddressPolicy.parse(["169.254.169.254"]).refuse_address("x", 80, metadata) is None
    assert AddressPolicy(allow_all=True).refuse_address("x", 80, metadata) is None
