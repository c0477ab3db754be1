"""Fixtures for the Gradio page's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from ui_openai_standin import Standin, start_standin


@pytest.fixture
def openai_standin() -> Iterator[Standin]:
    """A stand-in OpenAI-compatible server on 127.0.0.1 (see `ui_openai_standin`)."""
    standin = start_standin()
    yield standin
    standin.close()
