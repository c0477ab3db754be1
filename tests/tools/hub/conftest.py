"""Fixtures for smol-tool-hub: a stand-in Hub on 127.0.0.1 and a real Gradio app on 127.0.0.1."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hub_standin import StandInHub

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StandInHub]:
    """A fresh stand-in Hub; HF_HUB_OFFLINE is lifted for this test only, and the cache is the test's own."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    standin = StandInHub().start()
    try:
        yield standin
    finally:
        standin.stop()


@pytest.fixture
def hub_as_default(hub: StandInHub, monkeypatch: pytest.MonkeyPatch) -> StandInHub:
    """The stand-in as the client's default Hub, as `HF_ENDPOINT` set before start-up would make it:
    for the core's entry points (`ToolCollection.from_hub`) that take no `endpoint=`."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", hub.endpoint)
    monkeypatch.setattr(
        constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    )
    return hub


@pytest.fixture(scope="session")
def gradio_app() -> Iterator[str]:
    """A real Gradio app served on 127.0.0.1 for the whole session; yields its URL (a valid space id)."""
    pytest.importorskip("gradio", reason="the Space tests serve a real Gradio app")
    import socket

    from space_app import build

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    demo = build()
    _, url, _ = demo.launch(
        server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, show_error=True
    )
    try:
        yield url
    finally:
        demo.close()
