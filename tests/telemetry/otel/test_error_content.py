"""Telemetry records no content without opt-in, errors included.

An exception's message is content: a tool's error quotes its arguments, a parsing error quotes the
model's raw output, a server's error echoes the request. With content capture off (the default), a
failed span records the error's type and a redacted message, and so do retry events; span names
and ids made by the model are not recorded as given. Opted in, the messages are recorded as before.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

from smol_core import CodeAgent, ToolCallingAgent
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole
from smol_core.models.api_model import ApiModel
from smol_core.models.retry import RetryPolicy
from smol_core.testing import ScriptedModel

SECRET = "SECRET-4f1c9b"


def fussy(value: str) -> str:
    """Refuses every value, quoting it.

    Args:
        value: Anything.
    """
    raise ValueError(f"cannot use {value!r}")


def _texts(span: ReadableSpan) -> list[str]:
    texts = [span.name, str(span.status.description or "")]
    texts += [f"{k}={v}" for k, v in (span.attributes or {}).items()]
    for event in span.events:
        texts.append(event.name)
        texts += [f"{k}={v}" for k, v in (event.attributes or {}).items()]
    return texts


def _leaks(spans: list[ReadableSpan]) -> list[str]:
    return [text for span in spans for text in _texts(span) if SECRET in text]


def _code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def _run(agent: Any, task: str = "the task") -> Any:
    with agent:
        try:
            return agent.run(task)
        except Exception as error:  # noqa: BLE001 - the spans are what the test reads
            return error


def test_a_tools_error_quoting_its_arguments_is_not_recorded_from_code(traced):
    replies = [_code(f"fussy('{SECRET}')"), _code(f"raise ValueError('{SECRET}')"), _code("final_answer(1)")]
    _run(CodeAgent(tools=[fussy], model=ScriptedModel(replies), verbosity_level=-1))
    spans = traced.spans()
    assert traced.one("execute_tool fussy").attributes["error.type"] == "ValueError"
    assert any(s.status.description for s in spans)  # errors are still recorded: type and redaction
    assert _leaks(spans) == []


def test_a_tools_error_is_not_recorded_from_tool_calls(traced):
    replies = [
        {"name": "fussy", "arguments": {"value": SECRET}},
        {"name": "final_answer", "arguments": {"answer": "done"}},
    ]
    _run(ToolCallingAgent(tools=[fussy], model=ScriptedModel(replies), verbosity_level=-1))
    spans = traced.spans()
    assert traced.one("execute_tool fussy").attributes["error.type"] == "AgentToolExecutionError"
    assert _leaks(spans) == []


def test_the_models_raw_output_in_a_parsing_error_is_not_recorded(traced):
    replies = [f"No code here, only {SECRET}", _code("final_answer(1)")]
    _run(CodeAgent(tools=[], model=ScriptedModel(replies), verbosity_level=-1))
    step = traced.one("step 1")
    assert step.attributes["error.type"] == "AgentParsingError"
    assert _leaks(traced.spans()) == []


def test_a_tool_name_and_call_id_the_model_made_up_are_not_recorded(traced):
    made_up = ChatMessage(
        MessageRole.ASSISTANT,
        "",
        tool_calls=[
            ChatMessageToolCall(
                id=f"id-{SECRET}", type="function", function=ChatMessageToolCallFunction(SECRET, {})
            )
        ],
    )
    replies = [made_up, {"name": "final_answer", "arguments": {"answer": "done"}}]
    _run(ToolCallingAgent(tools=[fussy], model=ScriptedModel(replies), verbosity_level=-1))
    assert traced.named("execute_tool (unknown tool)")
    assert _leaks(traced.spans()) == []


def test_a_model_error_echoing_the_request_is_not_recorded(traced):
    _run(CodeAgent(tools=[], model=ScriptedModel([ValueError(f"bad request: {SECRET}")]), verbosity_level=-1))
    assert traced.one("chat scripted").attributes["error.type"] == "ValueError"
    assert _leaks(traced.spans()) == []


class _Refused(RuntimeError):
    status_code = 429


class EchoingModel(ApiModel):
    """Fails twice with a retryable error that echoes the prompt, as some servers do."""

    def __init__(self) -> None:
        self.failures = 2
        super().__init__(
            model_id="echo-1", retry_policy=RetryPolicy(sleep=lambda seconds: None, jitter=False)
        )

    def create_client(self) -> object:
        return object()

    def build_request(self, request: Any, stream: bool) -> dict[str, Any]:
        return {}

    def call_api(self, payload: Any, stream: bool) -> str:
        if self.failures:
            self.failures -= 1
            raise _Refused(f"429 slow down; your prompt was: {SECRET}")
        return "<code>\nfinal_answer(7)\n</code>"

    def parse_response(self, response: Any, request: Any) -> ChatMessage:
        return ChatMessage(MessageRole.ASSISTANT, response)


def test_a_retry_reason_is_content_and_its_status_is_not(traced):
    assert _run(CodeAgent(tools=[], model=EchoingModel(), verbosity_level=-1)) == 7
    retries = [e for e in traced.one("chat echo-1").events if e.name == "retry"]
    assert [e.attributes["retry.attempt"] for e in retries] == [1, 2]
    assert retries[0].attributes["error.type"] == "_Refused"
    assert retries[0].attributes["http.response.status_code"] == 429
    assert _leaks(traced.spans()) == []


def test_opted_in_error_messages_are_recorded(traced_content):
    replies = [_code(f"fussy('{SECRET}')"), _code("final_answer(1)")]
    _run(CodeAgent(tools=[fussy], model=ScriptedModel(replies), verbosity_level=-1))
    assert SECRET in traced_content.one("execute_tool fussy").status.description
    _run(CodeAgent(tools=[], model=EchoingModel(), verbosity_level=-1))
    retry = next(e for e in traced_content.one("chat echo-1").events if e.name == "retry")
    assert SECRET in retry.attributes["retry.reason"]


def test_opted_in_code_errors_keep_their_message(traced_content):
    _run(
        CodeAgent(
            tools=[], model=ScriptedModel([_code("1 / 0"), _code("final_answer(1)")]), verbosity_level=-1
        )
    )
    assert "ZeroDivisionError" in traced_content.named("execute_code")[0].status.description


def test_a_call_id_is_a_digest_without_content_capture(traced):
    replies = [
        {"name": "fussy", "arguments": {"value": "x"}},
        {"name": "final_answer", "arguments": {"answer": "done"}},
    ]
    _run(ToolCallingAgent(tools=[fussy], model=ScriptedModel(replies), verbosity_level=-1))
    ids = {s.attributes.get("gen_ai.tool.call.id") for s in traced.spans()} - {None}
    assert ids and all(str(i).startswith("sha256:") for i in ids)
