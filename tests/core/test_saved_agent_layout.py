"""A saved agent folder has smolagents' layout and requirements (its users and tools read it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

import pytest

from smol_core import CodeAgent, LogLevel, ToolCallingAgent, tool
from smol_core.testing import ScriptedModel


@tool
def shout(text: str) -> str:
    """Says it louder.

    Args:
        text: what to say.
    """
    import numpy  # noqa: F401  (a requirement, read from the source)

    return text.upper()


def _manager() -> CodeAgent:
    member = ToolCallingAgent(tools=[shout], model=ScriptedModel([]), name="member", description="Shouts.")
    return CodeAgent(
        tools=[],
        model=ScriptedModel([]),
        managed_agents=[member],
        additional_authorized_imports=["pandas.core", "json"],
        verbosity_level=LogLevel.OFF,
    )


def test_every_agent_folder_has_its_tools_final_answer_included(tmp_path: Path) -> None:
    _manager().save(tmp_path)
    for folder, tools in (
        (tmp_path, {"final_answer"}),
        (tmp_path / "managed_agents" / "member", {"final_answer", "shout"}),
    ):
        assert {p.stem for p in (folder / "tools").glob("*.py")} == tools
        assert set(json.loads((folder / "agent.json").read_text())["tools"]) == tools
        assert (folder / "prompts.yaml").is_file()
    loaded = CodeAgent.from_folder(tmp_path, model=ScriptedModel([]))
    assert set(loaded.managed_agents["member"].tools) == {"final_answer", "shout"}


def test_requirements_list_what_tools_imports_and_model_need(tmp_path: Path) -> None:
    _manager().save(tmp_path)
    requirements = (tmp_path / "requirements.txt").read_text().split()
    assert {"smol-core", "numpy", "pandas"} <= set(requirements)
    assert "json" not in requirements  # the standard library is not a requirement
    assert requirements == sorted(requirements)


def test_unknown_classes_are_named_with_what_is_supported() -> None:
    data = _manager().to_dict()
    data["managed_agents"][0]["class"] = "NoSuchAgent"
    with pytest.raises(ValueError, match=r"Unknown agent class 'NoSuchAgent'\. Supported agents: CodeAgent"):
        CodeAgent.from_dict(data, model=ScriptedModel([]))
    data = _manager().to_dict()
    data["model"]["class"] = "NoSuchModel"
    with pytest.raises(ValueError, match=r"Unknown model class 'NoSuchModel'.*Supported models: "):
        CodeAgent.from_dict(data)


def test_a_duck_typed_model_is_saved_as_itself_and_equals_it() -> None:
    model: Any = MagicMock()
    agent = CodeAgent(tools=[], model=model)
    assert agent.model == model
    assert agent.to_dict()["model"] == {"class": "MagicMock", "data": {}}


def test_a_model_class_registered_in_model_registry_rebuilds_the_saved_model() -> None:
    from smol_core import MODEL_REGISTRY, Model

    class MyModel(Model):
        pass

    data = CodeAgent(tools=[], model=MyModel(model_id="mine")).to_dict()
    assert data["model"]["class"] == "MyModel"
    MODEL_REGISTRY["MyModel"] = MyModel
    try:
        loaded = CodeAgent.from_dict(data)
    finally:
        del MODEL_REGISTRY["MyModel"]
    assert type(loaded.model) is MyModel and loaded.model.model_id == "mine"
