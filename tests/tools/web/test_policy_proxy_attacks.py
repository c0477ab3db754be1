"""Attacks on the one-request proxy the Exa engine sends through (`policy_proxy.py`): the address
policy holds on this path as on the others, whoever reaches the proxy's port and whatever they ask."""

from __future__ import annotations

import base64
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import requests
from smol_tool_web import AddressRefusedError, WebSearchTool, WebToolError
from smol_tool_web._http import MAX_BYTES, post_json
from smol_tool_web.address_policy import AddressPolicy
from smol_tool_web.policy_proxy import PolicyProxy
from web_standin import Reply, StandInWeb, allow_address


@pytest.fixture
def internal() -> Iterator[StandInWeb]:
    """A service on 127.0.0.1 that nothing allows: it must never see a request."""
    server = StandInWeb()
    server.route("GET", "/secret", Reply(200, "the keys"))
    server.route("POST", "/search", Reply(200, '{"results": []}', content_type="application/json"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def no_blanket_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)
    monkeypatch.setenv("EXA_API_KEY", "k")


def _ask(proxy: PolicyProxy, request_line: str, extra: str = "") -> bytes:
    """Send one raw request to the proxy, as another local process would (with the proxy's own
    credentials where its URL carries any: the attacks here are about where it connects)."""
    parts = urlsplit(proxy.proxies["http"])
    auth = ""
    if parts.username is not None:
        token = base64.b64encode(f"{parts.username}:{parts.password}".encode()).decode()
        auth = f"Proxy-Authorization: Basic {token}\r\n"
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as raw:
        raw.sendall(f"{request_line}\r\n{auth}{extra}\r\n".encode())
        answer = b""
        while True:
            chunk = raw.recv(65536)
            if not chunk:
                return answer
            answer += chunk


@pytest.mark.parametrize(
    "target",
    [
        "CONNECT [::ffff:127.0.0.1]:{port} HTTP/1.1",
        "CONNECT [::1]:{port} HTTP/1.1",
        "CONNECT 2130706433:{port} HTTP/1.1",
        "CONNECT 0177.0.0.1:{port} HTTP/1.1",
        "CONNECT 0x7f.1:{port} HTTP/1.1",
        "CONNECT 127.1:{port} HTTP/1.1",
        "CONNECT localhost:{port} HTTP/1.1",
        "CONNECT 169.254.169.254:80 HTTP/1.1",
        "GET http://[::ffff:7f00:1]:{port}/secret HTTP/1.1",
        "GET http://2130706433:{port}/secret HTTP/1.1",
        "GET http://user@127.0.0.1:{port}/secret HTTP/1.1",
        "GET /secret HTTP/1.1",  # no host in the target: the Host header is not where it connects
        "GET ftp://127.0.0.1:{port}/secret HTTP/1.1",
    ],
)
def test_no_spelling_of_an_internal_address_gets_through(internal: StandInWeb, target: str) -> None:
    port = internal.server.server_address[1]
    with PolicyProxy(AddressPolicy().with_environment(), MAX_BYTES, 5) as proxy:
        answer = _ask(proxy, target.format(port=port), f"Host: 127.0.0.1:{port}\r\n")
    assert not answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert internal.seen == []


def test_another_local_process_cannot_take_the_proxys_one_request(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process of anyone on the machine that connects first (the port shows in /proc/net/tcp) is
    not served, and the request the proxy was made for still goes through."""
    url = internal.url("/search")
    allow_address(monkeypatch, url)
    with PolicyProxy(AddressPolicy().with_environment(), MAX_BYTES, 5) as proxy:
        port = urlsplit(proxy.proxies["http"]).port
        with socket.create_connection(("127.0.0.1", port), timeout=5) as thief:
            thief.sendall(f"GET {internal.url('/secret')} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            stolen = thief.recv(65536)
        answer = requests.post(url, json={}, proxies=proxy.proxies, timeout=5, allow_redirects=False)
    assert not stolen.startswith(b"HTTP/1.1 200") and b"the keys" not in stolen
    assert answer.status_code == 200 and answer.json() == {"results": []}
    assert [seen.path for seen in internal.seen] == ["/search"]
    assert "proxy-authorization" not in internal.seen[0].headers  # the proxy's secret stays with it


@pytest.mark.parametrize(
    "variable",
    ["http://127.0.0.1_proxy", "HTTP://127.0.0.1_PROXY", "all://127.0.0.1_proxy", "all_proxy", "http_proxy"],
)
def test_a_proxy_setting_for_the_one_host_cannot_skip_the_proxy(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """`requests` reads `<scheme>://<host>_proxy` from the environment and prefers it over a
    scheme-wide setting: the policy proxy must still be the one it uses."""
    monkeypatch.setenv(variable, internal.url())
    with pytest.raises(AddressRefusedError, match="loopback"):
        WebSearchTool(engine="exa", base_url="http://127.0.0.1:9/search")("q")
    assert internal.seen == []


def test_no_proxy_thread_outlives_a_request_that_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that takes the connection and never answers: the request times out, and the
    proxy's thread ends with it."""
    silent = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(silent.accept()[0]), daemon=True).start()
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/search"
    allow_address(monkeypatch, url)
    try:
        with pytest.raises(WebToolError, match="did not answer"):
            post_json("Exa", url, headers={}, json={}, timeout=1, policy=AddressPolicy())
        assert [t for t in threading.enumerate() if t.name == "smol-web-proxy"] == []
    finally:
        silent.close()
        for connection in held:
            connection.close()


@pytest.mark.parametrize(
    "request_line",
    [
        "CONNECT 127.0.0.1:99999 HTTP/1.1",
        "GET http://127.0.0.1:99999/ HTTP/1.1",
        "GET http://[::1/ HTTP/1.1",
        "CONNECT HTTP/1.1",
        "NONSENSE",
        "GET http://example.com:-1/ HTTP/1.1",
    ],
)
def test_a_malformed_request_is_answered_without_a_traceback(
    request_line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What reaches the proxy is anyone's text: the proxy's thread ends quietly on any of it."""
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: failures.append(hook.exc_value))
    with PolicyProxy(AddressPolicy().with_environment(), MAX_BYTES, 5) as proxy:
        answer = _ask(proxy, request_line)
    assert not answer.startswith(b"HTTP/1.1 200")
    assert failures == []
