"""LiteLLMModel and LiteLLMRouterModel against a real llama.cpp server (SmolLM2-135M) on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from openai_stub import Error, chunk, completion, start_stub, tool_call
from smol_model_litellm import LiteLLMError, LiteLLMModel, LiteLLMRouterModel

from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas
from smol_core.models.retry import RetryPolicy
from smol_core.tools.decorator import tool

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)
COUNT = [ChatMessage(role=MessageRole.USER, content="Count from 1 to 10, separated by commas.")]


@tool
def get_weather(city: str) -> str:
    """Tells the weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny"


@pytest.fixture(scope="module")
def model(llama_server) -> LiteLLMModel:
    return LiteLLMModel(
        f"openai/{llama_server.model_id}",
        api_base=llama_server.base_url,
        api_key="none",
        temperature=0.0,
        max_tokens=12,  # SmolLM2 writes "1, 2, 3, 4" of COUNT in 10 tokens
        retry_policy=FAST,
    )


def test_stop_cut_client_side_when_not_supported(llama_server):
    model = LiteLLMModel(
        f"openai/{llama_server.model_id}", api_base=llama_server.base_url, api_key="none",
        temperature=0.0, max_tokens=12, supports_stop=False,
    )  # fmt: skip
    assert model.capabilities.stop_sequences is False
    cut = model.generate(COUNT, stop_sequences=["4"])
    assert "4" not in cut.content and cut.raw is not None
    streamed = agglomerate_stream_deltas(list(model.generate_stream(COUNT, stop_sequences=["4"])))
    assert streamed.content == cut.content


def test_structured_output(model):
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 20},
            "country": {"type": "string", "maxLength": 20},
        },
        "required": ["city", "country"],
    }
    message = model.generate(
        [ChatMessage(role="user", content="Name a city in France as JSON.")],
        response_format={"type": "json_schema", "json_schema": {"name": "place", "schema": schema}},
        max_tokens=40,  # the grammar closes the object in about 24
    )
    assert set(json.loads(message.content)) == {"city", "country"}


def test_tools_reach_the_real_server(model):
    message = model.generate(
        [ChatMessage(role="user", content="What is the weather in Paris?")],
        tools_to_call_from=[get_weather],
        max_tokens=4,
    )
    assert (
        message.token_usage.output_tokens > 0
    )  # a 135M model may answer in prose: the request is under test


@pytest.fixture
def stub():
    server = start_stub()
    yield server
    server.close()


def stub_model(stub, **kwargs) -> LiteLLMModel:
    return LiteLLMModel("openai/stub", api_base=stub.url, api_key="k", retry_policy=FAST, **kwargs)


def test_tool_call_round_trip(stub):
    stub.replies.append(completion(None, [tool_call("get_weather", {"city": "Paris"})]))
    message = stub_model(stub).generate(
        [ChatMessage(role="user", content="Weather?")], tools_to_call_from=[get_weather]
    )
    [call] = stub_model(stub).parse_tool_calls(message).tool_calls
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_1",
        "get_weather",
        {"city": "Paris"},
    )
    request = stub.requests[0]
    assert request["tool_choice"] == "required"
    assert request["tools"][0]["function"]["name"] == "get_weather"


def test_streamed_tool_call(stub):
    stub.replies.append(
        [
            chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_7", "type": "function",
                   "function": {"name": "get_weather", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
            chunk({}, finish_reason="tool_calls"),
            chunk(usage={"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}),
        ]
    )  # fmt: skip
    deltas = list(
        stub_model(stub).generate_stream(
            [ChatMessage(role="user", content="hi")], tools_to_call_from=[get_weather]
        )
    )
    message = agglomerate_stream_deltas(deltas)
    [call] = message.tool_calls
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "call_7",
        "get_weather",
        {"city": "Oslo"},
    )
    assert message.token_usage.input_tokens == 9 and message.token_usage.output_tokens == 4


def test_server_refusing_stop_is_asked_again_without_it(stub):
    stub.replies += [
        Error(400, "Unsupported parameter: 'stop' is not supported with this model."),
        completion("1, 2, 3, 4, 5"),
    ]
    model = stub_model(stub)
    assert (
        model.generate([ChatMessage(role="user", content="count")], stop_sequences=["4"]).content
        == "1, 2, 3, "
    )
    assert "stop" in stub.requests[0] and "stop" not in stub.requests[1]
    assert model.capabilities.stop_sequences is False  # remembered: the next call sends no stop
    model.generate([ChatMessage(role="user", content="count")], stop_sequences=["4"])
    assert "stop" not in stub.requests[2]


def test_rate_limit_is_retried(stub):
    stub.replies += [Error(429, "slow down"), completion("fine")]
    assert stub_model(stub).generate([ChatMessage(role="user", content="hi")]).content == "fine"
    assert len(stub.requests) == 2


def test_bad_key_is_not_retried(stub):
    stub.replies.append(Error(401, "invalid api key"))
    with pytest.raises(LiteLLMError, match="status 401.*api_key"):
        stub_model(stub).generate([ChatMessage(role="user", content="hi")])
    assert len(stub.requests) == 1


def test_router(llama_server):
    router = LiteLLMRouterModel(
        "small",
        model_list=[
            {
                "model_name": "small",
                "litellm_params": {
                    "model": f"openai/{llama_server.model_id}",
                    "api_base": llama_server.base_url,
                    "api_key": "none",
                },
            }
        ],
        client_kwargs={"routing_strategy": "simple-shuffle"},
        temperature=0.0,
        max_tokens=4,
    )
    message = router.generate([ChatMessage(role="user", content="What is the capital of France?")])
    assert message.content.strip() and message.token_usage.output_tokens > 0


def test_server_down_is_a_clear_error():
    model = LiteLLMModel("openai/x", api_base="http://127.0.0.1:9/v1", api_key="none", retry_policy=FAST)
    with pytest.raises(LiteLLMError, match=r"127.0.0.1:9.*2 attempt"):
        model.generate([ChatMessage(role="user", content="hi")])


def test_plugin_discovery_does_not_import_litellm():
    code = (
        "import sys, smol_model_litellm, smol_model_litellm._plugin as p;"
        "specs = p.smol_models(); assert [s.name for s in specs] == ['litellm', 'litellm-router'];"
        "assert 'litellm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
