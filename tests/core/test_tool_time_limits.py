"""A tool that hangs must not hang the agent: every call has a time limit, on by default."""

from __future__ import annotations

import threading

import pytest

from smol_core import CodeAgent, Tool, ToolCallingAgent, tool
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from smol_core.testing import ScriptedModel
from smol_core.tools.time_limit import DEFAULT_TOOL_TIMEOUT_SECONDS, ToolTimeoutError, call_with_time_limit

release = threading.Event()


@tool
def hang(query: str) -> str:
    """Never answers (until the test releases it).

    Args:
        query: Anything.
    """
    release.wait(30)
    return "late"


class CallerThread(Tool):
    name = "caller_thread"
    description = "Says which thread it runs on."
    inputs: dict[str, dict[str, str]] = {}
    output_type = "string"
    timeout_seconds = None  # runs on the agent's own thread, with no limit

    def forward(self) -> str:
        return threading.current_thread().name


def code(source: str) -> str:
    return f"Thought: go.\n<code>\n{source}\n</code>"


def call(name: str, arguments: dict[str, object], call_id: str) -> ChatMessage:
    return ChatMessage(
        "assistant",
        "",
        tool_calls=[ChatMessageToolCall(ChatMessageToolCallFunction(name, arguments), call_id)],
    )


@pytest.fixture(autouse=True)
def _release_hung_tools():
    release.clear()
    yield
    release.set()


def test_the_limit_is_on_by_default():
    agent = CodeAgent(tools=[], model=ScriptedModel([]))
    assert agent.tool_timeout_seconds == DEFAULT_TOOL_TIMEOUT_SECONDS > 0


def test_a_code_agent_tool_that_hangs_becomes_an_error_the_model_sees_and_the_run_goes_on():
    model = ScriptedModel([code("print(hang('x'))"), code("final_answer('recovered')")])
    agent = CodeAgent(tools=[hang], model=model, tool_timeout_seconds=0.5, max_steps=3)
    with agent:
        assert agent.run("try the tool") == "recovered"
    failed = agent.memory.steps[1]
    assert "did not finish within 0.5 seconds" in str(failed.error)


def test_a_tool_calling_agent_tool_that_hangs_becomes_an_error_and_the_run_goes_on():
    model = ScriptedModel([call("hang", {"query": "x"}, "c1"), call("final_answer", {"answer": "ok"}, "c2")])
    agent = ToolCallingAgent(tools=[hang], model=model, tool_timeout_seconds=0.5, max_steps=3)
    assert agent.run("try the tool") == "ok"
    assert "did not finish within 0.5 seconds" in str(agent.memory.steps[1].error)


def test_a_tools_own_limit_wins_and_none_runs_it_on_the_callers_thread():
    model = ScriptedModel([call("caller_thread", {}, "c1"), call("final_answer", {"answer": "ok"}, "c2")])
    agent = ToolCallingAgent(tools=[CallerThread()], model=model, tool_timeout_seconds=0.1)
    assert agent.run("which thread?") == "ok"
    assert threading.current_thread().name in str(agent.memory.steps[1].observations)


def test_call_with_time_limit_returns_results_raises_errors_and_keeps_context():
    import contextvars

    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")
    seen.set("the caller's")
    assert call_with_time_limit(seen.get, 5, "ctx") == "the caller's"
    with pytest.raises(ZeroDivisionError):
        call_with_time_limit(lambda: 1 / 0, 5, "div")
    with pytest.raises(ToolTimeoutError, match="'slow' did not finish within 0.2 seconds"):
        call_with_time_limit(lambda: release.wait(30), 0.2, "slow")


# --- the step's budget: all tool calls of one step together -----------------------------------


@tool
def slow(query: str) -> str:
    """Answers after a while.

    Args:
        query: Anything.
    """
    release.wait(0.3)
    return "done"


def test_a_loop_of_slow_calls_stops_at_the_steps_budget_and_the_next_step_has_a_fresh_one():
    model = ScriptedModel(
        [
            code("for i in range(50):\n    print(slow('x'))"),
            code("print(slow('again'))\nfinal_answer('recovered')"),
        ]
    )
    agent = CodeAgent(tools=[slow], model=model, step_tool_budget_seconds=1.0, max_steps=3)
    with agent:
        assert agent.run("call it a lot") == "recovered"
    failed = agent.memory.steps[1]
    assert "tool time budget of 1 seconds" in str(failed.error)
    assert failed.observations is None or failed.observations.count("done") < 10  # cut short, not 50 calls


def test_a_tool_calling_step_is_cut_at_its_budget():
    model = ScriptedModel([call("hang", {"query": "x"}, "c1"), call("final_answer", {"answer": "ok"}, "c2")])
    agent = ToolCallingAgent(tools=[hang], model=model, step_tool_budget_seconds=0.3, max_steps=3)
    assert agent.run("try the tool") == "ok"
    assert "was stopped: this step has already spent its tool time budget of 0.3 seconds" in str(
        agent.memory.steps[1].error
    )


def test_the_budget_is_on_by_default_and_none_switches_it_off():
    from smol_core.tools.time_limit import DEFAULT_STEP_TOOL_BUDGET_SECONDS, StepToolBudget

    assert (
        CodeAgent(tools=[], model=ScriptedModel([])).tool_budget.seconds == DEFAULT_STEP_TOOL_BUDGET_SECONDS
    )
    unlimited = StepToolBudget(None)
    unlimited.charge(10**6)
    assert unlimited.limit_for(5.0, "t") == (5.0, False)


def test_caller_thread_tools_are_charged_and_refused_once_it_is_spent():
    from smol_core.tools.time_limit import StepToolBudget

    budget = StepToolBudget(1.0)
    assert budget.limit_for(None, "t") == (None, False)  # never moved off the caller's thread
    assert budget.call(lambda: threading.current_thread().name, None, "t") == threading.current_thread().name
    budget.charge(1.0)
    with pytest.raises(ToolTimeoutError, match="'t' was not run: this step has already spent"):
        budget.call(lambda: "never", None, "t")
    budget.start_step()
    assert budget.call(lambda: "fresh", None, "t") == "fresh"
    limit, by_budget = budget.limit_for(5.0, "t")
    assert by_budget and 0.9 < limit <= 1.0
