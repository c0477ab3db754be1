"""A ToolCallingAgent's tool calls behave as in smolagents 1.26: `process_tool_calls(chat_message,
memory_step)` (the hook smolagents' step calls, and code written for it calls or overrides) and a
final answer given together with other calls."""

from __future__ import annotations

from typing import Any

import pytest

from smol_core import (
    ActionStep,
    AgentExecutionError,
    AgentToolCallError,
    AgentToolExecutionError,
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    ToolCall,
    ToolCallingAgent,
    ToolOutput,
    tool,
)
from smol_core.testing import ScriptedModel


@tool
def shout(text: str) -> str:
    """Shouts the text back.

    Args:
        text: What to shout.
    """
    if text == "error":
        raise ValueError("cannot shout that")
    return f"{text.upper()}!"


def _message(*calls: tuple[str, str, dict[str, Any]]) -> ChatMessage:
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        content="",
        tool_calls=[
            ChatMessageToolCall(
                id=call_id, type="function", function=ChatMessageToolCallFunction(name, arguments)
            )
            for call_id, name, arguments in calls
        ],
    )


def _process(*calls: tuple[str, str, dict[str, Any]]) -> tuple[list[Any], ActionStep]:
    agent = ToolCallingAgent(tools=[shout], model=ScriptedModel([]))
    step = ActionStep(step_number=1, model_output="")
    return list(agent.process_tool_calls(_message(*calls), step)), step


def test_process_tool_calls_yields_calls_then_outputs_and_fills_the_step() -> None:
    events, step = _process(("call_1", "shout", {"text": "a"}), ("call_2", "shout", {"text": "b"}))
    calls = [event for event in events if isinstance(event, ToolCall)]
    outputs = [event for event in events if isinstance(event, ToolOutput)]
    assert calls == [ToolCall("shout", {"text": "a"}, "call_1"), ToolCall("shout", {"text": "b"}, "call_2")]
    assert events[:2] == calls  # each call is announced before any runs
    assert [output.output for output in outputs] == ["A!", "B!"]
    assert step.tool_calls == calls
    assert step.observations == "A!\nB!"


def test_process_tool_calls_with_no_calls_leaves_empty_observations() -> None:
    events, step = _process()
    assert events == [] and step.observations == ""


def test_a_final_answer_call_observes_the_answer_itself() -> None:
    events, step = _process(("call_1", "final_answer", {"answer": "the answer"}))
    assert [event.output for event in events if isinstance(event, ToolOutput)] == ["the answer"]
    assert step.observations == "the answer"


def test_an_unknown_tool_is_both_smol_and_smolagents_error() -> None:
    # smolagents raises AgentToolExecutionError, smol has raised AgentToolCallError: both catch it
    with pytest.raises(AgentToolExecutionError) as caught:
        _process(("call_1", "no_such_tool", {"text": "a"}))
    assert isinstance(caught.value, AgentToolCallError)


def test_tool_errors_and_wrong_arguments_raise_smolagents_errors() -> None:
    with pytest.raises(AgentToolExecutionError, match="cannot shout that"):
        _process(("call_1", "shout", {"text": "error"}))
    with pytest.raises(AgentToolCallError):
        _process(("call_1", "shout", {"wrong": "a"}))


def test_final_answer_with_other_calls_is_refused_in_smolagents_words() -> None:
    reply = _message(("call_0", "shout", {"text": "a"}), ("call_1", "final_answer", {"answer": "a"}))
    agent = ToolCallingAgent(tools=[shout], model=ScriptedModel([reply]), max_steps=1)
    agent.run("Shout a.")
    error = agent.memory.steps[1].error
    assert isinstance(error, AgentExecutionError)
    assert "do not perform any other tool calls than the final answer tool call!" in error.message
