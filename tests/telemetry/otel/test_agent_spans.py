"""The span tree of agent runs, through the real OpenTelemetry SDK: names and nesting, GenAI
attributes, errors, retries, content only on opt-in, truncation, metrics."""

from __future__ import annotations

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from smol_core import CodeAgent, ToolCallingAgent
from smol_core.messages import ChatMessage, MessageRole, TokenUsage
from smol_core.models.api_model import ApiModel
from smol_core.models.retry import RetryPolicy
from smol_core.testing import ScriptedModel
from smol_core.testing.models import tool_call


def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def huge() -> str:
    """Returns a very long text."""
    return "x" * 200_000


def blob() -> bytes:
    """Returns binary data."""
    return b"\x89PNG" + bytes(50_000)


def broken(a: int) -> int:
    """Always fails.

    Args:
        a: Anything.
    """
    raise RuntimeError("the tool broke")


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def run_code_agent(replies, tools=(add,), **kwargs):
    agent = CodeAgent(tools=list(tools), model=ScriptedModel(replies), verbosity_level=-1, **kwargs)
    with agent:
        return agent.run("Add 2 and 3, then double it.")


def test_a_code_agent_run_is_a_tree_of_run_steps_model_calls_code_and_tools(traced):
    assert run_code_agent([code("x = add(2, 3)\nprint(x)"), code("final_answer(x * 2)")]) == 10
    run = traced.one("invoke_agent CodeAgent")
    assert run.parent is None
    assert traced.children(run) == ["step 1", "step 2"]
    step = traced.named("step 1")[0]
    assert traced.children(step) == ["chat scripted", "execute_code"]
    code_span = traced.named("execute_code")[0]
    assert traced.children(code_span) == ["execute_tool add"]  # called from the sandbox worker
    assert {s.context.trace_id for s in traced.spans()} == {run.context.trace_id}

    attributes = run.attributes
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.agent.name"] == "CodeAgent"
    assert attributes["gen_ai.agent.id"].startswith("CodeAgent-")
    assert attributes["gen_ai.request.model"] == "scripted"
    chat = traced.named("chat scripted")[0]
    assert chat.kind is SpanKind.CLIENT
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "scripted"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert chat.attributes["gen_ai.usage.output_tokens"] > 0
    assert step.attributes["gen_ai.usage.input_tokens"] == chat.attributes["gen_ai.usage.input_tokens"]
    tool = traced.one("execute_tool add")
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "add"
    assert tool.attributes["gen_ai.tool.call.id"]
    assert code_span.attributes["gen_ai.tool.name"] == "python_interpreter"
    assert all(s.status.status_code is not StatusCode.ERROR for s in traced.spans())


def test_content_is_not_recorded_unless_the_user_opts_in(traced):
    run_code_agent([code("x = add(2, 3)\nfinal_answer(x)")])
    content = {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "smol.code",
        "smol.code.logs",
        "input.value",
        "output.value",
    }
    for span in traced.spans():
        assert not content & set(span.attributes), span.name


def test_opted_in_content_is_recorded_in_the_conventions_names(traced_content):
    run_code_agent([code("x = add(2, 3)\nprint('sum', x)\nfinal_answer(x)")])
    chat = traced_content.named("chat scripted")[0]
    assert '"role": "system"' in chat.attributes["gen_ai.input.messages"]
    assert "add(2, 3)" in chat.attributes["gen_ai.output.messages"]
    code_span = traced_content.one("execute_code")
    assert "add(2, 3)" in code_span.attributes["smol.code"]
    assert "sum 5" in code_span.attributes["smol.code.logs"]
    tool = traced_content.one("execute_tool add")
    assert tool.attributes["gen_ai.tool.call.arguments"] == "[[2, 3], {}]"
    assert tool.attributes["gen_ai.tool.call.result"] == "5"
    run = traced_content.one("invoke_agent CodeAgent")
    assert "Add 2 and 3" in run.attributes["gen_ai.input.messages"]
    assert "5" in run.attributes["gen_ai.output.messages"]


