"""Fixtures for smol-tool-web: a stand-in web server per test, and an address where nothing listens.

Web tools refuse loopback addresses (SSRF protection), so each fixture allows exactly its own
`127.0.0.1:<port>` through `SMOL_WEB_ALLOW_PRIVATE`; any other local address stays refused.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from web_standin import StandInWeb, allow_address


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInWeb]:
    server = StandInWeb()
    allow_address(monkeypatch, server.url())
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def dead_url(monkeypatch: pytest.MonkeyPatch) -> str:
    """A 127.0.0.1 URL whose port was just free: connecting is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    allow_address(monkeypatch, url)
    return url
