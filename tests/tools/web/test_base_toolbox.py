"""`add_base_tools=True` adds smolagents' toolbox: web search and page visits from this plugin."""

from __future__ import annotations

from smol_tool_web import DuckDuckGoSearchTool, VisitWebpageTool

from smol_core import CodeAgent, PythonInterpreterTool, ToolCallingAgent
from smol_core.testing import ScriptedModel
from smol_core.tools.base_tools import TOOL_MAPPING


def test_the_base_toolbox_holds_the_installed_web_tools() -> None:
    assert dict(TOOL_MAPPING) == {
        "python_interpreter": PythonInterpreterTool,
        "web_search": DuckDuckGoSearchTool,
        "visit_webpage": VisitWebpageTool,
    }


def test_agents_get_the_base_toolbox() -> None:
    code_agent = CodeAgent(tools=[], model=ScriptedModel([]), add_base_tools=True)
    assert sorted(code_agent.tools) == ["final_answer", "visit_webpage", "web_search"]
    calling_agent = ToolCallingAgent(tools=[], model=ScriptedModel([]), add_base_tools=True)
    assert sorted(calling_agent.tools) == [
        "final_answer",
        "python_interpreter",
        "visit_webpage",
        "web_search",
    ]
