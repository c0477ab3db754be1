"""LiteLLMModel asks a self-hosted server (here a real llama.cpp server serving SmolLM2) what it serves."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("litellm")

from smol_model_litellm import LiteLLMModel

from smol_core.messages import ChatMessage, MessageRole


@pytest.mark.llama
@pytest.mark.slow
def test_openai_provider_on_llama_cpp_is_detected_and_takes_grammars(llama_server: Any) -> None:
    model = LiteLLMModel(
        f"openai/{llama_server.model_id}", api_base=llama_server.base_url, api_key="none", temperature=0.0
    )
    assert model.capabilities.small and model.capabilities.grammar
    assert "llama.cpp" in model.capabilities_reason
    reply = model.generate(
        [ChatMessage(role=MessageRole.USER, content="Is Paris in France?")],
        grammar='root ::= "yes" | "no"',
        max_tokens=4,
    )
    assert reply.text in ("yes", "no")


def test_cloud_providers_are_not_probed() -> None:
    model = LiteLLMModel("anthropic/claude-3-5-haiku", api_key="k")
    assert not model.detector.should_probe and not model.capabilities.small


def test_override_without_a_server() -> None:
    model = LiteLLMModel("openai/m", api_base="http://127.0.0.1:9/v1", small=True)
    assert model.capabilities.small and "small=True" in model.capabilities_reason
