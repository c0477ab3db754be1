"""AmazonBedrockServerModel through the model conformance kit: the real boto3 client, stand-in servers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from bedrock_standin import StandInBedrock, start_server, text_reply
from smol_model_bedrock import AmazonBedrockServerModel

from smol_core.models.retry import RetryPolicy
from smol_core.testing.model_conformance import NOWHERE, ModelConformance

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)
MODEL_ID = "us.amazon.nova-lite-v1:0"
WEATHER_CALL = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {"city": "Paris"}}}
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 30, "outputTokens": 9, "totalTokens": 39},
}


def bedrock_model(endpoint_url: str) -> AmazonBedrockServerModel:
    return AmazonBedrockServerModel(MODEL_ID, client_kwargs={"endpoint_url": endpoint_url}, retry_policy=FAST)


@pytest.fixture(scope="class")
def aws_settings() -> Iterator[None]:
    """A region and fixed credentials from the environment, as a user's (so `from_dict` needs no more)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_EC2_METADATA_DISABLED", "true")
        env.setenv("AWS_REGION", "us-east-1")
        env.setenv("AWS_DEFAULT_REGION", "us-east-1")
        env.setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
        env.setenv("AWS_SECRET_ACCESS_KEY", "secret")
        env.delenv("AWS_PROFILE", raising=False)
        yield


@contextmanager
def standin(default: dict[str, Any]) -> Iterator[StandInBedrock]:
    server, state = start_server()
    state.default = default
    state.honours_stops = True
    yield state
    server.shutdown()
    server.server_close()


class TestBedrockConformance(ModelConformance):
    @pytest.fixture(scope="class")
    @classmethod
    def model(cls, aws_settings: None) -> Iterator[AmazonBedrockServerModel]:
        with standin(text_reply("The answer is 4, since two and two make four.")) as state:
            yield bedrock_model(state.url)

    @pytest.fixture(scope="class")
    @classmethod
    def tool_model(cls, aws_settings: None) -> Iterator[AmazonBedrockServerModel]:
        with standin(WEATHER_CALL) as state:
            yield bedrock_model(state.url)

    @pytest.fixture(scope="class")
    @classmethod
    def unreachable_model(cls, aws_settings: None) -> AmazonBedrockServerModel:
        return bedrock_model(NOWHERE)

    @pytest.fixture(scope="class")
    @classmethod
    def malformed_reply_model(cls, aws_settings: None) -> Iterator[AmazonBedrockServerModel]:
        with standin({"unexpected": True}) as state:
            yield bedrock_model(state.url)
