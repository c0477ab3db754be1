"""Translate between smol's provider-neutral messages and the Bedrock Converse wire shapes.

Pure functions with no boto3 import, so that the translation is testable on its own and the plugin
stays cheap to discover. Converse differs from the OpenAI shape in ways that matter:
- the system prompt is a separate `system` field, not a message;
- content blocks carry no `type` key (`{"text": ...}`, `{"image": {...}}`), and images are raw bytes;
- roles must alternate user/assistant and no text block may be blank;
- tools are `toolSpec`s, tool calls come back as `toolUse` blocks;
- structured output is `outputConfig.textFormat` with the JSON schema as a *string*.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from smol_core.plugin_api import (
    TOOL_ROLE_CONVERSIONS,
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
    get_clean_message_list,
    get_tool_json_schema,
)

# Converse's own tool-choice values; "required" is the OpenAI word the agents use for "must call one".
TOOL_CHOICES: dict[str, dict[str, Any]] = {"auto": {"auto": {}}, "any": {"any": {}}, "required": {"any": {}}}


def image_format(data: bytes) -> str:
    """Bedrock wants the image format named; read it from the file's magic bytes."""
    if data.startswith(b"\xff\xd8"):
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "png"


def _block(part: dict[str, Any]) -> dict[str, Any] | None:
    if part.get("type") == "image":
        data = base64.b64decode(part["image"])
        return {"image": {"format": image_format(data), "source": {"bytes": data}}}
    text = part.get("text", "")
    return {"text": text} if text.strip() else None


def to_converse_messages(
    messages: Sequence[ChatMessage | dict[str, Any]],
    role_conversions: dict[MessageRole, MessageRole] | dict[str, str] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`(system, messages)` for Converse: system lifted out, blanks dropped, roles alternating."""
    conversions: dict[Any, Any] = dict(TOOL_ROLE_CONVERSIONS)
    conversions.update(role_conversions or {})
    clean = get_clean_message_list(messages, role_conversions=conversions)
    system: list[dict[str, Any]] = []
    output: list[dict[str, Any]] = []
    for message in clean:
        blocks = [b for b in (_block(p) for p in message["content"]) if b is not None]
        if not blocks:
            continue
        if message["role"] == MessageRole.SYSTEM.value:
            system.extend(blocks)
        elif output and output[-1]["role"] == message["role"]:
            output[-1]["content"].extend(blocks)  # dropping a blank message can make two of a role meet
        else:
            output.append({"role": message["role"], "content": blocks})
    return system, output


def to_tool_config(tools: list[Any], tool_choice: str | dict[str, Any] | None = "required") -> dict[str, Any]:
    specs = []
    for tool in tools:
        function = get_tool_json_schema(tool)["function"]
        specs.append(
            {
                "toolSpec": {
                    "name": function["name"],
                    "description": function.get("description") or function["name"],
                    "inputSchema": {
                        "json": function.get("parameters") or {"type": "object", "properties": {}}
                    },
                }
            }
        )
    config: dict[str, Any] = {"tools": specs}
    if isinstance(tool_choice, dict):
        config["toolChoice"] = tool_choice
    elif tool_choice in TOOL_CHOICES:
        config["toolChoice"] = TOOL_CHOICES[tool_choice]
    elif tool_choice is not None:  # a tool's name: force that one
        config["toolChoice"] = {"tool": {"name": tool_choice}}
    return config


def to_output_config(response_format: dict[str, Any]) -> dict[str, Any]:
    """OpenAI-style `response_format` (`{"type": "json_schema", "json_schema": {...}}`) to `outputConfig`."""
    spec = response_format.get("json_schema", response_format)
    schema = spec.get("schema")
    if schema is None:
        raise ValueError(
            "Bedrock structured output needs a JSON schema: {'type': 'json_schema', 'json_schema': {...}}"
        )
    definition: dict[str, Any] = {"schema": json.dumps(schema), "name": spec.get("name", "response")}
    if spec.get("description"):
        definition["description"] = spec["description"]
    return {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": definition}}}


def usage_of(data: dict[str, Any] | None) -> TokenUsage | None:
    if not data:
        return None
    return TokenUsage(int(data.get("inputTokens", 0)), int(data.get("outputTokens", 0)))


def from_converse_response(response: dict[str, Any]) -> ChatMessage:
    """The reply's text blocks joined (reasoning blocks skipped) and its `toolUse` blocks as tool calls.

    A reply without its `output.message` is malformed (a ValueError, which the model reports as such):
    read as an empty answer, it would look like a model that had nothing to say."""
    output = response.get("output")
    if not isinstance(output, dict) or not isinstance(output.get("message"), dict):
        raise ValueError(f"the reply has no output message (it has {sorted(response)})")
    message = output["message"]
    texts: list[str] = []
    calls: list[ChatMessageToolCall] = []
    for block in message.get("content", []):
        if "text" in block:
            texts.append(block["text"])
        elif "toolUse" in block:
            use = block["toolUse"]
            calls.append(
                ChatMessageToolCall(
                    function=ChatMessageToolCallFunction(name=use["name"], arguments=use.get("input", {})),
                    id=use["toolUseId"],
                )
            )
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        content="".join(texts),
        tool_calls=calls or None,
        raw=response,
        token_usage=usage_of(response.get("usage")),
    )


def from_stream_event(event: dict[str, Any]) -> ChatMessageStreamDelta | None:
    """One `converse_stream` event as a delta; `None` for events that carry nothing for the agent."""
    if "contentBlockStart" in event:
        start = event["contentBlockStart"]
        use = start.get("start", {}).get("toolUse")
        if use is None:
            return None
        call = ChatMessageToolCallStreamDelta(
            index=start.get("contentBlockIndex"),
            id=use["toolUseId"],
            type="function",
            function=ChatMessageToolCallFunction(name=use["name"], arguments=""),
        )
        return ChatMessageStreamDelta(tool_calls=[call])
    if "contentBlockDelta" in event:
        block = event["contentBlockDelta"]
        delta = block.get("delta", {})
        if "text" in delta:
            return ChatMessageStreamDelta(content=delta["text"])
        if "toolUse" in delta:
            piece = ChatMessageToolCallStreamDelta(
                index=block.get("contentBlockIndex"),
                function=ChatMessageToolCallFunction(name="", arguments=delta["toolUse"].get("input", "")),
            )
            return ChatMessageStreamDelta(tool_calls=[piece])
        return None
    if "metadata" in event:
        usage = usage_of(event["metadata"].get("usage"))
        return ChatMessageStreamDelta(content="", token_usage=usage) if usage else None
    return None
