"""AmazonBedrockServerModel against the stand-in Bedrock server, through the real boto3 client."""

from __future__ import annotations

import base64
import json

import pytest
from bedrock_standin import Failure, event, exception_event, text_reply
from smol_model_bedrock import AmazonBedrockModel, AmazonBedrockServerModel, BedrockError

from smol_core.messages import ChatMessage, MessageRole, TokenUsage, agglomerate_stream_deltas
from smol_core.models.retry import RetryPolicy
from smol_core.tools.decorator import tool

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.01, jitter=False)


@tool
def get_weather(city: str) -> str:
    """Tells the weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny"


def make(client_kwargs: dict, **kwargs) -> AmazonBedrockServerModel:
    return AmazonBedrockServerModel(
        "us.amazon.nova-lite-v1:0", client_kwargs=client_kwargs, retry_policy=FAST_RETRIES, **kwargs
    )


def conversation() -> list[ChatMessage]:
    return [
        ChatMessage(role=MessageRole.SYSTEM, content="You are terse."),
        ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "Hi"}]),
        ChatMessage(role=MessageRole.ASSISTANT, content="Hello."),
        ChatMessage(role=MessageRole.TOOL_CALL, content="Calling tools: x"),
        ChatMessage(role=MessageRole.TOOL_RESPONSE, content="Observation: 4"),
        ChatMessage(role=MessageRole.USER, content=""),
    ]


def test_generate_sends_converse_and_reads_usage(bedrock, client_kwargs):
    bedrock.reply(text_reply("The answer is 4.", input_tokens=21, output_tokens=6))
    model = make(client_kwargs, max_tokens=64, temperature=0.0)
    message = model.generate(conversation(), stop_sequences=["Observation:"])

    assert message.role == MessageRole.ASSISTANT
    assert message.content == "The answer is 4."
    assert message.token_usage == TokenUsage(21, 6)
    [request] = bedrock.requests
    assert request.path.endswith("/converse") and request.model_id == "us.amazon.nova-lite-v1:0"
    assert request.headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
    body = request.body
    assert body["system"] == [{"text": "You are terse."}]
    # tool-call -> assistant and tool-response -> user, merged so roles alternate; blank message dropped
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [{"text": "Hello.\nCalling tools: x"}]  # one text, as smolagents
    assert body["inferenceConfig"] == {"maxTokens": 64, "temperature": 0.0, "stopSequences": ["Observation:"]}
    assert "toolConfig" not in body


def test_stop_sequences_are_also_cut_client_side(bedrock, client_kwargs):
    bedrock.reply(text_reply("Thought: x\nObservation: leaked"))
    message = make(client_kwargs).generate(
        [ChatMessage(role="user", content="go")], stop_sequences=["Observation:"]
    )
    assert message.content == "Thought: x\n"


def test_call_kwargs_override_model_defaults_and_pass_through(bedrock, client_kwargs):
    model = make(
        client_kwargs, max_tokens=64, guardrailConfig={"guardrailIdentifier": "g", "guardrailVersion": "1"}
    )
    model.generate([ChatMessage(role="user", content="go")], max_tokens=8, inferenceConfig={"topP": 0.5})
    body = bedrock.requests[0].body
    assert body["inferenceConfig"] == {"topP": 0.5, "maxTokens": 8}
    assert body["guardrailConfig"] == {"guardrailIdentifier": "g", "guardrailVersion": "1"}


def test_custom_role_conversions_fold_system_into_user(bedrock, client_kwargs):
    model = make(client_kwargs, custom_role_conversions={"system": "user"})
    model.generate([ChatMessage(role="system", content="Rules."), ChatMessage(role="user", content="go")])
    body = bedrock.requests[0].body
    assert "system" not in body
    assert body["messages"] == [
        {"role": "user", "content": [{"text": "Rules.\ngo"}]}
    ]  # merged, as smolagents


def test_tool_calls_round_trip(bedrock, client_kwargs):
    bedrock.reply(
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"text": "Let me check."},
                        {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris"}}},
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 30, "outputTokens": 9, "totalTokens": 39},
        }
    )
    model = make(client_kwargs)
    message = model.generate(
        [ChatMessage(role="user", content="Weather in Paris?")], tools_to_call_from=[get_weather]
    )
    [call] = message.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == (
        "tu_1",
        "get_weather",
        {"city": "Paris"},
    )
    assert model.parse_tool_calls(message).tool_calls[0].function.arguments == {"city": "Paris"}
    config = bedrock.requests[0].body["toolConfig"]
    assert config["toolChoice"] == {"any": {}}
    spec = config["tools"][0]["toolSpec"]
    assert spec["name"] == "get_weather" and "weather" in spec["description"]
    assert spec["inputSchema"]["json"]["properties"]["city"]["type"] == "string"


def test_images_are_sent_as_bytes(bedrock, client_kwargs):
    make(client_kwargs).generate(
        [
            ChatMessage(
                role="user",
                content=[{"type": "text", "text": "What is it?"}, {"type": "image", "image": PNG}],
            )
        ]
    )
    image = bedrock.requests[0].body["messages"][0]["content"][1]["image"]
    assert image["format"] == "png"
    assert base64.b64decode(image["source"]["bytes"]) == PNG  # boto3 base64-encodes blobs on the wire


def test_structured_output_uses_output_config(bedrock, client_kwargs):
    bedrock.reply(text_reply('{"answer": 4}'))
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
    message = make(client_kwargs).generate(
        [ChatMessage(role="user", content="2+2?")],
        response_format={"type": "json_schema", "json_schema": {"name": "result", "schema": schema}},
    )
    assert json.loads(message.content) == {"answer": 4}
    text_format = bedrock.requests[0].body["outputConfig"]["textFormat"]
    assert text_format["type"] == "json_schema"
    assert json.loads(text_format["structure"]["jsonSchema"]["schema"]) == schema


def test_streaming_decodes_event_frames(bedrock, client_kwargs):
    bedrock.reply(
        [
            event("messageStart", {"role": "assistant"}),
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}}),
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "lo"}}),
            event("contentBlockStop", {"contentBlockIndex": 0}),
            event(
                "contentBlockStart",
                {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tu_9", "name": "get_weather"}}},
            ),
            event(
                "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"city": '}}}
            ),
            event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"Oslo"}'}}}),
            event("contentBlockStop", {"contentBlockIndex": 1}),
            event("messageStop", {"stopReason": "tool_use"}),
            event(
                "metadata",
                {
                    "usage": {"inputTokens": 12, "outputTokens": 7, "totalTokens": 19},
                    "metrics": {"latencyMs": 3},
                },
            ),
        ]
    )
    deltas = list(
        make(client_kwargs).generate_stream(
            [ChatMessage(role="user", content="hi")], tools_to_call_from=[get_weather]
        )
    )
    assert bedrock.requests[0].path.endswith("/converse-stream")
    message = agglomerate_stream_deltas(deltas)
    assert message.content == "Hello"
    assert message.token_usage == TokenUsage(12, 7)
    [call] = message.tool_calls
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "tu_9",
        "get_weather",
        {"city": "Oslo"},
    )


def test_exception_event_mid_stream_is_a_clear_error(bedrock, client_kwargs):
    bedrock.reply(
        [
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "par"}}),
            exception_event("throttlingException", "slow down"),
        ]
    )
    stream = make(client_kwargs).generate_stream([ChatMessage(role="user", content="hi")])
    assert next(stream).content == "par"
    with pytest.raises(BedrockError, match="broke off.*slow down"):
        list(stream)


def test_throttling_is_retried_then_succeeds(bedrock, client_kwargs):
    bedrock.reply(
        Failure(429, "ThrottlingException"), Failure(503, "ServiceUnavailableException"), text_reply("done")
    )
    assert make(client_kwargs).generate([ChatMessage(role="user", content="go")]).content == "done"
    assert len(bedrock.requests) == 3


def test_retries_run_out_with_a_clear_error(bedrock, client_kwargs):
    bedrock.reply(*[Failure(429, "ThrottlingException", "Too many tokens")] * 3)
    with pytest.raises(BedrockError, match=r"nova-lite.*3 attempts.*ThrottlingException"):
        make(client_kwargs).generate([ChatMessage(role="user", content="go")])
    assert len(bedrock.requests) == 3


def test_bad_request_is_not_retried(bedrock, client_kwargs):
    bedrock.reply(Failure(400, "ValidationException", "The model id is wrong"))
    with pytest.raises(BedrockError, match="ValidationException.*model id is wrong"):
        make(client_kwargs).generate([ChatMessage(role="user", content="go")])
    assert len(bedrock.requests) == 1


def test_server_down_is_retried_then_clear(client_kwargs):
    model = make({**client_kwargs, "endpoint_url": "http://127.0.0.1:9"})
    with pytest.raises(BedrockError, match="3 attempts"):
        model.generate([ChatMessage(role="user", content="go")])


def test_alias_capabilities_and_secrets(client_kwargs):
    assert AmazonBedrockModel is AmazonBedrockServerModel
    model = make(client_kwargs, temperature=0.1)
    assert model.capabilities.stop_sequences and model.capabilities.tool_calling and model.capabilities.vision
    exported = model.to_dict()
    assert exported["model_id"] == "us.amazon.nova-lite-v1:0" and "secret" not in json.dumps(
        exported, default=str
    )


def test_a_500_is_a_model_api_error_naming_status_model_and_provider(bedrock, client_kwargs):
    from smol_core.errors import ModelAPIError

    bedrock.reply(*[Failure(500, "InternalServerException", "it broke")] * 3)
    with pytest.raises(ModelAPIError) as caught:
        make(client_kwargs).generate([ChatMessage(role="user", content="go")])
    error = caught.value
    assert len(bedrock.requests) == 3  # retried until the attempts ran out
    assert (error.status, error.model_id, error.provider, error.retryable) == (
        500,
        "us.amazon.nova-lite-v1:0",
        "Amazon Bedrock",
        True,
    )
    assert "status 500" in str(error) and "nova-lite" in str(error)


def test_no_region_is_one_error_that_says_what_to_set(monkeypatch, tmp_path):
    """boto3 without a region raised NoRegionError from deep inside botocore (a 63-line traceback)."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    with pytest.raises(BedrockError) as caught:
        AmazonBedrockServerModel("us.amazon.nova-lite-v1:0")
    message = str(caught.value)
    assert "AWS_REGION" in message and "region_name" in message and "\n" not in message
