"""`ScriptedModel` and `FunctionModel`: models that answer instantly and deterministically.

They behave like real backends where it matters to the agent loop: stop sequences are honoured
(the reply is cut at the first one, as a server would), token usage is reported (counted as
whitespace-separated words, so that accounting code is exercised), streaming yields small deltas,
and tool calls come back as structured `ChatMessageToolCall`s.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    TokenUsage,
    remove_content_after_stop_sequences,
)
from smol_core.models.base import Model
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.request import ModelRequest

Reply = str | ChatMessage | dict[str, Any] | Exception


def count_tokens(messages: Sequence[ChatMessage | dict[str, Any]]) -> int:
    total = 0
    for message in messages:
        text = message.text if isinstance(message, ChatMessage) else str(message.get("content", ""))
        total += len(text.split())
    return total


class _TestModel(Model):
    capabilities = ModelCapabilities(
        stop_sequences=True, tool_calling=True, structured_output=True, vision=True
    )

    def __init__(self, model_id: str) -> None:
        super().__init__(model_id=model_id)
        self.calls: list[dict[str, Any]] = []

    def _reply(self, messages: list[ChatMessage], **call: Any) -> Reply:
        raise NotImplementedError

    def request(self, request: ModelRequest) -> ChatMessage:
        call = request.to_call()  # recorded as the smolagents call gave it, so tests can read any keyword
        messages = call.pop("messages")
        stop_sequences = request.stop_sequences
        self.calls.append({"messages": list(messages), **call})
        reply = self._reply(list(messages), **call)
        if isinstance(reply, Exception):
            raise reply
        message = _to_message(reply)
        if isinstance(message.content, str):
            message.content = remove_content_after_stop_sequences(message.content, stop_sequences)
        if message.token_usage is None:
            message.token_usage = TokenUsage(count_tokens(messages), len(message.text.split()))
        return message

    def request_stream(self, request: ModelRequest) -> Iterator[ChatMessageStreamDelta]:
        message = self.request(request)
        text = message.text
        for start in range(0, len(text), 8):
            yield ChatMessageStreamDelta(content=text[start : start + 8])
        if message.tool_calls:
            from smol_core.messages import ChatMessageToolCallStreamDelta

            yield ChatMessageStreamDelta(
                tool_calls=[
                    ChatMessageToolCallStreamDelta(
                        index=i,
                        id=tc.id,
                        type=tc.type,
                        function=ChatMessageToolCallFunction(
                            tc.function.name,
                            tc.function.arguments
                            if isinstance(tc.function.arguments, str)
                            else json.dumps(tc.function.arguments),
                        ),
                    )
                    for i, tc in enumerate(message.tool_calls)
                ]
            )
        yield ChatMessageStreamDelta(token_usage=message.token_usage)


def _to_message(reply: str | ChatMessage | dict[str, Any]) -> ChatMessage:
    if isinstance(reply, ChatMessage):
        return ChatMessage(reply.role, reply.content, reply.tool_calls, reply.raw, reply.token_usage)
    if isinstance(reply, str):
        return ChatMessage(role=MessageRole.ASSISTANT, content=reply)
    if isinstance(reply, dict) and "tool_calls" in reply:
        calls = [tool_call(c["name"], c.get("arguments", {}), c.get("id")) for c in reply["tool_calls"]]
        return ChatMessage(role=MessageRole.ASSISTANT, content=reply.get("content", ""), tool_calls=calls)
    if isinstance(reply, dict) and "name" in reply:
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content="",
            tool_calls=[tool_call(reply["name"], reply.get("arguments", {}), reply.get("id"))],
        )
    raise TypeError(
        f"A scripted reply must be a str, ChatMessage, tool-call dict or exception, got {reply!r}"
    )


def tool_call(name: str, arguments: Any = None, call_id: str | None = None) -> ChatMessageToolCall:
    """A structured tool call, for scripting `ToolCallingAgent` replies."""
    return ChatMessageToolCall(
        function=ChatMessageToolCallFunction(name=name, arguments=arguments if arguments is not None else {}),
        id=call_id or f"call_{uuid.uuid4().hex[:8]}",
    )


class ScriptedModel(_TestModel):
    """Replies from a list, in order. A reply may be text, a `ChatMessage`, a tool-call dict
    (`{"name": "search", "arguments": {...}}` or `{"tool_calls": [...]}`) or an exception to raise.

    When the script runs out it raises `IndexError` unless `repeat_last=True`.
    """

    def __init__(
        self, replies: Sequence[Reply], repeat_last: bool = False, model_id: str = "scripted"
    ) -> None:
        super().__init__(model_id)
        self.replies = list(replies)
        self.repeat_last = repeat_last
        self.position = 0

    def _reply(self, messages: list[ChatMessage], **call: Any) -> Reply:
        if self.position >= len(self.replies):
            if self.repeat_last and self.replies:
                return self.replies[-1]
            raise IndexError(f"ScriptedModel ran out of replies after {len(self.replies)} call(s).")
        reply = self.replies[self.position]
        self.position += 1
        return reply


class FunctionModel(_TestModel):
    """Replies with `function(messages, **call)`, where call holds stop_sequences, tools_to_call_from, ..."""

    def __init__(self, function: Callable[..., Reply], model_id: str = "function") -> None:
        super().__init__(model_id)
        self.function = function

    def _reply(self, messages: list[ChatMessage], **call: Any) -> Reply:
        return self.function(messages, **call)
