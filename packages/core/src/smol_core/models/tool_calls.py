"""Tool calls between models and tools: schemas out, calls read back in.

A model with native tool calling is given each tool's OpenAI-style function schema
(`get_tool_json_schema`); one without it writes the call as JSON in its text, which
`get_tool_call_from_text` reads (smolagents' function of that name, with its id and error wording).
Text from a model is untrusted: the JSON is found in linear time and its nesting is bounded.
"""

from __future__ import annotations

import uuid
from typing import Any

from smol_core.json_limits import JSONLimitError, find_json_object, parse_arguments
from smol_core.messages import ChatMessageToolCall, ChatMessageToolCallFunction

__all__ = [
    "get_tool_call_from_text",
    "get_tool_json_schema",
    "get_tool_json_schemas",
    "parse_json_if_needed",
    "tool_call_from_text",
    "tool_calls_in",
]


def parse_json_if_needed(arguments: Any) -> Any:
    """Tool-call arguments as a value: a JSON string is decoded (bounded nesting), other text stays
    text, and values that are not strings are returned as they are (`"3"` -> 3, `"abc"` -> "abc")."""
    return parse_arguments(arguments)


def get_tool_call_from_text(text: str, tool_name_key: str, tool_arguments_key: str) -> ChatMessageToolCall:
    """The tool call a model wrote as JSON in its text: `{"<tool_name_key>": ..., "<tool_arguments_key>": ...}`.

    Arguments given as a JSON string are decoded; missing arguments are None. ValueError when the
    text holds no JSON object or the object has no `tool_name_key` (the message lists its keys, so
    that the model can correct itself); `JSONLimitError` when the object is nested too deep.
    """
    try:
        data, _start = find_json_object(text or "")  # linear time, bounded nesting
    except JSONLimitError:
        raise
    except ValueError:
        raise ValueError(f"The model output does not contain any JSON blob: {(text or '')[:200]!r}") from None
    if tool_name_key not in data:
        raise ValueError(
            f"Tool call needs to have a key '{tool_name_key}'. Got keys: {list(data.keys())} instead"
        )
    arguments = data.get(tool_arguments_key)
    if isinstance(arguments, str):
        arguments = parse_json_if_needed(arguments)
    return ChatMessageToolCall(
        id=str(uuid.uuid4()),
        type="function",
        function=ChatMessageToolCallFunction(name=str(data[tool_name_key]), arguments=arguments),
    )


def tool_call_from_text(
    text: str, name_key: str = "name", arguments_key: str = "arguments"
) -> ChatMessageToolCall:
    """`get_tool_call_from_text` with the usual keys, and `{}` for arguments the model left out
    (what a tool without inputs is called with)."""
    call = get_tool_call_from_text(text, name_key, arguments_key)
    if call.function.arguments is None:
        call.function.arguments = {}
    return call


def tool_calls_in(
    text: str, name_key: str = "name", arguments_key: str = "arguments"
) -> list[ChatMessageToolCall] | None:
    """The tool call a local model wrote as text (a chat template's `<tool_call>{...}</tool_call>` or bare
    JSON), or None: the agent then reports the unparsable reply to the model."""
    try:
        return [tool_call_from_text(text, name_key, arguments_key)]
    except ValueError:
        return None


def get_tool_json_schemas(tools: list[Any] | None) -> list[dict[str, Any]] | None:
    """The OpenAI-style schemas of some tools, or None for none (what chat templates' `tools=` takes)."""
    return [get_tool_json_schema(tool) for tool in tools] if tools else None


def get_tool_json_schema(tool: Any) -> dict[str, Any]:
    """The OpenAI-style function schema of a tool (the shape most APIs accept)."""
    schema: dict[str, Any] = tool.to_tool_calling_schema()
    return schema
