"""Any tool result becomes an observation or a clear step error, and what reaches the model is capped."""

from __future__ import annotations

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.executors.local import LocalPythonExecutor
from smol_core.messages import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from smol_core.testing import ScriptedModel


@tool
def big() -> int:
    """A number with 5,001 digits (past Python's int-to-text limit)."""
    return 10**5000


def code(source: str) -> str:
    return f"Thought: go.\n<code>\n{source}\n</code>"


def call(name: str, arguments: dict[str, object], call_id: str) -> ChatMessage:
    return ChatMessage(
        "assistant",
        "",
        tool_calls=[ChatMessageToolCall(ChatMessageToolCallFunction(name, arguments), call_id)],
    )


def test_a_code_agent_tool_result_that_cannot_cross_is_a_step_error_and_the_executor_stays_usable():
    model = ScriptedModel([code("r = big()"), code("final_answer(6 * 7)")])
    agent = CodeAgent(tools=[big], model=model, max_steps=3)
    with agent:
        assert agent.run("use big") == 42
    assert "could not be handed to the code" in str(agent.memory.steps[1].error)


def test_a_tool_calling_agent_tool_result_that_cannot_be_shown_is_described_not_raised():
    model = ScriptedModel([call("big", {}, "c1"), call("final_answer", {"answer": "done"}, "c2")])
    agent = ToolCallingAgent(tools=[big], model=model)
    assert agent.run("use big") == "done"
    assert "<int that cannot be shown as text" in str(agent.memory.steps[1].observations)


def test_huge_prints_are_cut_to_the_limit_with_a_note_that_says_how_much():
    with LocalPythonExecutor() as executor:
        output = executor("print('a' * 3_000_000 + 'THE END')")
        assert len(output.logs) < 21_000
        assert "so they have been truncated" in output.logs
        assert output.logs.rstrip().endswith("THE END")  # the tail, where results usually are, is kept
    with LocalPythonExecutor(max_print_outputs_length=100) as executor:
        assert "over 100 characters" in executor("print('b' * 1_000)").logs


def test_code_output_unpacks_as_in_smolagents_executor_examples():
    with LocalPythonExecutor() as executor:
        output, logs, is_final_answer = executor("print('hi')\n2 + 3")
    assert (output, logs, is_final_answer) == (5, "hi\n", False)


def test_assigning_to_a_tool_name_is_refused_and_the_tool_is_put_back():
    """As in smolagents: `final_answer = x` would break every later `final_answer(...)` call."""
    import pytest

    from smol_core.executors.base import InterpreterError

    with LocalPythonExecutor() as executor:
        with pytest.raises(InterpreterError, match="Cannot assign to name 'final_answer'"):
            executor("final_answer = 5\nprint(final_answer)")
        result = executor("final_answer(3)")
        assert (result.output, result.is_final_answer) == (3, True)


@tool
def double(x: int) -> int:
    """Doubles a number.

    Args:
        x: The number.
    """
    return 2 * x


def test_a_code_agent_recovers_after_the_model_shadows_a_tool():
    model = ScriptedModel([code("double = 1"), code("final_answer(double(21))")])
    agent = CodeAgent(tools=[double], model=model, max_steps=3)
    with agent:
        assert agent.run("double 21") == 42
    assert "Cannot assign to name 'double'" in str(agent.memory.steps[1].error)
