"""A provider's missing key, which LiteLLM reports as a 500, is said first and not retried."""

from __future__ import annotations

import pytest
from smol_model_litellm import LiteLLMModel

from smol_core.errors import ModelAPIError
from smol_core.messages import ChatMessage, MessageRole


def test_missing_key_is_named_first_and_not_retried(monkeypatch):
    monkeypatch.delenv("CEREBRAS_API_KEY", raising=False)
    monkeypatch.delenv("CEREBRAS_ADMIN_KEY", raising=False)
    model = LiteLLMModel(model_id="cerebras/llama-3.3-70b")
    with pytest.raises(ModelAPIError) as caught:
        model.generate([ChatMessage(role=MessageRole.USER, content="hi")])
    message = str(caught.value)
    assert (
        message.startswith("Missing API Key for 'cerebras/llama-3.3-70b'") and "CEREBRAS_API_KEY" in message
    )
    assert caught.value.__cause__ is not None and getattr(caught.value.__cause__, "smol_attempts", 1) == 1


def test_litellm_prints_nothing_on_stdout_when_a_call_fails(monkeypatch, capfd):
    """LiteLLM's "Give Feedback / Get Help" banner went to stdout, into `answer=$(smolagent ...)`."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = LiteLLMModel(model_id="openai/gpt-4o-mini")
    with pytest.raises(ModelAPIError):
        model.generate([ChatMessage(role=MessageRole.USER, content="hi")])
    assert capfd.readouterr().out == ""
