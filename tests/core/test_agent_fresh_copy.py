"""`agent.fresh_copy()`: the configuration shared, the state (memory, sandbox, token counts) not."""

from __future__ import annotations

import pytest

from smol_core import CodeAgent, LocalPythonExecutor, ToolCallingAgent
from smol_core.testing import ScriptedModel


def code(text: str) -> str:
    return f"```python\n{text}\n```"


def test_a_copy_has_its_own_memory_sandbox_and_token_counts() -> None:
    model = ScriptedModel(
        [
            code("secret = 'alice-password'\nfinal_answer('stored')"),
            code("try:\n    seen = secret\nexcept NameError:\n    seen = 'no secret'\nfinal_answer(seen)"),
        ]
    )
    seen: list[int] = []
    with CodeAgent(
        tools=[], model=model, step_callbacks=[lambda step: seen.append(1)], verbosity_level=-1
    ) as agent:
        assert agent.run("store a secret") == "stored"
        with agent.fresh_copy() as twin:
            assert twin.memory.steps == [] and twin.model is agent.model
            assert twin.tools.keys() == agent.tools.keys()
            assert twin.run("read the secret", reset=False) == "no secret"  # the copy's sandbox never saw it
            assert twin.python_executor is not agent.python_executor
            assert len(agent.memory.steps) == 2  # the original's memory is untouched
            assert twin.monitor is not agent.monitor
            assert len(twin.monitor.step_durations) == 1 and len(agent.monitor.step_durations) == 1
        assert seen == [1, 1]  # the user's callbacks are the copy's too


def test_managed_agents_are_copied_with_their_manager() -> None:
    helper = CodeAgent(
        tools=[], model=ScriptedModel([]), name="helper", description="helps", verbosity_level=-1
    )
    with CodeAgent(tools=[], model=ScriptedModel([]), managed_agents=[helper], verbosity_level=-1) as agent:
        twin = agent.fresh_copy()
        assert twin.managed_agents["helper"] is not helper
        assert twin.managed_agents["helper"].model is helper.model
        twin.cleanup()


def test_an_agent_given_an_executor_instance_is_not_copied() -> None:
    executor = LocalPythonExecutor()
    try:
        agent = CodeAgent(tools=[], model=ScriptedModel([]), executor=executor, verbosity_level=-1)
        with pytest.raises(ValueError, match="one agent per user"):
            agent.fresh_copy()
    finally:
        executor.close()


def test_a_tool_that_keeps_state_is_copied_with_the_agent() -> None:
    model = ScriptedModel([])
    agent = ToolCallingAgent(tools=[], model=model, add_base_tools=True, verbosity_level=-1)
    interpreter = agent.tools["python_interpreter"]
    interpreter(code="secret = 'alice-password'")
    twin = agent.fresh_copy()
    assert twin.tools["python_interpreter"] is not interpreter
    assert "no secret" in twin.tools["python_interpreter"](
        code="try:\n    seen = secret\nexcept NameError:\n    seen = 'no secret'\nprint(seen)"
    )
    assert twin.tools["final_answer"] is agent.tools["final_answer"]  # configuration stays shared
