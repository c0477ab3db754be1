"""`PythonInterpreterTool` raises what the sandbox refuses, as smolagents' tool does (the agent shows it)."""

from __future__ import annotations

import pytest

from smol_core import PythonInterpreterTool, ToolCallingAgent
from smol_core.executors.base import ExecutionTimeoutError, InterpreterError
from smol_core.testing import ScriptedModel


def test_output_and_prints() -> None:
    assert PythonInterpreterTool()("print('hi')\n2 * 2") == "Stdout:\nhi\n\nOutput: 4"


def test_a_refused_import_raises_naming_the_module() -> None:
    with pytest.raises(InterpreterError, match="sympy"):
        PythonInterpreterTool()("import sympy")


def test_the_time_limit_raises_execution_timeout_error() -> None:
    tool = PythonInterpreterTool(authorized_imports=["time"], timeout_seconds=1)
    with pytest.raises(ExecutionTimeoutError, match="Code execution exceeded the maximum execution time"):
        tool("import time\ntime.sleep(5)")
    assert tool("1 + 1").endswith("Output: 2")  # the worker was replaced: the tool goes on


def test_an_agent_shows_the_error_to_the_model() -> None:
    call = {"name": "python_interpreter", "arguments": {"code": "import sympy"}}
    model = ScriptedModel(
        [{"tool_calls": [call]}, {"tool_calls": [{"name": "final_answer", "arguments": {"answer": "done"}}]}]
    )
    agent = ToolCallingAgent(tools=[PythonInterpreterTool()], model=model, max_steps=3)
    assert agent.run("compute") == "done"
    assert "sympy" in str(agent.memory.steps[1].error)
