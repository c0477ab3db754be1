"""`CallableModel` and `as_model`: a plain function `f(messages) -> str | ChatMessage` accepted as a model.

Why: smolagents lets a user hand an agent any callable; smol wraps it once, at the door, so the agent
loop only ever sees a `Model`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smol_core.messages import ChatMessage, MessageRole, TokenUsage, remove_content_after_stop_sequences
from smol_core.models.base import Model
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.request import ModelRequest

__all__ = ["CallableModel", "as_model"]


class CallableModel(Model):
    """Wrap a plain function `f(messages) -> str | ChatMessage` as a model."""

    capabilities = ModelCapabilities(stop_sequences=False, tool_calling=False, reports_usage=False)

    def __init__(self, func: Callable[..., str | ChatMessage], model_id: str | None = None) -> None:
        super().__init__(model_id=model_id or getattr(func, "__name__", "callable"))
        self.func = func

    def request(self, request: ModelRequest) -> ChatMessage:
        reply = self.func(request.messages)
        if isinstance(reply, ChatMessage):
            return reply
        text = remove_content_after_stop_sequences(str(reply), request.stop_sequences)
        return ChatMessage(role=MessageRole.ASSISTANT, content=text, token_usage=TokenUsage(0, 0))


def as_model(obj: Any) -> Model:
    """Accept a `Model` or a plain callable wherever a model is expected."""
    if isinstance(obj, Model):
        return obj
    if callable(obj):
        return CallableModel(obj)
    raise TypeError(
        f"Expected a Model or a callable taking messages, got {type(obj).__name__}. "
        "Build one with e.g. smol_core.load_model('openai', model_id=...)."
    )
