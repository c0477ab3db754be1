"""Fixtures: the stand-in Bedrock server (see `bedrock_standin`) and client settings that point at it."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest
from bedrock_standin import StandInBedrock, start_server


@pytest.fixture(scope="session")
def _bedrock_server() -> Iterator[tuple[ThreadingHTTPServer, StandInBedrock]]:
    server, state = start_server()
    yield server, state
    server.shutdown()
    server.server_close()


@pytest.fixture
def bedrock(_bedrock_server: tuple[ThreadingHTTPServer, StandInBedrock]) -> StandInBedrock:
    """The stand-in server, emptied for this test."""
    state = _bedrock_server[1]
    state.replies.clear()
    state.requests.clear()
    state.default = None
    return state


@pytest.fixture
def client_kwargs(bedrock: StandInBedrock, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What a user passes to reach Bedrock, aimed at the stand-in, with fixed credentials."""
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return {
        "endpoint_url": bedrock.url,
        "region_name": "us-east-1",
        "aws_access_key_id": "AKIDTEST",
        "aws_secret_access_key": "secret",
    }
