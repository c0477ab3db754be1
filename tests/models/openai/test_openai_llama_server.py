"""OpenAIServerModel (the real openai SDK) against a real llama.cpp server serving SmolLM2 on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from smol_model_openai import OpenAIModel, OpenAIServerModel

from smol_core.errors import AgentGenerationError
from smol_core.messages import ChatMessage, MessageRole, agglomerate_stream_deltas
from smol_core.models.retry import RetryPolicy

pytestmark = [pytest.mark.llama, pytest.mark.slow]

FAST = RetryPolicy(max_attempts=3, base_delay=0.01, jitter=False)


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage(role=MessageRole.USER, content=text)]


@pytest.fixture(scope="module")
def model(llama_server: Any) -> OpenAIServerModel:
    return OpenAIServerModel(
        llama_server.model_id, api_base=llama_server.base_url, max_tokens=8, temperature=0, retry_policy=FAST
    )


def test_stop_sequences_client_side_when_the_server_refuses_stop(llama_server: Any) -> None:
    model = OpenAIServerModel(
        llama_server.model_id,
        api_base=llama_server.base_url,
        max_tokens=8,  # "The answer is 4." is 7 tokens
        temperature=0,
        supports_stop=False,
    )
    assert not model.supports_stop_parameter
    messages = user("What is 2+2? Answer briefly.")
    full = model.generate(messages).text
    cut = model.generate(messages, stop_sequences=["answer"]).text
    assert "answer" not in cut and full.startswith(cut)
    streamed = agglomerate_stream_deltas(list(model.generate_stream(messages, stop_sequences=["answer"])))
    assert streamed.text == cut
    assert streamed.token_usage is not None and streamed.token_usage.output_tokens > 0


def test_json_schema_response_format(model: OpenAIServerModel) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}, "unit": {"type": "string", "maxLength": 10}},
        "required": ["answer", "unit"],
    }
    reply = model.generate(
        user("How many legs does a cat have? Reply in JSON."),
        response_format={"type": "json_schema", "json_schema": {"name": "Answer", "schema": schema}},
        max_tokens=40,  # the grammar closes the object in about 25
    )
    value = json.loads(reply.text)
    assert isinstance(value["answer"], int) and isinstance(value["unit"], str)


def test_alias_and_role_conversions(llama_server: Any) -> None:
    model = OpenAIModel(
        llama_server.model_id,
        api_base=llama_server.base_url,
        max_tokens=4,
        custom_role_conversions={"system": "user"},
        flatten_messages_as_text=True,
    )
    messages = [ChatMessage(role=MessageRole.SYSTEM, content="Be brief."), *user("Say hi.")]
    assert model.generate(messages).text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_dead_server_is_a_clear_error_after_quick_retries() -> None:
    port = free_port()
    attempts: list[int] = []

    class Counting(RetryPolicy):
        def run(self, call: Any, describe: str = "model call") -> Any:
            def counted() -> Any:
                attempts.append(1)
                return call()

            return super().run(counted, describe)

    model = OpenAIServerModel(
        "smollm2", api_base=f"http://127.0.0.1:{port}/v1", retry_policy=Counting(3, 0.01)
    )
    started = time.monotonic()
    with pytest.raises(AgentGenerationError) as error:
        model.generate(user("hi"))
    assert time.monotonic() - started < 10
    assert len(attempts) == 3
    message = str(error.value)
    assert f"127.0.0.1:{port}" in message and "Could not reach" in message and "3 attempt" in message
    with pytest.raises(AgentGenerationError, match="Could not reach"):
        list(model.generate_stream(user("hi")))


def test_wrong_key_is_a_clear_error_without_retries(embedded_gguf: Path) -> None:
    from smol_model_llamacpp.server import LlamaServer

    with LlamaServer(embedded_gguf, n_ctx=512, n_threads=1, api_key="right-key") as server:
        model = OpenAIServerModel(
            server.model_id, api_base=server.base_url, api_key="wrong-key", retry_policy=FAST
        )
        started = time.monotonic()
        with pytest.raises(AgentGenerationError, match="rejected the API key \\(401\\)"):
            model.generate(user("hi"))
        assert time.monotonic() - started < 5
        good = OpenAIServerModel(server.model_id, api_base=server.base_url, api_key="right-key", max_tokens=4)
        assert good.generate(user("Say hi.")).text
