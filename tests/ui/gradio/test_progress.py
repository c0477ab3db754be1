"""The page's progress line: what the step in progress is doing, shown until the step lands.

Checked without a browser (the page in Chromium: `test_page_in_browser.py`): the line follows the
run's events, and removing it leaves exactly what the chat showed before it existed.
"""

from __future__ import annotations

from typing import Any

from smol_ui_gradio.chat_stream import ChatStream
from smol_ui_gradio.rendering import UIMessage

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.memory import ActionStep, PlanningStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, MessageRole, Timing
from smol_core.testing import ScriptedModel


def code(text: str) -> str:
    return f"Thought: next.\n```python\n{text}\n```"


def progress_of(messages: list[UIMessage]) -> str | None:
    last = messages[-1] if messages else None
    if last is None or last["metadata"].get("status") != "pending":
        return None
    content = str(last["content"])
    return content if content.startswith("_Step ") else None


def run_both(agent: Any, task: str) -> tuple[list[str], ChatStream, ChatStream]:
    """Feed one run to a stream with the line and one without; the lines shown, in order, without repeats."""
    skip = bool(agent.stream_outputs)
    shown, plain = ChatStream(skip, progress=True), ChatStream(skip)
    lines = [progress_of(shown.messages)]
    for event in agent.run(task, stream=True):
        shown.feed(event)
        plain.feed(event)
        line = progress_of(shown.messages)
        if line is None:
            assert shown.messages == plain.messages
        else:
            assert shown.messages[:-1] == plain.messages  # the line is all that differs
        if line != lines[-1]:
            lines.append(line)
    return [line for line in lines if line is not None], shown, plain


def test_a_code_agent_waits_for_its_model_then_runs_code_step_by_step() -> None:
    model = ScriptedModel([code("x = 6 * 7"), code("final_answer(x)")])
    with CodeAgent(tools=[], model=model, verbosity_level=-1) as agent:
        lines, shown, plain = run_both(agent, "What is 6 times 7?")
    assert lines == [
        "_Step 1 — waiting for the model…_",
        "_Step 1 — running code…_",
        "_Step 2 — waiting for the model…_",
        "_Step 2 — running code…_",
    ]
    assert shown.finished and shown.messages == plain.messages  # the finished rendering is unchanged


def test_streamed_text_says_the_model_is_writing() -> None:
    model = ScriptedModel([code("final_answer('streamed')")])
    with CodeAgent(tools=[], model=model, stream_outputs=True, verbosity_level=-1) as agent:
        lines, shown, plain = run_both(agent, "answer")
    assert lines == [
        "_Step 1 — waiting for the model…_",
        "_Step 1 — the model is writing…_",
        "_Step 1 — running code…_",
    ]
    assert shown.messages == plain.messages


def test_a_tool_calling_agent_names_the_tool_it_calls() -> None:
    @tool
    def lookup() -> str:
        """Looks something up."""
        return "found"

    model = ScriptedModel(
        [{"name": "lookup", "arguments": {}}, {"name": "final_answer", "arguments": {"answer": "done"}}]
    )
    lines, shown, plain = run_both(ToolCallingAgent(tools=[lookup], model=model, verbosity_level=-1), "look")
    assert lines == [
        "_Step 1 — waiting for the model…_",
        "_Step 1 — calling lookup…_",
        "_Step 2 — waiting for the model…_",
        "_Step 2 — calling final_answer…_",
    ]
    assert shown.messages == plain.messages


def test_a_plan_keeps_the_step_number_and_a_failed_run_drops_the_line() -> None:
    stream = ChatStream(progress=True)
    stream.feed(ActionStep(step_number=1, model_output="x", timing=Timing(0, 1)))
    stream.feed(ChatMessageStreamDelta(content="1. Plan"))
    assert progress_of(stream.messages) == "_Step 2 — the model is writing…_"
    stream.feed(PlanningStep([], ChatMessage(MessageRole.ASSISTANT, "1. Plan"), "1. Plan", Timing(1, 2)))
    assert progress_of(stream.messages) == "_Step 2 — waiting for the model…_"
    stream.feed(ToolCall("python_interpreter", "slow()", "c1"))
    stream.fail(RuntimeError("model server down"))
    assert progress_of(stream.messages) is None
    assert "RuntimeError: model server down" in stream.messages[-1]["content"]
