"""LlamaCppModel against the real embedded SmolLM2-135M-Instruct, in process (greedy, short replies)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp import LlamaCppModel, code_action_grammar

from smol_core import tool
from smol_core.errors import AgentGenerationError
from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas

pytestmark = [pytest.mark.llama, pytest.mark.slow]

THOUGHT_AND_CODE = {
    "type": "json_schema",
    "json_schema": {
        "name": "ThoughtAndCodeAnswer",
        "schema": {
            "type": "object",
            "properties": {"thought": {"type": "string"}, "code": {"type": "string"}},
            "required": ["thought", "code"],
        },
    },
}


@pytest.fixture(scope="module")
def model(embedded_gguf: Path) -> Any:
    model = LlamaCppModel(n_ctx=2048, n_threads=2, max_tokens=48)
    yield model.load()
    model.close()


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage(role=MessageRole.USER, content=text)]


@tool
def get_weather(city: str) -> str:
    """Get the current weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny"


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def test_greedy_is_reproducible(model: LlamaCppModel) -> None:
    first = model.generate(user("Name a colour."), max_tokens=12).text
    assert model.generate(user("Name a colour."), max_tokens=12).text == first


def test_max_tokens_caps_the_reply(model: LlamaCppModel) -> None:
    reply = model.generate(user("Write a long story about a dragon."), max_tokens=5)
    assert reply.token_usage is not None and reply.token_usage.output_tokens <= 5


def test_stream_can_be_abandoned_early(model: LlamaCppModel) -> None:
    stream = model.generate_stream(user("Count from one to one hundred."), max_tokens=200)
    first = next(stream)
    assert first.content
    stream.close()  # stops decoding; the engine stays usable
    assert model.generate(user("Say yes."), max_tokens=4).text


@pytest.mark.parametrize("max_tokens", [8, 40])
def test_json_schema_reply_always_parses(model: LlamaCppModel, max_tokens: int) -> None:
    for task in ("What is 17 * 3?", "Reverse the string 'hello'."):
        reply = model.generate(user(task), response_format=THOUGHT_AND_CODE, max_tokens=max_tokens)
        value = json.loads(reply.text)
        assert isinstance(value["thought"], str) and isinstance(value["code"], str)


def test_json_schema_stream_parses_too(model: LlamaCppModel) -> None:
    deltas = list(
        model.generate_stream(user("What is 6 * 7?"), response_format=THOUGHT_AND_CODE, max_tokens=12)
    )
    value = json.loads(agglomerate_stream_deltas(deltas).text)
    assert set(value) == {"thought", "code"}


def test_raw_gbnf_grammar(model: LlamaCppModel) -> None:
    reply = model.generate(user("Is the sky blue?"), grammar='root ::= "yes" | "no"')
    assert reply.text in ("yes", "no")


def test_code_action_grammar_shapes_the_reply(model: LlamaCppModel) -> None:
    grammar = code_action_grammar(max_thought_chars=60)
    reply = model.generate(user("Compute 3 * 7 in Python."), grammar=grammar, max_tokens=64)
    assert reply.text.startswith("Thought: ")
    thought, _, rest = reply.text.partition("\n")
    assert len(thought) <= len("Thought: ") + 60
    assert rest.startswith("<code>\n")


def test_model_level_grammar(embedded_gguf: Path) -> None:
    model = LlamaCppModel(n_ctx=2048, n_threads=2, max_tokens=4, grammar='root ::= "A" | "B"')
    try:
        assert model.generate(user("Pick a letter.")).text in ("A", "B")
    finally:
        model.close()


def test_invalid_grammar_is_a_clear_error(model: LlamaCppModel) -> None:
    with pytest.raises(ValueError, match="GBNF"):
        model.generate(user("hi"), grammar="root ::= ( broken")


def test_tool_calls_through_the_grammar(model: LlamaCppModel) -> None:
    reply = model.generate(user("Add 3 and 4."), tools_to_call_from=[get_weather, add])
    assert reply.tool_calls and len(reply.tool_calls) == 1
    assert reply.tool_calls[0].function.name == "add"
    assert set(reply.tool_calls[0].function.arguments) == {"a", "b"}
    assert all(isinstance(v, int) for v in reply.tool_calls[0].function.arguments.values())


def test_engines_are_shared(model: LlamaCppModel) -> None:
    other = LlamaCppModel(n_ctx=2048, n_threads=2)
    try:
        assert other.engine is model.engine
    finally:
        other.close()
    assert model.engine.server is not None  # the first model still holds it


def test_context_overflow_is_a_generation_error(embedded_gguf: Path) -> None:
    small = LlamaCppModel(n_ctx=256, n_threads=2, max_tokens=8)
    try:
        with pytest.raises(AgentGenerationError, match="llama.cpp") as caught:
            small.generate(user("word " * 600))
    finally:
        small.close()
    # the advice names what a user can do, from Python and from the command line (smolagent has no n_ctx flag)
    message = str(caught.value)
    assert "256 tokens" in message and "n_ctx=512" in message
    assert """--model-kwargs '{"n_ctx": 512}'""" in message


def test_to_dict_and_plugin_registration() -> None:
    from smol_model_llamacpp import _plugin

    (spec,) = _plugin.smol_models()
    assert spec.name == "llamacpp"
    assert spec.default_model_id == "SmolLM2-135M-Instruct"
    model = spec.factory(model_id=spec.default_model_id, n_ctx=2048, n_threads=2)
    try:
        data = model.to_dict()
        assert data["model_id"] == "SmolLM2-135M-Instruct" and data["max_tokens"] == 512
        assert data["temperature"] == 0.0
    finally:
        model.close()
