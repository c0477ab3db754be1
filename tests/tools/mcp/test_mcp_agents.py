"""Agents calling MCP tools: a CodeAgent through the real local executor, and a ToolCallingAgent."""

from __future__ import annotations

from smol_tool_mcp import MCPClient

from smol_core import ActionStep, CodeAgent, LogLevel, ToolCallingAgent
from smol_core.testing import ScriptedModel


def code(body: str) -> str:
    return f"Thought: I use the tools.\n<code>\n{body}\n</code>"


def test_code_agent_calls_mcp_tools_in_the_local_executor(demo_client):
    replies = [
        code('w = weather(city="Paris")\ntotal = add(a=2, b=3)\nprint(w["temperature"], total)'),
        code('fail(message="no such city")'),
        code("final_answer(f\"{w['conditions']} {total} {list_items(prefix='x', count=1)}\")"),
    ]
    agent = CodeAgent(
        tools=demo_client.get_tools(), model=ScriptedModel(replies), verbosity_level=LogLevel.OFF
    )
    with agent:
        assert agent.run("Weather in Paris, and 2+3?") == "sunny 5 ['x0']"
    steps = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
    assert "21.5 5" in steps[0].observations
    assert "no such city" in str(steps[1].error)  # the server's error is the step's observation
    assert "def weather(city: string) -> dict:" in agent.system_prompt


def test_a_dead_server_is_an_observation_and_the_run_goes_on(demo_params):
    client = MCPClient(demo_params, timeout=20)
    try:
        replies = [code("die()"), code("add(a=1, b=1)"), code('final_answer("gave up")')]
        agent = CodeAgent(
            tools=client.get_tools(), model=ScriptedModel(replies), verbosity_level=LogLevel.OFF
        )
        with agent:
            assert agent.run("Try the tools.") == "gave up"
        steps = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
        assert "closed the connection while running the tool 'die'" in str(steps[0].error)
        assert "no longer connected" in str(steps[1].error)
    finally:
        client.disconnect()


def test_tool_calling_agent_with_mcp_tools(demo_tools):
    replies = [
        {"name": "add", "arguments": {"a": 40, "b": 2}},
        {"name": "add", "arguments": {"a": "forty", "b": 2}},
        {"name": "final_answer", "arguments": {"answer": "42"}},
    ]
    tools = [demo_tools["add"], demo_tools["greet"]]
    agent = ToolCallingAgent(tools=tools, model=ScriptedModel(replies), verbosity_level=LogLevel.OFF)
    assert agent.run("What is 40 + 2?") == "42"
    steps = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
    assert "42" in steps[0].observations
    assert "argument 'a' should be integer" in str(steps[1].error)
