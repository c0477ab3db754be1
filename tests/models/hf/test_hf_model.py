"""InferenceClientModel against a real llama.cpp server (SmolLM2-135M) through `base_url`, and a scripted stub."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from openai_stub import Error, chunk, completion, start_stub, tool_call
from smol_model_hf import InferenceClientError, InferenceClientModel

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


@pytest.fixture(autouse=True)
def _hub_online(monkeypatch):
    """huggingface_hub blocks *every* request under HF_HUB_OFFLINE=1, loopback included; these go to 127.0.0.1."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def test_offline_mode_is_a_clear_error(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    model = InferenceClientModel("m", base_url="http://127.0.0.1:9/v1", retry_policy=FAST)
    with pytest.raises(InferenceClientError, match="HF_HUB_OFFLINE=1: unset it"):
        model.generate(COUNT)


@pytest.fixture(scope="module")
def model(llama_server) -> InferenceClientModel:
    return InferenceClientModel(
        llama_server.model_id,
        base_url=llama_server.base_url,
        temperature=0.0,
        max_tokens=12,  # SmolLM2 writes "1, 2, 3, 4" of COUNT in 10 tokens
        retry_policy=FAST,
    )


def test_structured_output(model):
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 20}},
        "required": ["city"],
    }
    message = model.generate(
        [ChatMessage(role="user", content="Name a city in France as JSON.")],
        response_format={"type": "json_schema", "json_schema": {"name": "place", "schema": schema}},
        max_tokens=24,  # the grammar closes the object in about 12
    )
    assert set(json.loads(message.content)) == {"city"}


@pytest.fixture
def stub():
    server = start_stub()
    yield server
    server.close()


def stub_model(stub, **kwargs) -> InferenceClientModel:
    return InferenceClientModel("stub-model", base_url=stub.url, token="hf_x", retry_policy=FAST, **kwargs)


def test_tool_call_round_trip(stub):
    stub.replies.append(completion(None, [tool_call("get_weather", {"city": "Paris"})]))
    model = stub_model(stub)
    message = model.parse_tool_calls(
        model.generate([ChatMessage(role="user", content="Weather?")], tools_to_call_from=[get_weather])
    )
    [call] = message.tool_calls
    assert (call.function.name, call.function.arguments) == ("get_weather", {"city": "Paris"})
    assert message.token_usage.input_tokens == 7
    request = stub.requests[0]
    assert request["model"] == "stub-model" and request["tool_choice"] == "required"
    assert request["tools"][0]["function"]["name"] == "get_weather"


def test_streamed_tool_call(stub):
    stub.replies.append(
        [
            chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_7", "type": "function",
                   "function": {"name": "get_weather", "arguments": '{"city": '}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
            chunk(usage={"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}),
        ]
    )  # fmt: skip
    message = agglomerate_stream_deltas(
        list(stub_model(stub).generate_stream(COUNT, tools_to_call_from=[get_weather]))
    )
    [call] = message.tool_calls
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_weather", {"city": "Oslo"})
    assert message.token_usage.output_tokens == 4


def test_images_go_as_data_urls(stub):
    png = bytes.fromhex("89504e470d0a1a0a")
    stub_model(stub).generate(
        [
            ChatMessage(
                role="user", content=[{"type": "text", "text": "what?"}, {"type": "image", "image": png}]
            )
        ]
    )
    part = stub.requests[0]["messages"][0]["content"][1]
    assert part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,")


def test_rate_limit_is_retried_then_clear_error(stub):
    stub.replies += [Error(429, "slow down"), completion("fine")]
    assert stub_model(stub).generate(COUNT).content == "fine"
    stub.replies += [Error(503, "overloaded"), Error(503, "overloaded")]
    with pytest.raises(InferenceClientError, match=r"status 503.*2 attempt"):
        stub_model(stub).generate(COUNT)
    assert len(stub.requests) == 4


def test_bad_token_is_not_retried(stub):
    stub.replies.append(Error(401, "invalid token"))
    with pytest.raises(InferenceClientError, match="(?s)status 401.*HF_TOKEN"):
        stub_model(stub).generate(COUNT)
    assert len(stub.requests) == 1


def test_server_refusing_stop_is_asked_again_without_it(stub):
    stub.replies += [Error(400, "the 'stop' parameter is not supported"), completion("1, 2, 3, 4")]
    model = stub_model(stub)
    assert model.generate(COUNT, stop_sequences=["3"]).content == "1, 2, "
    assert "stop" not in stub.requests[1] and model.capabilities.stop_sequences is False


def test_server_down_is_retried_then_clear():
    model = InferenceClientModel("m", base_url="http://127.0.0.1:9/v1", retry_policy=FAST)
    with pytest.raises(InferenceClientError, match="2 attempt.*base_url"):
        model.generate(COUNT)


def test_token_and_api_key_are_exclusive():
    with pytest.raises(ValueError, match="Received both `token` and `api_key` arguments"):
        InferenceClientModel("m", token="a", api_key="b", base_url="http://127.0.0.1:9/v1")


def test_api_base_is_another_name_for_base_url(stub):
    """`smolagent --model-type InferenceClientModel --api-base URL` passes `api_base`, as for every API model."""
    stub.replies.append(completion("4"))
    model = InferenceClientModel("m", api_base=stub.url, token="hf_x", retry_policy=FAST)
    assert model.base_url == stub.url and model.generate(COUNT).content == "4"
    assert model.to_dict()["api_base"] == stub.url
    with pytest.raises(ValueError, match="`base_url` and `api_base`"):
        InferenceClientModel("m", api_base=stub.url, base_url="http://127.0.0.1:9/v1")


def test_structured_outputs_are_refused_for_a_named_provider_that_ignores_them():
    model = InferenceClientModel("m", token="abc", provider="some_provider")
    with pytest.raises(ValueError, match="only supports structured outputs with these providers: cerebras"):
        model.generate(COUNT, response_format={"type": "json_object"})


def test_secrets_are_not_exported(stub):
    exported = stub_model(stub, temperature=0.5).to_dict()
    assert exported["model_id"] == "stub-model" and exported["temperature"] == 0.5
    assert "hf_x" not in json.dumps(exported, default=str)


def test_plugin_registration_is_light():
    code = (
        "import sys, smol_model_hf._plugin as p; [s] = p.smol_models();"
        "assert s.name == 'inference' and 'hf' in s.aliases;"
        "assert 'huggingface_hub' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
