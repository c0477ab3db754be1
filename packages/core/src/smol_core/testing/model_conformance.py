"""`ModelConformance`: the behaviour every smol `Model` owes its agents, as a pytest class.

Why a shared suite: an agent must not behave differently because its model runs in process, behind
a local server or in a cloud. Subclass it in your model plugin's tests and give it the model as a
class-scoped fixture (a fixture, so that it can use yours: a server, a stand-in, a model folder):

    import pytest
    from smol_core.testing.model_conformance import NOWHERE, Lacking, ModelConformance

    class TestMyModelConformance(ModelConformance):
        @pytest.fixture(scope="class")
        @classmethod
        def model(cls, my_server):
            return MyModel("m", api_base=my_server.url, max_tokens=12, temperature=0)

        @pytest.fixture(scope="class")
        @classmethod
        def unreachable_model(cls):
            return MyModel("m", api_base=f"{NOWHERE}/v1", retry_policy=RetryPolicy(2, 0.01))

        @pytest.fixture(scope="class")
        @classmethod
        def malformed_reply_model(cls, my_standin):
            ...  # a model whose server answers every request with a body the client cannot read

`model` must answer `prompt` deterministically (greedy decoding, or a stand-in's script) with a
few words at least. `tool_model` (by default `model`) must answer `tool_prompt` with a call of
`get_weather(city)`: a real model held to it by the backend (a grammar, a JSON schema, native
tools), or a stand-in scripted so.

What a backend cannot do is declared, never skipped in silence: set the capability to
`Lacking("why")`. The suite then checks what still holds (a reply that comes whole still adds up;
usage it cannot count is None or zero) and reports the rest as skipped with the reason. Needs pytest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from smol_core.errors import AgentGenerationError, ModelAPIError, SmolError
from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    MessageRole,
    TokenUsage,
    agglomerate_stream_deltas,
)
from smol_core.models.base import SECRET_KEYS, Model
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.request import ModelRequest
from smol_core.tools.decorator import tool

__all__ = ["NOWHERE", "Lacking", "ModelConformance", "get_weather"]

NOWHERE = "http://127.0.0.1:9"
"""An address where no server listens (the discard port): where `unreachable_model` points."""


@tool
def get_weather(city: str) -> str:
    """Get the current weather in a city.

    Args:
        city: the city's name, e.g. "Paris".
    """
    return f"Sunny in {city}"


@dataclass(frozen=True)
class Lacking:
    """A capability a backend does not have, and why: false wherever the suite asks for it."""

    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError("Lacking(reason): say why the backend lacks it")

    def __bool__(self) -> bool:
        return False


Capability = bool | Lacking


class ModelConformance:
    """Subclass, override the `model` fixture (and the others your backend needs); pytest collects it."""

    prompt = "What is 2+2? Answer briefly."
    tool_prompt = "What is the weather in Paris?"

    streams_in_pieces: Capability = True
    """`generate_stream` yields the reply as it is written, in more than one piece."""
    reports_usage: Capability = True
    """Replies count their input and output tokens."""
    calls_tools: Capability = True
    """`tools_to_call_from` gives `ChatMessageToolCall`s (natively, or held to a schema)."""
    has_a_server: Capability = True
    """It talks to a server: one that is down, or that sends nonsense, is a one-line `ModelAPIError`."""

    # --- what subclasses provide -------------------------------------------------------------

    @pytest.fixture(scope="class")
    @classmethod
    def model(cls) -> Model:
        pytest.fail(f"{cls.__name__} must override the `model` fixture")

    @pytest.fixture(scope="class")
    @classmethod
    def tool_model(cls, model: Model) -> Model:
        """The model `tool_prompt` is put to with `get_weather` (by default `model`)."""
        return model

    @pytest.fixture(scope="class")
    @classmethod
    def unreachable_model(cls) -> Model:
        pytest.fail(f"{cls.__name__}: override `unreachable_model`, or set has_a_server = Lacking(...)")

    @pytest.fixture(scope="class")
    @classmethod
    def malformed_reply_model(cls) -> Model:
        pytest.fail(f"{cls.__name__}: override `malformed_reply_model`, or set has_a_server = Lacking(...)")

    # --- helpers -----------------------------------------------------------------------------

    @classmethod
    def messages(cls, text: str | None = None) -> list[ChatMessage]:
        return [ChatMessage(role=MessageRole.USER, content=text or cls.prompt)]

    @pytest.fixture(scope="class")
    @classmethod
    def reply(cls, model: Model) -> ChatMessage:
        """The model's answer to `prompt`, asked once for the tests that compare against it."""
        return model.generate(cls.messages())

    def lacks(self, capability: Capability) -> None:
        if isinstance(capability, Lacking):
            pytest.skip(f"{type(self).__name__} lacks it: {capability.reason}")

    # --- the declaration ---------------------------------------------------------------------

    def test_lacking_capabilities_say_why(self) -> None:
        for name in ("streams_in_pieces", "reports_usage", "calls_tools", "has_a_server"):
            value = getattr(self, name)
            assert value is True or isinstance(value, Lacking), f"{name} = {value!r}: True or Lacking('why')"

    def test_it_is_a_model_with_declared_capabilities(self, model: Model) -> None:
        assert isinstance(model, Model)
        assert isinstance(model.capabilities, ModelCapabilities)
        assert isinstance(model.model_id, str) and model.model_id

    # --- a reply -----------------------------------------------------------------------------

    def test_generate_returns_an_assistant_message(self, reply: ChatMessage) -> None:
        assert isinstance(reply, ChatMessage)
        assert reply.role == MessageRole.ASSISTANT
        assert isinstance(reply.content, str) and reply.content.strip(), reply

    def test_calling_the_model_is_generate(self, model: Model, reply: ChatMessage) -> None:
        assert model(self.messages()).content == reply.content

    def test_a_model_request_is_answered_as_the_call(self, model: Model, reply: ChatMessage) -> None:
        assert model.request(ModelRequest(messages=self.messages())).content == reply.content

    def test_token_usage(self, reply: ChatMessage) -> None:
        usage = reply.token_usage
        if self.reports_usage:
            assert isinstance(usage, TokenUsage)
            assert usage.input_tokens > 0 and usage.output_tokens > 0, usage
        else:  # it cannot count: unknown, never made up
            assert usage is None or usage == TokenUsage(0, 0), usage
            self.lacks(self.reports_usage)

    def test_stop_sequences_cut_the_reply(self, model: Model, reply: ChatMessage) -> None:
        text = str(reply.content)
        stop = _stop_inside(text)
        expected = text[: text.find(stop)].rstrip()
        cut = model.generate(self.messages(), stop_sequences=[stop])
        assert stop not in str(cut.content) and str(cut.content).rstrip() == expected, (stop, cut.content)
        streamed = agglomerate_stream_deltas(
            list(model.generate_stream(self.messages(), stop_sequences=[stop]))
        )
        assert str(streamed.content or "").rstrip() == expected
        request = ModelRequest.from_call(self.messages(), stop_sequences=[stop])
        assert str(model.request(request).content).rstrip() == expected

    # --- streaming ---------------------------------------------------------------------------

    def test_the_stream_adds_up_to_the_reply(self, model: Model, reply: ChatMessage) -> None:
        deltas = list(model.generate_stream(self.messages()))
        assert deltas and all(isinstance(delta, ChatMessageStreamDelta) for delta in deltas)
        message = agglomerate_stream_deltas(deltas)
        assert message.content == reply.content
        if self.reports_usage:
            assert message.token_usage is not None and message.token_usage.output_tokens > 0
        pieces = [delta for delta in deltas if delta.content]
        if self.streams_in_pieces:
            assert len(pieces) > 1, "the reply came in one piece"
        else:
            assert pieces
            self.lacks(self.streams_in_pieces)

    # --- tools -------------------------------------------------------------------------------

    def test_tools_give_parsed_tool_calls(self, tool_model: Model) -> None:
        reply = tool_model.generate(self.messages(self.tool_prompt), tools_to_call_from=[get_weather])
        assert isinstance(reply, ChatMessage) and reply.role == MessageRole.ASSISTANT
        assert reply.tool_calls is None or all(isinstance(c, ChatMessageToolCall) for c in reply.tool_calls)
        self.lacks(self.calls_tools)
        assert reply.tool_calls, f"no tool call: {reply.content!r}"
        call = tool_model.parse_tool_calls(reply).tool_calls[0]  # type: ignore[index]
        assert call.function.name == "get_weather"
        assert isinstance(call.function.arguments, dict) and set(call.function.arguments) == {"city"}
        assert isinstance(call.function.arguments["city"], str)

    def test_streamed_tool_calls_add_up(self, tool_model: Model) -> None:
        self.lacks(self.calls_tools)
        deltas = tool_model.generate_stream(self.messages(self.tool_prompt), tools_to_call_from=[get_weather])
        message = agglomerate_stream_deltas(list(deltas))
        assert message.tool_calls, f"no tool call: {message.content!r}"
        call = message.tool_calls[0]
        arguments: Any = call.function.arguments
        if isinstance(arguments, str):
            arguments = json.loads(arguments)
        assert call.function.name == "get_weather" and set(arguments) == {"city"}

    # --- saving --------------------------------------------------------------------------------

    def test_to_dict_and_from_dict_round_trip(self, model: Model) -> None:
        data = model.to_dict()
        json.dumps(data)  # agents save it as JSON
        assert not set(data) & SECRET_KEYS, "secrets are never exported"
        rebuilt = type(model).from_dict(data)
        try:
            assert type(rebuilt) is type(model)
            assert rebuilt.to_dict() == data
        finally:
            close = getattr(rebuilt, "close", None)
            if callable(close):
                close()

    # --- faults --------------------------------------------------------------------------------

    def test_a_server_that_is_down_is_one_clear_error(self, request: pytest.FixtureRequest) -> None:
        self.lacks(self.has_a_server)
        model: Model = request.getfixturevalue("unreachable_model")
        for call in (
            lambda: model.generate(self.messages()),
            lambda: list(model.generate_stream(self.messages())),
        ):
            with pytest.raises(ModelAPIError) as caught:
                call()
            error = _one_line_error(caught, model)
            assert error.retryable and NOWHERE.removeprefix("http://") in str(error), str(error)

    def test_a_malformed_reply_is_one_clear_error(self, request: pytest.FixtureRequest) -> None:
        self.lacks(self.has_a_server)
        model: Model = request.getfixturevalue("malformed_reply_model")
        with pytest.raises(ModelAPIError) as caught:
            model.generate(self.messages())
        error = _one_line_error(caught, model)
        assert "malformed" in str(error) and not error.retryable, str(error)


def _one_line_error(caught: pytest.ExceptionInfo[ModelAPIError], model: Model) -> ModelAPIError:
    """The error, checked for what every model error says: one line, the model, the provider."""
    error = caught.value
    assert isinstance(error, SmolError) and isinstance(error, AgentGenerationError)
    assert "\n" not in str(error), str(error)
    assert error.model_id == model.model_id and error.provider, (error.model_id, error.provider)
    return error


def _stop_inside(text: str) -> str:
    """Two characters from the second half of `text` not at its start: cutting at them leaves a prefix."""
    for start in range(len(text) // 2, len(text) - 1):
        piece = text[start : start + 2]
        if piece.strip() == piece and text.find(piece) > 0:
            return piece
    raise AssertionError(f"the reply is too short to cut at a stop sequence: {text!r}")