def test_huge_results_are_cut_and_binary_content_is_never_sent(traced_content):
    run_code_agent(
        [code("text = huge()\ndata = blob()\nfinal_answer(len(text) + len(data))")], tools=[huge, blob]
    )
    long_text = traced_content.one("execute_tool huge").attributes["gen_ai.tool.call.result"]
    assert len(long_text) <= 1000 and "more characters" in long_text
    binary = traced_content.one("execute_tool blob").attributes["gen_ai.tool.call.result"]
    assert "50004 bytes, not recorded" in binary and "\\u0000" not in binary
    for span in traced_content.spans():
        for value in span.attributes.values():
            assert not isinstance(value, str) or len(value) <= 1000


def test_failing_code_marks_the_code_and_its_step_as_errors_and_the_run_goes_on(traced):
    assert run_code_agent([code("1 / 0"), code("final_answer(1)")]) == 1
    step = traced.one("step 1")
    assert step.status.status_code is StatusCode.ERROR
    assert step.attributes["error.type"] == "AgentExecutionError"
    failed = traced.named("execute_code")[0]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["error.type"] == "InterpreterError"
    assert failed.status.description == "InterpreterError (message not recorded: content capture is off)"
    assert [e.name for e in failed.events] == ["exception"]
    assert traced.one("step 2").status.status_code is StatusCode.UNSET
    assert traced.one("invoke_agent CodeAgent").status.status_code is StatusCode.UNSET


def test_a_failing_tool_called_from_code_is_an_error_span_under_the_code(traced):
    run_code_agent(
        [code("try:\n    broken(1)\nexcept Exception as e:\n    print(e)"), code("final_answer(0)")],
        tools=[broken],
    )
    tool = traced.one("execute_tool broken")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.attributes["error.type"] == "RuntimeError"
    assert traced.named("execute_code")[0].context.span_id == tool.parent.span_id


def test_tool_calling_agent_calls_in_parallel_threads_nest_under_their_step(traced):
    model = ScriptedModel(
        [
            ChatMessage(
                MessageRole.ASSISTANT,
                "",
                tool_calls=[tool_call("add", {"a": 1, "b": 2}, "c1"), tool_call("broken", {"a": 1}, "c2")],
            ),
            ChatMessage(
                MessageRole.ASSISTANT, "", tool_calls=[tool_call("final_answer", {"answer": "done"}, "c3")]
            ),
        ]
    )
    agent = ToolCallingAgent(tools=[add, broken], model=model, verbosity_level=-1)
    assert agent.run("go") == "done"
    step = traced.one("step 1")
    assert set(traced.children(step)) == {"chat scripted", "execute_tool add", "execute_tool broken"}
    ids = {traced.one(f"execute_tool {name}").attributes["gen_ai.tool.call.id"] for name in ("add", "broken")}
    assert len(ids) == 2 and all(i.startswith("sha256:") for i in ids)  # the model's text: a digest
    failed = traced.one("execute_tool broken")
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["gen_ai.tool.description"] == "Always fails."
    assert step.status.status_code is StatusCode.ERROR


class FlakyModel(ApiModel):
    """An API model whose server fails twice with a rate limit, then answers."""

    provider_name = "flaky"

    def __init__(self) -> None:
        self.failures = 2
        super().__init__(
            model_id="flaky-1", retry_policy=RetryPolicy(sleep=lambda seconds: None, jitter=False)
        )

    def create_client(self):
        return object()

    def build_request(self, request, stream):
        return {}

    def call_api(self, payload, stream):
        if self.failures:
            self.failures -= 1
            error = RuntimeError("429 Too Many Requests")
            raise error
        return "<code>\nfinal_answer(7)\n</code>"

    def parse_response(self, response, request):
        return ChatMessage(MessageRole.ASSISTANT, response, token_usage=TokenUsage(10, 3))


