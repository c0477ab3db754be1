"""The real openai SDK against a stand-in server: Azure's URL scheme, retries, tool calls, images."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("openai")

from openai_standin import Reply, StandIn, chunks, completion
from smol_model_openai import AzureOpenAIModel, AzureOpenAIServerModel, OpenAIServerModel

from smol_core import tool
from smol_core.errors import AgentGenerationError, SmolError
from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas
from smol_core.models.retry import RetryPolicy

FAST = RetryPolicy(max_attempts=3, base_delay=0.01, jitter=False)
API_VERSION = "2024-10-21"


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage(role=MessageRole.USER, content=text)]


@tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


ADD_CALL = {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 3, "b": 4}'}}


def azure(standin: StandIn, **kwargs: object) -> AzureOpenAIServerModel:
    return AzureOpenAIServerModel(
        "my-deployment",
        azure_endpoint=standin.url,
        api_key="azure-key",
        api_version=API_VERSION,
        retry_policy=FAST,
        **kwargs,  # type: ignore[arg-type]
    )


def test_azure_url_scheme_key_header_and_usage() -> None:
    with StandIn(required_headers={"api-key": "azure-key"}, path_prefix="/openai/deployments/") as server:
        reply = azure(server).generate(user("hi"), stop_sequences=["Observation:"])
        assert reply.text == "Hello!"
        assert reply.token_usage is not None and reply.token_usage.dict()["total_tokens"] == 18
        (request,) = server.requests
        assert request.path == "/openai/deployments/my-deployment/chat/completions"
        assert request.query == {"api-version": [API_VERSION]}
        assert request.headers["api-key"] == "azure-key"
        assert "authorization" not in request.headers
        assert request.body["stop"] == ["Observation:"]
        assert request.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_azure_streaming_and_alias() -> None:
    assert AzureOpenAIModel is AzureOpenAIServerModel
    with StandIn(
        script=[Reply(stream=chunks("Hel", "lo", "!"))], required_headers={"api-key": "azure-key"}
    ) as server:
        deltas = list(azure(server).generate_stream(user("hi")))
        message = agglomerate_stream_deltas(deltas)
        assert message.text == "Hello!"
        assert message.token_usage is not None and message.token_usage.output_tokens == 3
        assert server.requests[0].body["stream"] is True
        assert server.requests[0].body["stream_options"] == {"include_usage": True}


def test_azure_wrong_key_and_configuration_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with StandIn(required_headers={"api-key": "azure-key"}) as server:
        model = AzureOpenAIServerModel(
            "dep", azure_endpoint=server.url, api_key="nope", api_version=API_VERSION, retry_policy=FAST
        )
        with pytest.raises(AgentGenerationError, match=r"Azure OpenAI at .* rejected the API key \(401\)"):
            model.generate(user("hi"))
        assert len(server.requests) == 1  # a bad key is not retried
    for name in ("AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SmolError, match="azure_endpoint"):
        AzureOpenAIServerModel("dep", api_key="k", api_version=API_VERSION)
    with pytest.raises(SmolError, match="api_version"):
        AzureOpenAIServerModel("dep", azure_endpoint="http://127.0.0.1:1", api_key="k")
    with pytest.raises(SmolError, match="credentials"):
        AzureOpenAIServerModel("dep", azure_endpoint="http://127.0.0.1:1", api_version=API_VERSION)


def test_azure_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with StandIn(required_headers={"api-key": "env-key"}) as server:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.url)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "env-key")
        monkeypatch.setenv("OPENAI_API_VERSION", API_VERSION)
        model = AzureOpenAIServerModel("dep")
        assert model.generate(user("hi")).text == "Hello!"
        assert "api_key" not in model.to_dict() and model.to_dict()["azure_endpoint"] == server.url


@pytest.mark.parametrize("status", [429, 500, 503])
def test_retries_with_backoff_then_success(status: int) -> None:
    failure = Reply(status=status, body={"error": {"message": "busy"}})
    with StandIn(script=[failure, failure]) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1", retry_policy=FAST)
        assert model.generate(user("hi")).text == "Hello!"
        assert len(server.requests) == 3


def test_retries_exhausted_is_a_clear_error() -> None:
    failure = Reply(status=429, body={"error": {"message": "slow down"}})
    with StandIn(script=[failure] * 5) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1", retry_policy=FAST)
        started = time.monotonic()
        with pytest.raises(
            AgentGenerationError, match=r"kept rate-limiting 'm' after 3 attempt\(s\) \(429\): slow down"
        ):
            model.generate(user("hi"))
        assert time.monotonic() - started < 5
        assert len(server.requests) == 3


def test_bad_request_is_not_retried() -> None:
    with StandIn(script=[Reply(status=400, body={"error": {"message": "bad schema"}})]) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1", retry_policy=FAST)
        with pytest.raises(AgentGenerationError, match=r"refused the request for 'm' \(400\): bad schema"):
            model.generate(user("hi"))
        assert len(server.requests) == 1


def test_tool_calls_request_and_reply() -> None:
    with StandIn(script=[Reply(body=completion(None, [ADD_CALL]))]) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1")
        reply = model.generate(user("Add 3 and 4."), tools_to_call_from=[add])
        assert reply.tool_calls and reply.tool_calls[0].function.name == "add"
        parsed = model.parse_tool_calls(reply)
        assert parsed.tool_calls and parsed.tool_calls[0].function.arguments == {"a": 3, "b": 4}
        body = server.requests[0].body
        assert body["tool_choice"] == "required"
        assert body["tools"][0]["function"]["name"] == "add"
        assert body["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]


def test_tool_calls_stream() -> None:
    pieces = [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 3'}},
        {"index": 0, "function": {"arguments": ', "b": 4}'}},
    ]
    with StandIn(script=[Reply(stream=chunks(tool_calls=pieces))]) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1")
        message = agglomerate_stream_deltas(
            list(model.generate_stream(user("Add."), tools_to_call_from=[add]))
        )
        assert message.tool_calls and message.tool_calls[0].function.name == "add"
        assert json.loads(message.tool_calls[0].function.arguments) == {"a": 3, "b": 4}


def test_images_are_sent_as_data_urls() -> None:
    png = b"\x89PNG\r\n\x1a\nfake"
    with StandIn() as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1", organization="org-1", project="proj-1")
        message = ChatMessage(
            role=MessageRole.USER,
            content=[{"type": "text", "text": "What is this?"}, {"type": "image", "image": png}],
        )
        model.generate([message], response_format={"type": "json_object"})
        request = server.requests[0]
        parts = request.body["messages"][0]["content"]
        assert parts[1]["type"] == "image_url"
        assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
        assert request.body["response_format"] == {"type": "json_object"}
        assert (
            request.headers["openai-organization"] == "org-1"
            and request.headers["openai-project"] == "proj-1"
        )


def test_no_key_for_openai_itself_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(SmolError, match="OPENAI_API_KEY"):
        OpenAIServerModel("gpt-4o-mini")


def test_reasoning_models_get_no_stop_parameter() -> None:
    with StandIn(script=[Reply(body=completion("Thought: x\nObservation: y"))]) as server:
        model = OpenAIServerModel("o4-mini", api_base=server.url + "/v1")
        reply = model.generate(user("hi"), stop_sequences=["Observation:"])
        assert "stop" not in server.requests[0].body
        assert reply.text == "Thought: x\n"


def test_server_refusing_stop_is_asked_again_without_it() -> None:
    refusal = Reply(
        status=400, body={"error": {"message": "Unsupported parameter: 'stop' is not supported."}}
    )
    script = [
        refusal,
        Reply(body=completion("Thought: x\nObservation: y")),
        Reply(stream=chunks("a", "bX", "c")),
    ]
    with StandIn(script=script) as server:
        model = OpenAIServerModel("m", api_base=server.url + "/v1", retry_policy=FAST)
        assert model.generate(user("hi"), stop_sequences=["Observation:"]).text == "Thought: x\n"
        assert server.requests[0].body["stop"] == ["Observation:"] and "stop" not in server.requests[1].body
        assert not model.supports_stop_parameter  # remembered: no second refusal
        streamed = agglomerate_stream_deltas(list(model.generate_stream(user("hi"), stop_sequences=["X"])))
        assert streamed.text == "ab" and "stop" not in server.requests[2].body
        assert len(server.requests) == 3


def test_plugin_registers_both_names() -> None:
    from smol_model_openai import _plugin

    specs = {spec.name: spec for spec in _plugin.smol_models()}
    assert set(specs) == {"openai", "azure-openai"}
    assert specs["openai"].factory.target == "smol_model_openai.model:OpenAIServerModel"  # type: ignore[attr-defined]
