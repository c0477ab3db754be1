"""A CodeAgent whose code runs in (stand-in) E2B, selected by name through the plugin registry."""

from __future__ import annotations

from smol_core import CodeAgent, LogLevel, tool
from smol_core.plugins.registry import get_registry
from smol_core.testing import ScriptedModel


@tool
def population(city: str) -> int:
    """Population of a city.

    Args:
        city: The city's name.
    """
    return {"Paris": 2_100_000, "Lyon": 520_000}[city]


def code(body: str) -> str:
    return f"Thought: I act.\n<code>\n{body}\n</code>"


def test_code_agent_runs_through_e2b(standin):
    model = ScriptedModel(
        [
            code('p = population("Paris")\nl = population("Lyon")\nprint(p, l)'),
            code("import subprocess"),
            code('final_answer("Paris" if p > l else "Lyon")'),
        ]
    )
    agent = CodeAgent(
        tools=[population],
        model=model,
        executor_type="e2b",
        executor_kwargs={"timeout_seconds": 20},
        verbosity_level=LogLevel.OFF,
    )
    with agent:
        assert agent.run("Which city is bigger?") == "Paris"
    observations = [getattr(step, "observations", None) or "" for step in agent.memory.steps]
    assert any("2100000 520000" in o for o in observations)
    errors = [str(getattr(step, "error", "") or "") for step in agent.memory.steps]
    assert any("Import of subprocess is not allowed" in e for e in errors)
    assert standin.live_sandboxes() == []  # the agent's close() killed its sandbox


def test_registered_as_the_e2b_executor():
    assert get_registry().executor("e2b").isolation == "microvm"
