"""`additional_functions`: the smolagents executor's functions callable by name, taken by smol's local executor."""

from __future__ import annotations

from smol_core import CodeAgent, LocalPythonExecutor
from smol_core.testing import ScriptedModel


def double(value: int) -> int:
    """Twice the value."""
    return 2 * value


def test_the_code_calls_them_by_name_and_they_survive_a_restart() -> None:
    with LocalPythonExecutor(additional_functions={"double": double}) as executor:
        assert executor("double(21)").output == 42
        assert "double" in executor.static_tools
        executor.reset()
        assert executor("double(4)").output == 8


def test_an_agent_passes_them_through_executor_kwargs() -> None:
    model = ScriptedModel(["```python\nfinal_answer(double(5))\n```"])
    with CodeAgent(
        tools=[], model=model, executor_kwargs={"additional_functions": {"double": double}}
    ) as agent:
        assert agent.run("double five") == 10
        assert "double" in agent.python_executor.static_tools
