"""The OpenAI chat-completions shape, both ways: requests out, replies and stream chunks in.

Most model APIs speak it (OpenAI, Azure, LiteLLM for every provider, Hugging Face's `InferenceClient`,
TGI, vLLM, llama.cpp's server...), so the plugins for them share one translation. Replies are read by
attribute *or* key, so the openai SDK's pydantic objects, LiteLLM's, huggingface_hub's dataclasses and
plain dicts all work. Pure functions, no SDK import.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
    remove_content_after_stop_sequences,
)
from smol_core.models.message_list import TOOL_ROLE_CONVERSIONS, get_clean_message_list
from smol_core.models.options import supports_stop_parameter
from smol_core.models.retry import error_status
from smol_core.models.stop_filter import StopSequenceFilter
from smol_core.models.tool_calls import get_tool_json_schema

__all__ = [
    "chat_request",
    "delta_from_chunk",
    "get",
    "message_from_response",
    "model_supports_stop",
    "refuses_stop",
    "stream_deltas",
    "usage_of",
]


def model_supports_stop(model_id: str | None) -> bool:
    """Whether a model takes `stop` (a guess from its name: reasoning models refuse it); see
    `supports_stop_parameter`."""
    return supports_stop_parameter(model_id or "")


def refuses_stop(error: BaseException, request: dict[str, Any]) -> bool:
    """Whether a server refused `request` for its `stop` parameter (a 400 or 422 that names it).

    The caller then asks again without `stop`, cuts the reply client-side, and remembers.
    """
    return "stop" in request and error_status(error) in (400, 422) and "stop" in str(error).lower()


# --- out: requests -------------------------------------------------------------------------------


def chat_request(
    messages: Sequence[ChatMessage | dict[str, Any]],
    *,
    role_conversions: dict[str, str] | None = None,
    flatten_messages_as_text: bool = False,
    stop_sequences: list[str] | None = None,
    send_stop: bool = True,
    response_format: dict[str, Any] | None = None,
    tools_to_call_from: list[Any] | None = None,
) -> dict[str, Any]:
    """The body of a chat-completions request (without `model` and options, which differ by client).

    `role_conversions` come on top of the tool-role conversions every API needs; images go as data
    URLs; `stop` is sent only where `send_stop` (servers that refuse it get replies cut client-side).
    """
    conversions: dict[Any, Any] = {
        **TOOL_ROLE_CONVERSIONS,
        **{MessageRole(k): MessageRole(v) for k, v in (role_conversions or {}).items()},
    }
    request: dict[str, Any] = {
        "messages": get_clean_message_list(
            list(messages),
            role_conversions=conversions,
            convert_images_to_image_urls=True,
            flatten_messages_as_text=flatten_messages_as_text,
        )
    }
    if stop_sequences and send_stop:
        request["stop"] = list(stop_sequences)
    if response_format is not None:
        request["response_format"] = response_format
    if tools_to_call_from:
        request["tools"] = [get_tool_json_schema(tool) for tool in tools_to_call_from]
        request["tool_choice"] = "required"
    return request


# --- in: replies and stream chunks ---------------------------------------------------------------


def get(obj: Any, name: str, default: Any = None) -> Any:
    """`obj[name]` for a dict, `obj.name` otherwise: SDK objects and plain JSON read alike."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def usage_of(usage: Any) -> TokenUsage | None:
    """A `usage` object or dict as `TokenUsage`; None when there is none."""
    if not usage:
        return None
    return TokenUsage(int(get(usage, "prompt_tokens", 0) or 0), int(get(usage, "completion_tokens", 0) or 0))


def message_from_response(response: Any, stop_sequences: list[str] | None = None) -> ChatMessage:
    """The first choice of a chat completion as a `ChatMessage` (raises ValueError if there is none).

    With `stop_sequences`, the text is cut at the first one: needed where the server refused `stop`,
    harmless where it stopped already.
    """
    choices = get(response, "choices") or []
    if not choices:
        raise ValueError(f"the response has no choices: {response!r}")
    message = get(choices[0], "message")
    if message is None:
        raise ValueError(f"the response's choice has no message: {response!r}")
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
        content=remove_content_after_stop_sequences(get(message, "content"), stop_sequences),
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


def stream_deltas(
    chunks: Iterable[Any], stop_sequences: list[str] | None = None
) -> Iterator[ChatMessageStreamDelta]:
    """A stream of chunks as deltas, text cut at the first stop sequence (client-side, across chunks).

    The cut is needed where the server refused `stop` and harmless where it stopped already. The
    stream is read to its end all the same, for the closing usage. Errors from the stream propagate
    as they are, for the caller to describe.
    """
    cutter = StopSequenceFilter(stop_sequences)
    for chunk in chunks:
        delta = delta_from_chunk(chunk)
        if delta is None:
            continue
        if delta.content:
            delta.content = cutter.feed(delta.content) or None
        if delta.content or delta.tool_calls or delta.token_usage:
            yield delta
    tail = cutter.finish()
    if tail:
        yield ChatMessageStreamDelta(content=tail)
