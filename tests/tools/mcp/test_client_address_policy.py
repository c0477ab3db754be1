"""The MCP client over HTTP connects under smol's address policy: the endpoint the user configured
(as written) and the user's grants, every address checked where the connection opens, and a cloud
metadata address refused even behind the configured name (a rebinding record)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from mcp_servers import AUTH, TOKEN, free_port, serve_app_in_thread
from smol_tool_mcp import MCPClient, build_http_app, build_server
from smol_tool_mcp.connection import MCPConnectionError


@pytest.fixture(scope="module")
def tools_url() -> Iterator[str]:
    from smol_tools import greet

    port = free_port()
    app = build_http_app(build_server([greet]), host="127.0.0.1", port=port, token=TOKEN)
    with serve_app_in_thread(app, port) as url:
        yield url


@pytest.fixture(autouse=True)
def _no_environment_grant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


def _resolve_name_to(monkeypatch: pytest.MonkeyPatch, name: str, address: str) -> None:
    real = socket.getaddrinfo

    def fake(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            return real(address, *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def test_the_configured_endpoint_is_reached(tools_url: str) -> None:
    with MCPClient({"url": tools_url, "headers": AUTH}) as tools:
        assert tools[0](name="Ada") == "Hello, Ada."
    localhost = tools_url.replace("127.0.0.1", "localhost")
    with MCPClient({"url": localhost, "headers": AUTH}) as tools:
        assert tools[0](name="Bob") == "Hello, Bob."


def test_a_name_that_resolves_to_the_metadata_address_is_refused(
    tools_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resolve_name_to(monkeypatch, "mcp.rebind.example", "169.254.169.254")
    port = tools_url.split(":")[2].split("/")[0]
    with pytest.raises(MCPConnectionError, match="cloud metadata addresses are not allowed"):
        MCPClient({"url": f"http://mcp.rebind.example:{port}/mcp", "headers": AUTH}, connect_timeout=10)


def test_only_http_endpoints_are_opened() -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/mcp", "gopher://127.0.0.1:70/"):
        with pytest.raises(MCPConnectionError, match="http:// or https://"):
            MCPClient({"url": url}, connect_timeout=10)


def test_the_users_grant_opens_a_private_endpoint_that_a_name_leads_to(
    tools_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name the user configured is theirs to use; its metadata answer is refused all the same, and a
    grant naming the metadata address is what unlocks it (never the name)."""
    _resolve_name_to(monkeypatch, "mcp.rebind.example", "169.254.169.254")
    port = tools_url.split(":")[2].split("/")[0]
    url = f"http://mcp.rebind.example:{port}/mcp"
    with pytest.raises(MCPConnectionError, match="cloud metadata"):
        MCPClient({"url": url}, connect_timeout=10, allow_private_addresses=["mcp.rebind.example"])
    import ipaddress

    from smol_tool_mcp.guarded_http import endpoint_policy

    metadata = ipaddress.ip_address("169.254.169.254")
    assert endpoint_policy(url).refuse_address("mcp.rebind.example", int(port), metadata)
    granted = endpoint_policy(url, ["169.254.169.254"])  # checked, not connected: tests reach no network
    assert granted.refuse_address("mcp.rebind.example", int(port), metadata) is None
