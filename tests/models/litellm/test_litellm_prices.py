"""LiteLLMModel prices its calls from LiteLLM's bundled price map, offline (a run's cost budget)."""

from __future__ import annotations

import pytest
from smol_model_litellm import LiteLLMModel

from smol_core.messages import TokenUsage


def test_a_listed_model_is_priced_by_its_input_and_output_tokens() -> None:
    model = LiteLLMModel(model_id="gpt-4o-mini", api_key="unused", detect_capabilities=False)
    none, both = model.cost_of(TokenUsage(0, 0)), model.cost_of(TokenUsage(1000, 1000))
    inputs, outputs = model.cost_of(TokenUsage(1000, 0)), model.cost_of(TokenUsage(0, 1000))
    assert none == 0 and inputs is not None and outputs is not None
    assert 0 < inputs < outputs  # output tokens cost more, as every provider prices them
    assert both == pytest.approx(inputs + outputs)


def test_a_model_the_map_does_not_list_prices_nothing() -> None:
    model = LiteLLMModel(
        model_id="openai/my-local-model", api_base="http://127.0.0.1:9", detect_capabilities=False
    )
    assert model.cost_of(TokenUsage(1000, 1000)) is None
