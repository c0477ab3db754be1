"""Agents saved by smolagents up to 1.20 load: their `agent.json` names no class, and smolagents
loads such a folder as the class whose `from_folder` was called (a team member as the class its
manager's `managed_agents` names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smol_core import CodeAgent, MultiStepAgent, ToolCallingAgent, tool
from smol_core.agents.serialization import AgentLoadError
from smol_core.testing import ScriptedModel


@tool
def shout(text: str) -> str:
    """Shouts.

    Args:
        text: What to shout.
    """
    return text.upper()


def _saved_without_class(folder: Path) -> Path:
    member = ToolCallingAgent(tools=[shout], model=ScriptedModel([]), name="member", description="Shouts.")
    CodeAgent(tools=[], model=ScriptedModel([]), managed_agents=[member], max_steps=7).save(str(folder))
    for agent_json in (folder / "agent.json", folder / "managed_agents" / "member" / "agent.json"):
        data = json.loads(agent_json.read_text())
        del data["class"]  # as smolagents up to 1.20 wrote it
        agent_json.write_text(json.dumps(data))
    return folder


def test_a_folder_without_class_loads_as_the_class_asked(tmp_path: Path) -> None:
    folder = _saved_without_class(tmp_path)
    agent = CodeAgent.from_folder(str(folder), model=ScriptedModel([]))
    assert type(agent) is CodeAgent and agent.max_steps == 7
    member = agent.managed_agents["member"]
    assert type(member) is ToolCallingAgent  # the class its manager's agent.json names
    assert set(member.tools) == {"final_answer", "shout"}
    alone = ToolCallingAgent.from_folder(str(folder / "managed_agents" / "member"), model=ScriptedModel([]))
    assert type(alone) is ToolCallingAgent and alone.name == "member"


def test_a_folder_without_class_needs_a_concrete_loader(tmp_path: Path) -> None:
    folder = _saved_without_class(tmp_path)
    with pytest.raises(AgentLoadError, match=r"no 'class'.*CodeAgent\.from_folder"):
        MultiStepAgent.from_folder(str(folder), model=ScriptedModel([]))


def test_a_saved_hfapimodel_loads_as_inferenceclientmodel_as_smolagents_reads_it() -> None:
    """smolagents up to 1.10 saved `HfApiModel`, which it renamed `InferenceClientModel`."""
    import pytest as _pytest

    plugin = _pytest.importorskip("smol_model_hf")
    from smol_core.agents.serialization import LoadRecord, _model_from_dict

    with _pytest.warns(FutureWarning, match="renamed to InferenceClientModel"):
        model = _model_from_dict(
            {"class": "HfApiModel", "data": {"model_id": "Qwen/Qwen2.5-Coder-32B-Instruct"}},
            LoadRecord("agent.json", "from_folder()"),
            None,
        )
    assert isinstance(model, plugin.InferenceClientModel)
