"""Provider-neutral chat messages, tool calls, streaming deltas and usage accounting.

Every model plugin translates between these types and its provider's wire format, so the agent
loop never sees a provider-specific object. Field names follow smolagents so that
code written against it keeps working.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, is_dataclass
from enum import Enum
from typing import Any


@dataclass
class TokenUsage:
    """Tokens spent by one model call (or summed over a step or a run)."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage | None) -> TokenUsage:
        if other is None:
            return TokenUsage(self.input_tokens, self.output_tokens)
        return TokenUsage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)

    def dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass
class Timing:
    """Wall-clock start and end of a step or a run, in seconds since the epoch."""

    start_time: float = field(default_factory=time.time)
    end_time: float | None = None

    @property
    def duration(self) -> float | None:
        return None if self.end_time is None else self.end_time - self.start_time

    def finish(self) -> Timing:
        self.end_time = time.time()
        return self

    def dict(self) -> dict[str, float | None]:
        return {"start_time": self.start_time, "end_time": self.end_time, "duration": self.duration}


class MessageRole(str, Enum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL_CALL = "tool-call"
    TOOL_RESPONSE = "tool-response"

    @classmethod
    def roles(cls) -> list[str]:
        return [r.value for r in cls]


@dataclass
class ChatMessageToolCallFunction:
    name: str
    arguments: Any
    description: str | None = None


@dataclass
class ChatMessageToolCall:
    function: ChatMessageToolCallFunction
    id: str
    type: str = "function"

    def __str__(self) -> str:
        return f"Call: {self.id}: Calling {self.function.name} with arguments: {self.function.arguments}"

    @classmethod
    def coerce(cls, value: Any) -> ChatMessageToolCall:
        """Accept our own type, a plain dict, or a pydantic object from a provider SDK."""
        if isinstance(value, ChatMessageToolCall):
            return value
        data: dict[str, Any]
        if isinstance(value, dict):
            data = value
        elif hasattr(value, "model_dump"):
            data = value.model_dump()
        else:
            raise TypeError(f"cannot read a tool call from {type(value).__name__}")
        function = data["function"]
        return cls(
            function=ChatMessageToolCallFunction(name=function["name"], arguments=function.get("arguments")),
            id=str(data.get("id") or "call_0"),
            type=str(data.get("type") or "function"),
        )


def _plain(value: Any) -> Any:
    """Dataclasses and enums to JSON-ready values (dropping `raw`, which is provider-specific)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__ if name != "raw"}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass
class ChatMessage:
    role: MessageRole | str
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[ChatMessageToolCall] | None = None
    raw: Any | None = None
    token_usage: TokenUsage | None = None

    def __post_init__(self) -> None:
        if isinstance(self.role, str) and not isinstance(self.role, MessageRole):
            self.role = MessageRole(self.role)
        if self.tool_calls is not None:
            self.tool_calls = [ChatMessageToolCall.coerce(tc) for tc in self.tool_calls]

    @property
    def text(self) -> str:
        """The message's text, whether `content` is a string or a list of typed parts."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(part.get("text", "") for part in self.content if part.get("type") == "text")

    def dict(self) -> Mapping[str, Any]:
        data: dict[str, Any] = _plain(self)
        return data

    _FIELDS = ("role", "content", "tool_calls", "raw", "token_usage")

    def __getitem__(self, key: str) -> Any:
        """`message["role"]`, as smolagents' docs and older versions (which used dicts) read messages."""
        if key not in self._FIELDS:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self._FIELDS else default

    def keys(self) -> tuple[str, ...]:
        return self._FIELDS

    def model_dump_json(self) -> str:
        return json.dumps(self.dict())

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], raw: Any | None = None, token_usage: TokenUsage | None = None
    ) -> ChatMessage:
        usage = data.get("token_usage")
        if token_usage is None and isinstance(usage, dict):
            token_usage = TokenUsage(usage.get("input_tokens", 0), usage.get("output_tokens", 0))
        return cls(
            role=MessageRole(data["role"]),
            content=data.get("content"),
            tool_calls=data.get("tool_calls") or None,
            raw=raw,
            token_usage=token_usage,
        )

    def render_as_markdown(self) -> str:
        rendered = self.text
        if self.tool_calls:
            rendered += "\n".join(
                json.dumps({"tool": tc.function.name, "arguments": tc.function.arguments})
                for tc in self.tool_calls
            )
        return rendered


@dataclass
class ChatMessageToolCallStreamDelta:
    """A piece of a tool call as it streams in; `index` ties the pieces of one call together."""

    index: int | None = None
    id: str | None = None
    type: str | None = None
    function: ChatMessageToolCallFunction | None = None


@dataclass
class ChatMessageStreamDelta:
    content: str | None = None
    tool_calls: list[ChatMessageToolCallStreamDelta] | None = None
    token_usage: TokenUsage | None = None


def agglomerate_stream_deltas(
    deltas: list[ChatMessageStreamDelta], role: MessageRole = MessageRole.ASSISTANT
) -> ChatMessage:
    """Fold streamed deltas into the one message they spell."""
    text: list[str] = []
    usage: TokenUsage | None = None
    calls: dict[int, ChatMessageToolCallStreamDelta] = {}
    for delta in deltas:
        if delta.token_usage is not None:
            usage = delta.token_usage + usage
        if delta.content:
            text.append(delta.content)
        for piece in delta.tool_calls or []:
            index = piece.index if piece.index is not None else len(calls)
            call = calls.setdefault(
                index, ChatMessageToolCallStreamDelta(index, None, None, ChatMessageToolCallFunction("", ""))
            )
            call.id = piece.id or call.id
            call.type = piece.type or call.type
            if piece.function is not None and call.function is not None:
                call.function.name += piece.function.name or ""
                call.function.arguments += piece.function.arguments or ""
    tool_calls = [
        ChatMessageToolCall(
            function=ChatMessageToolCallFunction(c.function.name, c.function.arguments),
            id=c.id or f"call_{i}",
            type=c.type or "function",
        )
        for i, c in sorted(calls.items())
        if c.function is not None
    ]
    return ChatMessage(role=role, content="".join(text), tool_calls=tool_calls or None, token_usage=usage)


def remove_content_after_stop_sequences(content: str | None, stop_sequences: list[str] | None) -> str | None:
    """Cut a reply at the first stop sequence: for servers that ignore or refuse the `stop` parameter."""
    if content is None or not stop_sequences:
        return content
    cut = len(content)
    for stop in stop_sequences:
        if stop:
            position = content.find(stop)
            if position != -1:
                cut = min(cut, position)
    return content[:cut]
