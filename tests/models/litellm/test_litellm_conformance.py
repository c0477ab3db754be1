"""LiteLLMModel through the model conformance kit: a real llama.cpp server for replies, the scripted
OpenAI stand-in for tool calls (SmolLM2's template knows no tools) and for nonsense, a closed port."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openai_stub import completion, start_stub, tool_call
from smol_model_litellm import LiteLLMModel

from smol_core.models.retry import RetryPolicy
from smol_core.testing.model_conformance import NOWHERE, ModelConformance

pytestmark = [pytest.mark.llama, pytest.mark.slow]

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)


def stub_model(default: dict[str, Any]) -> Iterator[LiteLLMModel]:
    stub = start_stub()
    stub.default = default
    yield LiteLLMModel("openai/stub", api_base=stub.url, api_key="k", retry_policy=FAST)
    stub.close()


class TestLiteLLMConformance(ModelConformance):
    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, llama_server: Any) -> LiteLLMModel:
        return LiteLLMModel(
            f"openai/{llama_server.model_id}",
            api_base=llama_server.base_url,
            api_key="none",
            temperature=0.0,
            max_tokens=8,
            retry_policy=FAST,
        )

    @pytest.fixture(scope="class")
    @classmethod
    def tool_model(cls) -> Iterator[LiteLLMModel]:
        yield from stub_model(completion(None, [tool_call("get_weather", {"city": "Paris"})]))

    @pytest.fixture(scope="class")
    @classmethod
    def unreachable_model(cls) -> LiteLLMModel:
        return LiteLLMModel("openai/x", api_base=f"{NOWHERE}/v1", api_key="none", retry_policy=FAST)

    @pytest.fixture(scope="class")
    @classmethod
    def malformed_reply_model(cls) -> Iterator[LiteLLMModel]:
        yield from stub_model({"choices": []})
