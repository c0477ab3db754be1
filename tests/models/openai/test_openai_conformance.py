"""OpenAIServerModel through the model conformance kit: the real openai SDK against a real llama.cpp
server (tool calls held to a JSON schema, as SmolLM2's template knows no tools), a closed port, and a
stand-in that sends nonsense."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("openai")

from openai_stub import start_stub
from smol_model_openai import OpenAIServerModel

from smol_core.models.retry import RetryPolicy
from smol_core.testing.model_conformance import NOWHERE, ModelConformance

pytestmark = [pytest.mark.llama, pytest.mark.slow]

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)


class TestOpenAIConformance(ModelConformance):
    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, llama_server: Any) -> OpenAIServerModel:
        return OpenAIServerModel(
            llama_server.model_id,
            api_base=llama_server.base_url,
            max_tokens=8,
            temperature=0,
            retry_policy=FAST,
        )

    @pytest.fixture(scope="class")
    @classmethod
    def tool_model(cls, llama_server: Any) -> OpenAIServerModel:
        return OpenAIServerModel(
            llama_server.model_id,
            api_base=llama_server.base_url,
            tool_calling="json_schema",
            max_tokens=64,
            temperature=0,
            retry_policy=FAST,
        )

    @pytest.fixture(scope="class")
    @classmethod
    def unreachable_model(cls) -> OpenAIServerModel:
        return OpenAIServerModel("smollm2", api_base=f"{NOWHERE}/v1", retry_policy=FAST)

    @pytest.fixture(scope="class")
    @classmethod
    def malformed_reply_model(cls) -> Iterator[OpenAIServerModel]:
        stub = start_stub()
        stub.default = {"choices": []}
        yield OpenAIServerModel("smollm2", api_base=stub.url, retry_policy=FAST)
        stub.close()
