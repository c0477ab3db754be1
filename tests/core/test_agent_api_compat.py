"""The agent, run-result and logger API as smolagents 1.26's users call it (gaps found by its tests)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from smol_core import (
    AgentLogger,
    ChatMessage,
    CodeAgent,
    FinalAnswerStep,
    LogLevel,
    MessageRole,
    Model,
    RunResult,
    Timing,
    ToolCallingAgent,
)
from smol_core.testing import ScriptedModel

ANSWER = "Thought: done.\n<code>\nfinal_answer(7)\n</code>"


def test_run_result_takes_and_gives_the_deprecated_messages_name() -> None:
    result = RunResult(output=1, state="success", steps=[{"a": 1}], timing=Timing(start_time=0.0))
    with pytest.warns(FutureWarning, match="deprecated"):
        assert result.messages == [{"a": 1}]
    with pytest.warns(FutureWarning, match="deprecated"):
        old = RunResult(output=1, state="success", messages=[{"b": 2}])  # type: ignore[call-arg]
    assert old.steps == [{"b": 2}]
    with pytest.raises(ValueError, match="Cannot specify both"):
        RunResult(output=1, state="success", steps=[{"a": 1}], messages=[{"b": 2}])  # type: ignore[call-arg]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RunResult(output=1, state="success").dict()["steps"] == []


def test_a_model_without_model_id_runs() -> None:
    class Bare(Model):
        def __init__(self) -> None:  # a subclass that never calls Model.__init__
            pass

        def generate(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
            return ChatMessage(MessageRole.ASSISTANT, ANSWER)

    assert CodeAgent(tools=[], model=Bare(), verbosity_level=LogLevel.OFF).run("t") == 7


def test_system_prompt_is_read_only_and_says_where_to_change_it() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([ANSWER]))
    with pytest.raises(AttributeError, match=r"prompt_templates\[\"system_prompt\"\]"):
        agent.system_prompt = "other"  # type: ignore[misc]


def test_finalize_step_runs_final_answer_callbacks() -> None:
    seen: list[Any] = []
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([ANSWER]),
        step_callbacks={FinalAnswerStep: lambda s, agent: seen.append(s)},
    )
    step = FinalAnswerStep(output="x")
    agent._finalize_step(step)
    assert seen == [step]


def test_log_task_shows_dicts_and_bytes() -> None:
    from rich.console import Console

    console = Console(record=True, width=120, highlight=False)
    logger = AgentLogger(console=console)
    logger.log_task(content={"k": ["v", 1]}, subtitle={"also": "dict"}, title="Run")
    logger.log_task(content=b"hello [/bad]\x00\x1b", subtitle="sub[/bad]", title=None)
    text = console.export_text()
    assert "{'k': ['v', 1]}" in text and "also" in text
    assert "hello [/bad]\\x00\\x1b" in text and "sub[/bad]" in text


def test_logger_console_is_rich_and_captures_the_log() -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel(["<code>\nsecret=3;['1', '2'][secret]\n</code>", ANSWER]))
    with agent.logger.console.capture() as capture:
        agent.run("t")
    text = capture.get()
    assert "[secret]" in text and "IndexError" in text and "final_answer(7)" in text


def test_visualize_draws_a_tree_at_any_verbosity() -> None:
    member = ToolCallingAgent(tools=[], model=ScriptedModel([]), name="web", description="Searches.")
    manager = CodeAgent(
        tools=[], model=ScriptedModel([]), managed_agents=[member], verbosity_level=LogLevel.OFF
    )
    with manager.logger.console.capture() as capture:
        manager.visualize()
    text = capture.get()
    assert "├──" in text and "└── Managed agents:" in text and "web | ToolCallingAgent" in text
