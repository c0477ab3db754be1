"""Tool calling through a JSON schema, for backends that constrain replies but know no tool format.

Most small local models have a chat template without tools, so a server cannot turn their replies
into tool calls. Any backend that constrains decoding to a JSON schema can still give them tool
calling: the reply is held to `{"name": <one of the tools>, "arguments": <that tool's schema>}`,
and a short note in the system message says which tools there are. `LlamaCppModel` does this by
default, `OpenAIServerModel(tool_calling="json_schema")` for OpenAI-compatible servers that honour
`response_format` (llama.cpp's, vLLM, Ollama...).
"""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any

from smol_core.json_limits import JSONLimitError, loads_bounded
from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
)

_DROP_KEYS = {"nullable", "title", "examples", "default"}


def sanitize_schema(schema: Any) -> Any:
    """A copy of a JSON schema with the keywords grammar compilers trip on removed or translated.

    `nullable: true` (OpenAPI style, used by smolagents tools) becomes a `null` alternative.
    """
    if isinstance(schema, list):
        return [sanitize_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROP_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: sanitize_schema(sub) for name, sub in value.items()}
        elif key in {"items", "anyOf", "oneOf", "allOf", "additionalProperties", "prefixItems"}:
            result[key] = sanitize_schema(value)
        else:
            result[key] = copy.deepcopy(value)
    if schema.get("nullable") and "type" in result:
        kinds = result["type"] if isinstance(result["type"], list) else [result["type"]]
        if "null" not in kinds:
            result["type"] = [*kinds, "null"]
    if result.get("type") == "any":
        result.pop("type")
    return result


# --- tool calls through a schema ----------------------------------------------------------------------


def tool_call_schema(tool_schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """A JSON schema whose instances are exactly the valid calls `{"name": ..., "arguments": {...}}`.

    `tool_schemas` are OpenAI-style function schemas (`{"type": "function", "function": {...}}`).
    Constraining the reply to it gives tool calling to any model, whatever its chat template.
    """
    options: list[dict[str, Any]] = []
    for entry in tool_schemas:
        function = entry.get("function", entry)
        parameters = sanitize_schema(function.get("parameters") or {"type": "object", "properties": {}})
        parameters.setdefault("type", "object")
        parameters.setdefault("properties", {})
        options.append(
            {
                "type": "object",
                "properties": {"name": {"const": function["name"]}, "arguments": parameters},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    if not options:
        raise ValueError("tool_call_schema needs at least one tool.")
    return options[0] if len(options) == 1 else {"anyOf": options}


def tools_prompt(tool_schemas: list[dict[str, Any]]) -> str:
    """A short system note listing the tools and the reply format, for models without native tools."""
    lines = ['You can call these tools. Reply with one JSON object {"name": <tool>, "arguments": {...}}.']
    for entry in tool_schemas:
        function = entry.get("function", entry)
        arguments = ", ".join(
            f"{name}: {spec.get('type', 'any')}"
            for name, spec in (function.get("parameters") or {}).get("properties", {}).items()
        )
        lines.append(f"- {function['name']}({arguments}): {function.get('description', '').strip()}")
    return "\n".join(lines)


def tool_call_response_format(tool_schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """The OpenAI-style `response_format` that holds a reply to one call of these tools."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "tool_call", "schema": tool_call_schema(tool_schemas)},
    }


def with_system_note(messages: list[dict[str, Any]], note: str) -> list[dict[str, Any]]:
    """`messages` (OpenAI-style dicts) with `note` appended to the system message, or one added."""
    if messages and messages[0]["role"] == "system":
        first = dict(messages[0])
        if isinstance(first["content"], str):
            first["content"] = f"{first['content']}\n\n{note}"
        else:
            first["content"] = [*first["content"], {"type": "text", "text": "\n\n" + note}]
        return [first, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def tool_call_from_json(text: str) -> ChatMessageToolCall:
    """The call in a schema-held reply. Unreadable text gives a call with no name, which the agent
    reports to the model as an unreadable call (so the run goes on) rather than failing here.

    Reading is bounded (`smol_core.json_limits`): a reply nested too deeply keeps its text as the
    arguments, so the agent's own bounded reading tells the model what was wrong, and no
    `RecursionError` can come out of the model's `generate`.
    """
    data: Any = {}
    too_deep = False
    try:
        data = loads_bounded(text)
    except JSONLimitError:
        too_deep = True
    except json.JSONDecodeError:
        pass
    if not isinstance(data, dict):
        data = {}
    arguments: Any = text if too_deep else data.get("arguments") or {}
    name = data.get("name", "")
    return ChatMessageToolCall(
        function=ChatMessageToolCallFunction(name=name if isinstance(name, str) else "", arguments=arguments),
        id=f"call_{uuid.uuid4().hex[:12]}",
    )


def tool_call_deltas(message: ChatMessage) -> list[ChatMessageStreamDelta]:
    """A decoded tool-call reply as stream deltas: a call is only usable whole, so it comes as one."""
    deltas = [
        ChatMessageStreamDelta(
            tool_calls=[
                ChatMessageToolCallStreamDelta(
                    index=index,
                    id=call.id,
                    type="function",
                    function=ChatMessageToolCallFunction(
                        call.function.name, json.dumps(call.function.arguments)
                    ),
                )
            ]
        )
        for index, call in enumerate(message.tool_calls or [])
    ]
    deltas.append(ChatMessageStreamDelta(token_usage=message.token_usage))
    return deltas
