"""Tool calls through a JSON schema: the schema, the system note, reading the reply back."""

from __future__ import annotations

import json

import pytest

from smol_core.messages import ChatMessage, MessageRole, TokenUsage
from smol_core.models.schema_tool_calls import (
    sanitize_schema,
    tool_call_deltas,
    tool_call_from_json,
    tool_call_response_format,
    tool_call_schema,
    tools_prompt,
    with_system_note,
)

ADD = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
    },
}


def test_sanitize_schema_translates_nullable_and_any() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string", "nullable": True, "title": "X"}}}
    assert sanitize_schema(schema) == {"type": "object", "properties": {"x": {"type": ["string", "null"]}}}
    assert sanitize_schema({"type": "any", "description": "d"}) == {"description": "d"}


def test_tool_call_schema_one_and_many() -> None:
    one = tool_call_schema([ADD])
    assert one["properties"]["name"] == {"const": "add"}
    assert one["required"] == ["name", "arguments"] and one["additionalProperties"] is False
    other = {"type": "function", "function": {"name": "noop", "parameters": {}}}
    many = tool_call_schema([ADD, other])
    assert [o["properties"]["name"]["const"] for o in many["anyOf"]] == ["add", "noop"]
    assert many["anyOf"][1]["properties"]["arguments"] == {"type": "object", "properties": {}}
    with pytest.raises(ValueError, match="at least one tool"):
        tool_call_schema([])


def test_response_format_wraps_the_schema() -> None:
    response_format = tool_call_response_format([ADD])
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"] == tool_call_schema([ADD])


def test_tools_prompt_lists_signatures() -> None:
    note = tools_prompt([ADD])
    assert '{"name": <tool>, "arguments": {...}}' in note
    assert "- add(a: integer, b: integer): Add two numbers." in note


def test_with_system_note_appends_or_adds_a_system_message() -> None:
    plain = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert with_system_note(plain, "NOTE")[0]["content"] == "Be brief.\n\nNOTE"
    assert plain[0]["content"] == "Be brief."  # the input is left alone
    parts = [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]}]
    assert with_system_note(parts, "NOTE")[0]["content"][-1] == {"type": "text", "text": "\n\nNOTE"}
    assert with_system_note([{"role": "user", "content": "hi"}], "NOTE")[0] == {
        "role": "system",
        "content": "NOTE",
    }


def test_tool_call_from_json_reads_the_call_and_tolerates_garbage() -> None:
    call = tool_call_from_json('{"name": "add", "arguments": {"a": 1, "b": 2}}')
    assert (call.function.name, call.function.arguments) == ("add", {"a": 1, "b": 2})
    assert call.id.startswith("call_")
    for junk in ("not json", "[1, 2]", '{"arguments": null}'):
        unnamed = tool_call_from_json(junk)
        assert (unnamed.function.name, unnamed.function.arguments) == ("", {})


def test_tool_call_deltas_hand_over_whole_calls_then_usage() -> None:
    message = ChatMessage(
        MessageRole.ASSISTANT,
        content=None,
        tool_calls=[tool_call_from_json('{"name": "add", "arguments": {"a": 1}}')],
        token_usage=TokenUsage(5, 3),
    )
    first, last = tool_call_deltas(message)
    assert first.tool_calls is not None and first.tool_calls[0].function is not None
    assert first.tool_calls[0].function.name == "add"
    assert json.loads(first.tool_calls[0].function.arguments) == {"a": 1}
    assert last.token_usage == TokenUsage(5, 3)
