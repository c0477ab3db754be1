"""LangChain <-> smol tools, with real langchain-core tools invoked offline."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.tools import BaseTool, ToolException
from langchain_samples import forecast, multiply, reverse, shout
from smol_tool_langchain import to_langchain, tool_from_langchain

from smol_core import ActionStep, CodeAgent, LogLevel, Tool, tool
from smol_core.errors import AgentToolCallError, AgentToolExecutionError
from smol_core.testing import ScriptedModel


def test_decorated_function_keeps_types_and_docstring_descriptions():
    smol = Tool.from_langchain(multiply)
    assert smol.name == "multiply"
    assert smol.description == "Multiplies two integers."
    assert smol.inputs == {
        "a": {"type": "integer", "description": "The first factor."},
        "b": {"type": "integer", "description": "The second factor. (default: 2)", "nullable": True},
    }
    assert smol.output_type == "integer"
    assert smol(a=3) == 6 and smol(a=3, b=5) == 15 and smol(3, None) == 6
    assert smol.to_code_prompt().startswith("def multiply(a: integer, b: integer) -> integer:")


def test_structured_tool_with_a_pydantic_schema():
    smol = tool_from_langchain(forecast)
    assert smol.inputs["city"] == {"type": "string", "description": "The city to forecast."}
    assert smol.inputs["days"]["type"] == "integer" and smol.inputs["days"]["nullable"]
    assert smol.inputs["units"]["items"] == {"type": "string"}
    assert smol(city="Oslo") == {"city": "Oslo", "days": 1, "units": ["C"]}
    assert smol(city="Oslo", days=3, units=["F"]) == {"city": "Oslo", "days": 3, "units": ["F"]}
    with pytest.raises(AgentToolCallError, match="argument 'days' should be integer"):
        smol(city="Oslo", days="three", sanitize_inputs_outputs=True)


def test_base_tool_subclass_and_its_tool_exception():
    smol = tool_from_langchain(reverse)
    assert smol.name == "reverse_text"  # a valid Python name for code agents
    assert smol.output_type == "string"
    assert smol(text="abc") == "cba"
    with pytest.raises(AgentToolExecutionError, match="'reverse_text' failed: nothing to reverse"):
        smol(text="")


def test_async_only_tool():
    smol = tool_from_langchain(shout)
    assert smol(text="hey") == "HEY"


def test_from_langchain_refuses_other_objects():
    with pytest.raises(TypeError, match="takes a LangChain BaseTool"):
        tool_from_langchain(lambda x: x)


@tool
def area(width: float, height: float, unit: str = "m") -> str:
    """Area of a rectangle.

    Args:
        width: The width.
        height: The height.
        unit: The unit of length.
    """
    return f"{width * height:g} {unit}2"


@tool
async def echo(text: str) -> str:
    """Echoes a text.

    Args:
        text: The text.
    """
    return text


def test_smol_tool_as_langchain_tool():
    lc = to_langchain(area)
    assert isinstance(lc, BaseTool)
    assert lc.name == "area" and lc.description == "Area of a rectangle."
    schema = lc.tool_call_schema.model_json_schema()
    assert schema["required"] == ["width", "height"]
    assert schema["properties"]["width"]["type"] == "number"
    assert schema["properties"]["width"]["description"] == "The width."
    assert lc.invoke({"width": 2, "height": 3}) == "6 m2"
    assert lc.invoke({"width": 2, "height": 3, "unit": "cm"}) == "6 cm2"
    with pytest.raises(Exception, match="width"):
        lc.invoke({"height": 3})  # pydantic refuses it before the tool runs


def test_smol_tool_errors_become_tool_exceptions():
    class Explode(Tool):
        name = "explode"
        description = "Always fails."
        inputs = {"why": {"type": "string", "description": "The reason."}}
        output_type = "string"

        def forward(self, why: str) -> str:
            raise RuntimeError(why)

    lc = to_langchain(Explode())
    with pytest.raises(ToolException, match="RuntimeError: boom"):
        lc.invoke({"why": "boom"})
    assert to_langchain(Explode(), handle_tool_error=True).invoke({"why": "boom"}) == "RuntimeError: boom"


def test_async_smol_tool_as_langchain_tool():
    lc = to_langchain(echo)
    assert asyncio.run(lc.ainvoke({"text": "hi"})) == "hi"


def test_round_trips_both_ways():
    back = tool_from_langchain(to_langchain(area))
    assert back.inputs["width"] == area.inputs["width"]
    assert back.inputs["unit"]["nullable"] and back.inputs["unit"]["type"] == "string"
    assert back(width=2, height=2) == "4 m2"
    again = to_langchain(tool_from_langchain(forecast))
    assert again.invoke({"city": "Rome"}) == {"city": "Rome", "days": 1, "units": ["C"]}


def test_code_agent_uses_langchain_tools():
    tools = [Tool.from_langchain(multiply), Tool.from_langchain(reverse)]
    replies = [
        'Thought: go\n<code>\nprint(reverse_text(text=""))\n</code>',
        "Thought: go\n<code>\nfinal_answer(reverse_text(text=str(multiply(a=21))))\n</code>",
    ]
    agent = CodeAgent(tools=tools, model=ScriptedModel(replies), verbosity_level=LogLevel.OFF)
    with agent:
        assert agent.run("Reverse 21 doubled.") == "24"
    steps = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
    assert "nothing to reverse" in str(steps[0].error)


def test_cli_langchain_tool_family(monkeypatch):
    from smol_core.agents.settings import tools_from_names

    tools = tools_from_names(
        ["langchain:langchain_samples:multiply", "langchain:langchain_samples:ReverseTool"]
    )
    assert [t.name for t in tools] == ["multiply", "reverse_text"]


def test_plugin_is_listed_and_imports_nothing_heavy(capsys):
    import subprocess
    import sys

    from smol_core.cli.smol import main

    main(["plugins"])
    out = capsys.readouterr().out
    assert "tools: langchain" in out[out.index("smol-tool-langchain") :]
    probe = "import sys, smol_tool_langchain._plugin; print('langchain_core' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip()
        == "False"
    )
