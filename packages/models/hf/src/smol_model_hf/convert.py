"""Read OpenAI-shaped chat completions (what `InferenceClient.chat_completion` returns) into smol's types.

Objects are read by attribute *or* key, so huggingface_hub's dataclasses, plain dicts and other SDKs'
objects of the same shape all work.
"""

from __future__ import annotations

import re
from typing import Any

from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
)

# Reasoning models that refuse the `stop` parameter: their replies are cut client-side instead.
_NO_STOP_MODELS = re.compile(r"(^|/)(o1|o3|o4|gpt-5|grok-3-mini|grok-4|grok-code)", re.IGNORECASE)


def model_supports_stop(model_id: str | None) -> bool:
    return _NO_STOP_MODELS.search(model_id or "") is None


def get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def usage_of(usage: Any) -> TokenUsage | None:
    if not usage:
        return None
    return TokenUsage(int(get(usage, "prompt_tokens", 0) or 0), int(get(usage, "completion_tokens", 0) or 0))


def message_from_response(response: Any) -> ChatMessage:
    choices = get(response, "choices") or []
    if not choices:
        raise ValueError(f"the response has no choices: {response!r}")
    message = get(choices[0], "message")
    calls = [
        ChatMessageToolCall(
            function=ChatMessageToolCallFunction(
                name=get(get(call, "function"), "name"), arguments=get(get(call, "function"), "arguments")
            ),
            id=str(get(call, "id") or f"call_{i}"),
        )
        for i, call in enumerate(get(message, "tool_calls") or [])
    ]
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        content=get(message, "content"),
        tool_calls=calls or None,
        raw=response,
        token_usage=usage_of(get(response, "usage")),
    )


def delta_from_chunk(chunk: Any) -> ChatMessageStreamDelta | None:
    """One streamed chunk as a delta (text, tool-call pieces, or the closing usage); None if it has nothing."""
    usage = usage_of(get(chunk, "usage"))
    choices = get(chunk, "choices") or []
    delta = get(choices[0], "delta") if choices else None
    content = get(delta, "content") if delta is not None else None
    pieces = []
    for piece in (get(delta, "tool_calls") if delta is not None else None) or []:
        function = get(piece, "function")
        pieces.append(
            ChatMessageToolCallStreamDelta(
                index=get(piece, "index"),
                id=get(piece, "id"),
                type=get(piece, "type"),
                function=ChatMessageToolCallFunction(
                    name=get(function, "name") or "", arguments=get(function, "arguments") or ""
                )
                if function is not None
                else None,
            )
        )
    if content is None and not pieces and usage is None:
        return None
    return ChatMessageStreamDelta(content=content, tool_calls=pieces or None, token_usage=usage)
