"""InferenceClientModel through the model conformance kit: a real llama.cpp server through `base_url`
for replies, the scripted OpenAI stand-in for tool calls (SmolLM2's template knows no tools) and for
nonsense, a closed port."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openai_stub import completion, start_stub, tool_call
from smol_model_hf import InferenceClientModel

from smol_core.models.retry import RetryPolicy
from smol_core.testing.model_conformance import NOWHERE, ModelConformance

pytestmark = [pytest.mark.llama, pytest.mark.slow]

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)


def stub_model(default: dict[str, Any]) -> Iterator[InferenceClientModel]:
    stub = start_stub()
    stub.default = default
    yield InferenceClientModel("stub-model", base_url=stub.url, token="hf_x", retry_policy=FAST)
    stub.close()


class TestInferenceClientConformance(ModelConformance):
    @pytest.fixture(scope="class", autouse=True)
    @classmethod
    def _hub_online(cls) -> Iterator[None]:
        """huggingface_hub blocks every request under HF_HUB_OFFLINE=1, loopback included; these go to 127.0.0.1."""
        from huggingface_hub import constants

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(constants, "HF_HUB_OFFLINE", False)
            yield

    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, llama_server: Any) -> InferenceClientModel:
        return InferenceClientModel(
            llama_server.model_id,
            base_url=llama_server.base_url,
            temperature=0.0,
            max_tokens=8,
            retry_policy=FAST,
        )

    @pytest.fixture(scope="class")
    @classmethod
    def tool_model(cls) -> Iterator[InferenceClientModel]:
        yield from stub_model(completion(None, [tool_call("get_weather", {"city": "Paris"})]))

    @pytest.fixture(scope="class")
    @classmethod
    def unreachable_model(cls) -> InferenceClientModel:
        return InferenceClientModel("m", base_url=f"{NOWHERE}/v1", retry_policy=FAST)

    @pytest.fixture(scope="class")
    @classmethod
    def malformed_reply_model(cls) -> Iterator[InferenceClientModel]:
        yield from stub_model({"choices": []})
