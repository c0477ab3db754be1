"""A managed agent is called by the model with its task and `additional_args`, nothing else: the
model cannot reach `run()`'s options (`max_steps`, `reset`, `stream`...) through the call."""

from __future__ import annotations

from typing import Any

import pytest

from smol_core import ToolCallingAgent
from smol_core.agents.tool_wrappers import managed_agent_callable
from smol_core.errors import AgentToolCallError
from smol_core.monitoring import LogLevel
from smol_core.testing import ScriptedModel

HELPER_DONE = {"name": "final_answer", "arguments": {"answer": "helped"}}


def _helper(replies: list[Any]) -> ToolCallingAgent:
    return ToolCallingAgent(
        tools=[],
        model=ScriptedModel(replies),
        name="helper",
        description="Helps.",
        max_steps=2,
        verbosity_level=LogLevel.OFF,
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"max_steps": 10**9},
        {"reset": False},
        {"stream": True},
        {"return_full_result": True},
        {"images": ["x"]},
    ],
)
def test_a_model_cannot_pass_run_options_to_a_managed_agent(extra):
    helper = _helper([HELPER_DONE])
    manager = ToolCallingAgent(
        tools=[],
        model=ScriptedModel(
            [
                {"name": "helper", "arguments": {"task": "do it", **extra}},
                {"name": "final_answer", "arguments": {"answer": "fine"}},
            ]
        ),
        managed_agents=[helper],
        verbosity_level=LogLevel.OFF,
    )
    assert manager.run("task") == "fine"
    error = manager.memory.steps[1].error
    assert isinstance(error, AgentToolCallError)
    assert next(iter(extra)) in str(error) and "only a task and additional_args" in str(error)
    assert helper.model.calls == []  # type: ignore[attr-defined]  # never ran
    assert helper.max_steps == 2


def test_a_managed_agent_runs_with_its_task_and_additional_args():
    helper = _helper([HELPER_DONE])
    manager = ToolCallingAgent(
        tools=[],
        model=ScriptedModel(
            [
                {"name": "helper", "arguments": {"task": "do it", "additional_args": {"n": 3}}},
                {"name": "final_answer", "arguments": {"answer": "fine"}},
            ]
        ),
        managed_agents=[helper],
        verbosity_level=LogLevel.OFF,
    )
    assert manager.run("task") == "fine"
    assert manager.memory.steps[1].error is None
    assert "helped" in (manager.memory.steps[1].observations or "")
    assert helper.state["n"] == 3


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((), {"task": "t", "max_steps": 5}, "unexpected arguments: max_steps"),
        (("t", None, 5), {}, "at most 2 arguments"),
        ((), {"task": 5}, "task as a string"),
        ((), {}, "task as a string"),
        (("t",), {"additional_args": "x"}, "additional_args as a dict"),
        (("t",), {"additional_args": {1: "x"}}, "keys of additional_args"),
        (("t",), {"task": "u"}, "two values for 'task'"),
    ],
)
def test_the_callable_given_to_code_checks_its_arguments(args, kwargs, message):
    helper = _helper([HELPER_DONE])
    call = managed_agent_callable(helper)
    with pytest.raises(TypeError, match=message):
        call(*args, **kwargs)
    assert helper.model.calls == []  # type: ignore[attr-defined]


def test_the_callable_given_to_code_runs_the_agent():
    helper = _helper([HELPER_DONE])
    assert "helped" in managed_agent_callable(helper)("do it", {"n": 1})
    assert helper.state["n"] == 1


def test_code_cannot_pass_run_options_to_a_managed_agent():
    from smol_core import CodeAgent

    helper = _helper([HELPER_DONE])
    manager = CodeAgent(
        tools=[],
        model=ScriptedModel(
            [
                "```python\nhelper(task='do it', max_steps=10**9)\n```",
                "```python\nfinal_answer(helper('do it'))\n```",
            ]
        ),
        managed_agents=[helper],
        verbosity_level=LogLevel.OFF,
    )
    with manager:
        assert "helped" in manager.run("task")
    assert "unexpected arguments: max_steps" in str(manager.memory.steps[1].error)
    assert len(helper.model.calls) == 1  # type: ignore[attr-defined]  # only the second, valid call ran