def test_each_retry_of_a_model_call_is_an_event_with_its_reason(traced):
    agent = CodeAgent(tools=[], model=FlakyModel(), verbosity_level=-1)
    with agent:
        assert agent.run("seven") == 7
    chat = traced.one("chat flaky-1")
    retries = [e for e in chat.events if e.name == "retry"]
    assert [e.attributes["retry.attempt"] for e in retries] == [1, 2]
    assert retries[0].attributes["error.type"] == "RuntimeError"
    assert "retry.reason" not in retries[0].attributes  # the error's message is content
    assert chat.attributes["gen_ai.provider.name"] == "flaky"
    assert chat.status.status_code is StatusCode.UNSET


def test_a_model_that_fails_for_good_is_an_error_on_the_call_the_step_and_the_run(traced):
    model = ScriptedModel([ValueError("the server is gone")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    with agent, pytest.raises(Exception, match="server is gone"):
        agent.run("anything")
    assert traced.one("chat scripted").attributes["error.type"] == "ValueError"
    assert traced.one("step 1").status.status_code is StatusCode.ERROR
    run = traced.one("invoke_agent CodeAgent")
    assert run.status.status_code is StatusCode.ERROR
    assert run.attributes["error.type"] == "AgentGenerationError"


def test_final_answer_checks_and_planning_have_spans(traced):
    def positive(answer, memory):
        return answer > 0

    run_code_agent(
        ["Plan: add.\n<end_plan>", code("final_answer(-1)"), code("final_answer(5)")],
        tools=[],
        final_answer_checks=[positive],
        planning_interval=5,
    )
    checks = traced.named("final_answer_check positive")
    assert [c.attributes["smol.check.passed"] for c in checks] == [False, True]
    step = traced.one("step 1")
    assert checks[0].parent.span_id == step.context.span_id
    assert step.status.status_code is StatusCode.ERROR
    planning = traced.one("planning")
    assert traced.children(planning) == ["chat scripted"]


def test_managed_agents_nest_under_the_managers_tool_call(traced):
    helper = CodeAgent(
        tools=[],
        model=ScriptedModel([code("final_answer('42')")]),
        name="helper",
        description="Finds 42.",
        verbosity_level=-1,
    )
    manager = CodeAgent(
        tools=[],
        model=ScriptedModel([code("r = helper('find it')\nfinal_answer(r)")]),
        managed_agents=[helper],
        verbosity_level=-1,
    )
    with manager:
        assert "42" in manager.run("ask the helper")
    inner = traced.one("invoke_agent helper")
    call = traced.one("execute_tool helper")
    assert inner.parent.span_id == call.context.span_id
    assert {s.context.trace_id for s in traced.spans()} == {inner.context.trace_id}


def test_a_streamed_run_and_streamed_model_replies_are_traced(traced):
    agent = CodeAgent(
        tools=[add],
        model=ScriptedModel([code("final_answer(add(1, 1))")]),
        stream_outputs=True,
        verbosity_level=-1,
    )
    with agent:
        events = list(agent.run("one plus one", stream=True))
    assert events[-1].output == 2
    chat = traced.one("chat scripted")
    assert chat.attributes["smol.model.stream"] is True
    assert chat.attributes["gen_ai.usage.output_tokens"] > 0
    assert chat.parent.span_id == traced.one("step 1").context.span_id


def test_token_usage_and_durations_are_metrics(traced):
    run_code_agent([code("final_answer(add(2, 3))")])
    tokens = traced.metric_points("gen_ai.client.token.usage")
    assert {p.attributes["gen_ai.token.type"] for p in tokens} == {"input", "output"}
    assert all(p.attributes["gen_ai.request.model"] == "scripted" for p in tokens)
    durations = traced.metric_points("gen_ai.client.operation.duration")
    assert {p.attributes["gen_ai.operation.name"] for p in durations} == {"chat", "invoke_agent"}
    assert traced.metric_points("gen_ai.execute_tool.duration")


def test_uninstrument_stops_tracing(traced):
    import smol_telemetry_otel

    smol_telemetry_otel.uninstrument(traced.instrumentor)
    run_code_agent([code("final_answer(1)")])
    assert traced.exporter.get_finished_spans() == ()
