"""An agent with the web tools saves and loads back: the tools are saved by their registered name.

Their source uses the plugin's own helpers (the address policy, the HTTP client), so it cannot be
written as a self-contained file; before, saving wrote a file that failed to load (NameError).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from smol_tool_web.search import DuckDuckGoSearchTool
from smol_tool_web.visit import VisitWebpageTool

from smol_core import CodeAgent, LogLevel
from smol_core.agents.serialization import AgentLoadError
from smol_core.testing import ScriptedModel


def _agent() -> CodeAgent:
    return CodeAgent(
        tools=[DuckDuckGoSearchTool(), VisitWebpageTool()],
        model=ScriptedModel([]),
        verbosity_level=LogLevel.OFF,
    )


def test_a_folder_names_registered_tools_and_loads_them_back(tmp_path: Path) -> None:
    _agent().save(tmp_path)
    saved = json.loads((tmp_path / "agent.json").read_text())
    assert set(saved["registered_tools"]) == {"web_search", "visit_webpage", "final_answer"}
    # the source is written for smolagents' readers (its layout), but smol builds the tool from
    # its plugin and never runs that file
    source = tmp_path / "tools" / "web_search.py"
    assert "class DuckDuckGoSearchTool" in source.read_text()
    source.write_text("raise SystemExit('this file must not run')")
    loaded = CodeAgent.from_folder(tmp_path, model=ScriptedModel([]))
    assert isinstance(loaded.tools["web_search"], DuckDuckGoSearchTool)
    assert isinstance(loaded.tools["visit_webpage"], VisitWebpageTool)


def test_a_dict_round_trip_keeps_registered_tools() -> None:
    data = _agent().to_dict()
    assert {entry.get("registered") for entry in data["tools"]} >= {"visit_webpage"}
    loaded = CodeAgent.from_dict(data, model=ScriptedModel([]))
    assert set(loaded.tools) == {"web_search", "visit_webpage", "final_answer"}


@pytest.mark.parametrize(
    ("registered", "message"),
    [
        ({"web_search": "no_such_tool"}, "not installed here"),
        ({"web_search": "visit_webpage"}, "is not the saved tool"),
        ({"web_search": "os:system"}, "names no registered tool"),
        ({"web_search": "mcp"}, "tool family"),
        (["web_search"], "must map tool names"),
    ],
)
def test_a_file_naming_a_wrong_registered_tool_is_a_clear_error(
    tmp_path: Path, registered: object, message: str
) -> None:
    _agent().save(tmp_path)
    saved = json.loads((tmp_path / "agent.json").read_text())
    saved["registered_tools"] = registered
    (tmp_path / "agent.json").write_text(json.dumps(saved))
    with pytest.raises(AgentLoadError, match=message):
        CodeAgent.from_folder(tmp_path, model=ScriptedModel([]))
