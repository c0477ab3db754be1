"""Fixtures for the Gradio page's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_kit import free_port
from ui_openai_standin import Standin, start_standin


@pytest.fixture
def openai_standin() -> Iterator[Standin]:
    """A stand-in OpenAI-compatible server on 127.0.0.1 (see `ui_openai_standin`)."""
    standin = start_standin()
    yield standin
    standin.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """Serve a page on a free port of 127.0.0.1 (closed after the test); returns its URL."""
    served: list[tuple[Any, Any]] = []

    def start(ui: Any) -> str:
        demo = ui.create_app()
        port = free_port()
        demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        served.append((ui, demo))
        return f"http://127.0.0.1:{port}/"

    yield start
    for ui, demo in served:
        demo.close()
        ui.sessions.close_all()  # the sessions' agents and their sandboxes
