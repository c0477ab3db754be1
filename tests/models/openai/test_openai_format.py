"""The shared OpenAI-shape translation (smol_core.models.openai_format) and the stream stop filter.

Pure functions: SDK objects, plain dicts and the stop cut across chunk boundaries, without a server.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from smol_core.messages import ChatMessage, MessageRole, TokenUsage, agglomerate_stream_deltas
from smol_core.models.openai_format import (
    chat_request,
    delta_from_chunk,
    message_from_response,
    model_supports_stop,
    stream_deltas,
)
from smol_core.models.stop_filter import StopSequenceFilter
from smol_core.models.tool_calls import tool_calls_in
from smol_core.tools.decorator import tool


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


def text_chunk(text: str | None = None, usage: dict[str, int] | None = None) -> dict:
    return {"choices": [{"delta": {"content": text}}] if text is not None else [], "usage": usage}


def test_request_converts_roles_images_stop_tools():
    messages = [
        ChatMessage(role=MessageRole.SYSTEM, content="Be brief."),
        ChatMessage(role=MessageRole.TOOL_RESPONSE, content="Observation: 4"),
        ChatMessage(role=MessageRole.USER, content="Next?"),
    ]
    request = chat_request(
        messages,
        role_conversions={"system": "user"},
        flatten_messages_as_text=True,
        stop_sequences=["Observation:"],
        tools_to_call_from=[add],
    )
    assert request["messages"] == [{"role": "user", "content": "Be brief.\nObservation: 4\nNext?"}]
    assert request["stop"] == ["Observation:"]
    assert request["tools"][0]["function"]["name"] == "add" and request["tool_choice"] == "required"
    assert "stop" not in chat_request(messages, stop_sequences=["x"], send_stop=False)
    assert "response_format" not in request


def test_reply_read_from_sdk_objects_and_dicts_alike():
    call = NS(id="c1", function=NS(name="add", arguments='{"a": 1, "b": 2}'))
    sdk = NS(choices=[NS(message=NS(content="Sure. Observation: x", tool_calls=[call]))], usage=None)
    message = message_from_response(sdk, stop_sequences=["Observation:"])
    assert message.content == "Sure. " and message.token_usage is None
    assert message.tool_calls[0].function.name == "add" and message.tool_calls[0].id == "c1"
    plain = {
        "choices": [{"message": {"content": "hi"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    assert message_from_response(plain).token_usage == TokenUsage(3, 1)
    with pytest.raises(ValueError, match="no choices"):
        message_from_response({"choices": []})


def test_stream_cut_across_chunks_keeps_usage():
    chunks = [
        text_chunk("Thought: x\nObs"),
        text_chunk("ervation: 4"),
        text_chunk(None, {"prompt_tokens": 5, "completion_tokens": 6}),
    ]
    message = agglomerate_stream_deltas(list(stream_deltas(chunks, ["Observation:"])))
    assert message.content == "Thought: x\n" and message.token_usage == TokenUsage(5, 6)
    assert delta_from_chunk(text_chunk(None)) is None


def test_streamed_tool_call_pieces():
    piece = {"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1'}}
    rest = {"index": 0, "function": {"arguments": ', "b": 2}'}}
    chunks = [
        {"choices": [{"delta": {"tool_calls": [piece]}}]},
        {"choices": [{"delta": {"tool_calls": [rest]}}]},
    ]
    message = agglomerate_stream_deltas(list(stream_deltas(chunks)))
    assert message.tool_calls[0].function.name == "add"
    assert message.tool_calls[0].function.arguments == '{"a": 1, "b": 2}'


def test_reasoning_models_refuse_stop():
    assert model_supports_stop("gpt-4o-mini") and model_supports_stop(None)
    assert not model_supports_stop("o3") and not model_supports_stop("openai/gpt-5")
    assert model_supports_stop("o3-mini")  # as smolagents: o3-mini takes `stop`


def test_filter_holds_back_only_what_could_begin_a_stop():
    cutter = StopSequenceFilter(["Observation:"])
    assert cutter.feed("Thought: ok") == "Thought: ok"  # nothing here can start "Observation:"
    assert cutter.feed(" Obs") == " "
    assert cutter.feed("olete") == "Obsolete"
    assert cutter.feed(" Observation: 4") == " " and cutter.stopped
    assert cutter.feed("more") == "" and cutter.finish() == ""


def test_tool_calls_in_text():
    [call] = tool_calls_in('<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>')
    assert call.function.name == "add" and call.function.arguments == {"a": 1, "b": 2}
    assert tool_calls_in("no call here") is None
