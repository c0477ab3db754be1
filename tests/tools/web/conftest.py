"""Fixtures for smol-tool-web: a stand-in web server per test, and an address where nothing listens."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from web_standin import StandInWeb


@pytest.fixture
def web() -> Iterator[StandInWeb]:
    server = StandInWeb()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def dead_url() -> str:
    """A 127.0.0.1 URL whose port was just free: connecting is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"
