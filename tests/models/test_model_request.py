"""`ModelRequest`: the smolagents call becomes one value, and models written either way answer it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from openai_stub import Stub, completion, start_stub

from smol_core import CodeAgent
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, MessageRole, TokenUsage
from smol_core.models.base import Model
from smol_core.models.request import ModelRequest
from smol_core.testing import ScriptedModel
from smol_core.tools.decorator import tool

HI = [ChatMessage(role="user", content="hi")]
SCHEMA = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}


@tool
def get_weather(city: str) -> str:
    """Tells the weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny"


def test_the_smolagents_call_round_trips() -> None:
    request = ModelRequest.from_call(
        HI,
        stop_sequences=["Observation:"],
        response_format=SCHEMA,
        tools_to_call_from=[get_weather],
        grammar='root ::= "x"',
        tool_choice="auto",
        temperature=0.2,
    )
    assert request.grammar == 'root ::= "x"' and request.tool_choice == "auto"
    assert request.options == {"temperature": 0.2}
    assert request.keywords == {"grammar": 'root ::= "x"', "tool_choice": "auto", "temperature": 0.2}
    assert ModelRequest.from_call(**request.to_call()) == request
    bare = ModelRequest.from_call(HI)
    assert bare.to_call() == {
        "messages": HI,
        "stop_sequences": None,
        "response_format": None,
        "tools_to_call_from": None,
    }
    assert request.options_over({"temperature": 1.0, "max_tokens": 9}) == {
        "temperature": 0.2,
        "max_tokens": 9,
    }


class Recording(Model):
    """A model written the new way: it implements `request` only."""

    def __init__(self) -> None:
        super().__init__(model_id="recording")
        self.requests: list[ModelRequest] = []

    def request(self, request: ModelRequest) -> ChatMessage:
        self.requests.append(request)
        return ChatMessage(role=MessageRole.ASSISTANT, content="ok", token_usage=TokenUsage(1, 1))


def test_a_model_that_implements_request_answers_the_smolagents_call() -> None:
    model = Recording()
    assert model(HI).content == "ok"
    assert model.generate(HI, stop_sequences=["x"], grammar="g", seed=3).content == "ok"
    deltas = list(model.generate_stream(HI, tools_to_call_from=[get_weather]))
    assert [d.content for d in deltas] == ["ok"]
    first, second, third = model.requests
    assert first == ModelRequest(messages=HI)
    assert (second.stop_sequences, second.grammar, second.options) == (["x"], "g", {"seed": 3})
    assert third.tools_to_call_from == [get_weather]


class CannedModel(Model):
    """The README's "Writing a plugin" model: it overrides `generate` the smolagents way."""

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):  # type: ignore[no-untyped-def]
        self.seen = {"stop_sequences": stop_sequences, **kw}
        return ChatMessage(
            role=MessageRole.ASSISTANT, content="Thought: done.\n<code>\nfinal_answer('hi')\n</code>"
        )


def test_a_model_written_the_smolagents_way_keeps_working() -> None:
    model = CannedModel()
    assert "final_answer" in model(HI).text
    assert "final_answer" in model.request(ModelRequest(messages=HI, grammar="g")).text
    assert model.seen == {"stop_sequences": None, "grammar": "g"}
    streamed: Iterator[ChatMessageStreamDelta] = model.generate_stream(HI, stop_sequences=["x"], top_p=0.5)
    assert "final_answer" in "".join(d.content or "" for d in streamed)
    assert model.seen == {"stop_sequences": ["x"], "top_p": 0.5}
    agent = CodeAgent(tools=[], model=model, executor_type="local")
    try:
        assert agent.run("Say hi.") == "hi"
    finally:
        agent.cleanup()


def test_the_scripted_test_model_records_the_call_as_given() -> None:
    model = ScriptedModel(["done"])
    model.generate(HI, stop_sequences=["x"], grammar="g", temperature=0)
    call: dict[str, Any] = model.calls[0]
    assert call["stop_sequences"] == ["x"] and call["grammar"] == "g" and call["temperature"] == 0


def test_an_api_model_sends_every_field_of_the_request() -> None:
    from smol_model_openai import OpenAIServerModel

    stub: Stub = start_stub(completion("fine"))
    try:
        model = OpenAIServerModel("m", api_base=stub.url, temperature=1.0)
        message = model.request(
            ModelRequest.from_call(
                HI, stop_sequences=["x"], response_format=SCHEMA, tool_choice="none", temperature=0.5
            )
        )
    finally:
        stub.close()
    assert message.content == "fine" and message.token_usage == TokenUsage(7, 5)
    sent = stub.requests[0]
    assert sent["stop"] == ["x"] and sent["response_format"] == SCHEMA
    assert sent["tool_choice"] == "none" and sent["temperature"] == 0.5 and sent["model"] == "m"
