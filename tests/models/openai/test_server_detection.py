"""OpenAIServerModel learns what a real llama.cpp server serves (SmolLM2-135M), and prompts it as in process.

Detection reads llama.cpp's `/props` and `/v1/models` once, on first use; a user's `capabilities=` /
`small=` wins; a server that says nothing (a stand-in without `/props`) leaves the generic defaults.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("openai")

from openai_standin import StandIn
from smol_model_openai import OpenAIServerModel

from smol_core import CodeAgent
from smol_core.memory import ActionStep
from smol_core.messages import ChatMessage, MessageRole
from smol_core.models.capabilities import ModelCapabilities
from smol_core.models.retry import RetryPolicy

FAST = RetryPolicy(max_attempts=2, base_delay=0.01, jitter=False)


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage(role=MessageRole.USER, content=text)]


class GetRecorder:
    """A server on 127.0.0.1 that answers every request 404 and records its path (nothing else)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                recorder.paths.append(self.path)
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"


@pytest.fixture
def recorder() -> Iterator[GetRecorder]:
    server = GetRecorder()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


# --- a real llama.cpp server -------------------------------------------------------------------------


@pytest.mark.llama
@pytest.mark.slow
def test_detects_the_small_model_and_grammar_behind_llama_cpp(llama_server: Any) -> None:
    model = OpenAIServerModel(llama_server.model_id, api_base=llama_server.base_url)
    caps = model.capabilities
    assert caps.small and caps.grammar and caps.structured_output
    info = model.detector.info
    assert info is not None and info.kind == "llama.cpp"
    assert info.model is not None and info.model.endswith(".gguf")
    assert info.n_params is not None and 100_000_000 < info.n_params < 200_000_000
    assert info.n_ctx == 4096 and info.chat_template
    assert "llama.cpp" in model.capabilities_reason and "135M" in model.capabilities_reason


@pytest.mark.llama
@pytest.mark.slow
def test_override_wins_over_detection(llama_server: Any) -> None:
    forced = OpenAIServerModel(llama_server.model_id, api_base=llama_server.base_url, small=False)
    assert not forced.capabilities.small and forced.capabilities.grammar  # the rest is still detected
    assert "overridden by the user: small=False" in forced.capabilities_reason
    fields = OpenAIServerModel(
        llama_server.model_id, api_base=llama_server.base_url, capabilities={"grammar": False}
    )
    assert fields.capabilities.small and not fields.capabilities.grammar
    off = OpenAIServerModel(llama_server.model_id, api_base=llama_server.base_url, detect_capabilities=False)
    assert not off.capabilities.small and off.detector.info is None


@pytest.mark.llama
@pytest.mark.slow
def test_grammar_reaches_the_server(llama_server: Any) -> None:
    model = OpenAIServerModel(
        llama_server.model_id, api_base=llama_server.base_url, max_tokens=8, temperature=0, retry_policy=FAST
    )
    reply = model.generate(user("What is the capital of France?"), grammar='root ::= "yes" | "no"')
    assert reply.text in ("yes", "no")


@pytest.mark.llama
@pytest.mark.slow
def test_agent_on_the_server_route_gets_the_small_model_mode_and_answers(llama_server: Any) -> None:
    model = OpenAIServerModel(
        llama_server.model_id,
        api_base=llama_server.base_url,
        max_tokens=256,
        temperature=0,
        retry_policy=FAST,
    )
    agent = CodeAgent(tools=[], model=model, max_steps=4, verbosity_level=-1)
    mode = agent.prompting_mode()
    assert "small-model prompt" in mode and "GBNF" in mode and "llama.cpp" in mode
    with agent:
        answer = agent.run("What is 17 times 23?")
    assert answer == 391
    step = next(s for s in agent.memory.steps if isinstance(s, ActionStep))
    assert step.code_action is not None and step.code_action.startswith("# What is 17 times 23?")
    assert step.token_usage is not None and step.token_usage.input_tokens < 3000


# --- servers that do not say -------------------------------------------------------------------------


def test_probes_wait_for_first_use_and_run_once(recorder: GetRecorder) -> None:
    model = OpenAIServerModel("smollm2", api_base=recorder.base_url)
    assert recorder.paths == []  # the constructor asks nothing
    first = model.capabilities
    asked = list(recorder.paths)
    assert "/props" in asked and "/v1/models" in asked
    assert model.capabilities == first and recorder.paths == asked  # cached


def test_a_server_without_props_keeps_the_generic_mode() -> None:
    with StandIn() as standin:  # answers chat completions only
        model = OpenAIServerModel("gpt-like", api_base=standin.url + "/v1", retry_policy=FAST)
        caps = model.capabilities
        assert not caps.small and not caps.grammar
        assert "did not say" in model.capabilities_reason
        assert model.generate(user("Hi")).text == "Hello!"  # requests go on as before
        assert [r.path for r in standin.requests] == ["/v1/chat/completions"]


def test_a_server_that_is_down_is_not_probed_twice() -> None:
    model = OpenAIServerModel("smollm2", api_base="http://127.0.0.1:9/v1")  # discard port: refused
    assert not model.capabilities.small
    assert model.detector.info is None


def test_a_name_with_a_size_is_enough(recorder: GetRecorder) -> None:
    model = OpenAIServerModel("SmolLM2-360M-Instruct", api_base=recorder.base_url)
    assert model.capabilities.small and not model.capabilities.grammar
    assert "360M" in model.capabilities_reason


def test_full_capabilities_skip_the_probes(recorder: GetRecorder) -> None:
    given = ModelCapabilities(small=True, grammar=True)
    model = OpenAIServerModel("smollm2", api_base=recorder.base_url, capabilities=given)
    assert model.capabilities == given and recorder.paths == []


def test_remote_servers_are_not_probed_by_default() -> None:
    model = OpenAIServerModel("gpt-4o-mini", api_base="https://api.example.com/v1", api_key="k")
    assert not model.capabilities.small  # no request left this machine: nothing listens there
    assert "not probed" in model.capabilities_reason
    assert not OpenAIServerModel("gpt-4o-mini", api_key="k").detector.should_probe


def test_unknown_capability_names_are_refused() -> None:
    with pytest.raises(ValueError, match="Unknown capabilities"):
        OpenAIServerModel("m", api_base="http://127.0.0.1:9/v1", capabilities={"tiny": True})


def test_grammar_travels_in_the_body_not_as_an_sdk_argument() -> None:
    with StandIn() as standin:
        model = OpenAIServerModel(
            "m", api_base=standin.url + "/v1", detect_capabilities=False, extra_body={"cache_prompt": True}
        )
        model.generate(user("Hi"), grammar='root ::= "ok"')
        body = standin.requests[0].body
    assert body["grammar"] == 'root ::= "ok"' and body["cache_prompt"] is True
    assert json.dumps(body)  # a plain JSON body
