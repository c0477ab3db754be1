"""Agents on the embedded SmolLM2-135M, in process: a CodeAgent through the local executor, a
ToolCallingAgent whose replies are held to tool calls by a JSON schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp import LlamaCppModel

from smol_core import CodeAgent, ToolCallingAgent
from smol_core.memory import ActionStep
from smol_core.monitoring import LogLevel

pytestmark = [pytest.mark.llama, pytest.mark.slow]


@pytest.fixture(scope="module")
def model(embedded_gguf: Path) -> Any:
    model = LlamaCppModel(n_ctx=4096, n_threads=2, max_tokens=256)
    yield model.load()
    model.close()


def test_the_embedded_model_is_treated_as_small(model: LlamaCppModel, embedded_gguf: Path) -> None:
    assert model.capabilities.small and model.capabilities.grammar
    assert LlamaCppModel(embedded_gguf, small=False).capabilities.small is False
    assert type(model).capabilities.small is False  # the class default is untouched


@pytest.mark.parametrize(
    ("task", "expected"), [("What is 17 times 23?", 391), ("Reverse the string 'hello'.", "olleh")]
)
def test_code_agent_solves_a_task_through_the_local_executor(
    model: LlamaCppModel, task: str, expected: Any
) -> None:
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run(task) == expected
    step = next(s for s in agent.memory.steps if isinstance(s, ActionStep))
    # the grammar's shape: the task as the block's first line, the block ends by answering
    assert step.model_output is not None and step.model_output.startswith("<code>\n# ")
    assert step.code_action is not None and step.code_action.splitlines()[-1].startswith("final_answer(")


def test_tool_calling_agent_calls_a_tool(
    model: LlamaCppModel, weather_tool: Any, assert_called_weather: Any
) -> None:
    agent = ToolCallingAgent(tools=[weather_tool], model=model, max_steps=2, verbosity_level=LogLevel.OFF)
    agent.run("Is it raining in London?")
    assert_called_weather(agent, "London")


def test_a_durable_and_a_recorded_run_leave_the_loaded_model_usable(
    model: LlamaCppModel, tmp_path: Path
) -> None:
    """Durable runs and tapes join the run's door; they never copy the model, whose copy, once
    collected, closed the engine the user's model still held ("engine was closed" on the next run)."""
    import gc

    from smol_core.durable import SQLiteStore
    from smol_core.replay import recording

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    agent = CodeAgent(
        tools=[],
        model=model,
        use_structured_outputs_internally=True,
        verbosity_level=LogLevel.OFF,
        checkpoint_store=store,
        max_steps=1,
    )
    with agent:
        agent.run("What is 2 plus 3?", run_id="kept-usable")
        with recording(agent, tmp_path / "run.cassette"):
            agent.run("What is 2 plus 3?")
        gc.collect()
        assert agent.model is model
        assert agent.run("What is 17 times 23?") == 391


@pytest.mark.parametrize(
    "task", ["Add 2 and 2.\x00", 'Say "hi" \\ then \x1b[31mstop', "Lines\r\nand\ttabs \x7f"]
)
def test_llamacpp_takes_the_action_grammar_whatever_the_task_holds(model: LlamaCppModel, task: str) -> None:
    """A NUL byte in a task broke the generated grammar ("check the grammar= you passed")."""
    from smol_core.messages import ChatMessage, MessageRole
    from smol_core.prompting.grammar import code_action_grammar, task_comment

    comment = task_comment(task)
    grammar = code_action_grammar(
        thought_prefix=None, require_final_answer=True, max_code_lines=3, preamble=comment
    )
    reply = model.generate([ChatMessage(MessageRole.USER, task)], grammar=grammar)
    assert reply.text.startswith("<code>\n" + comment)
