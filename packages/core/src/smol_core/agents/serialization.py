"""Export and import agents: `agent.json`, prompts, tools as source files, managed agents in subfolders.

The folder layout is the seed system's (agent.json, prompts.yaml, tools/, managed_agents/,
requirements.txt, app.py) so saved agents move between the two. `prompts.yaml` is written as JSON,
which every YAML reader accepts, so that saving needs no YAML library. Secrets (API keys, tokens)
are never written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from smol_core.errors import SmolError
from smol_core.tools.serialization import tool_from_code, tool_source

if TYPE_CHECKING:
    from smol_core.plugins.specs import ModelSpec

AGENT_FILE = "agent.json"


class AgentLoadError(SmolError, ValueError):
    """A saved agent folder or dict is malformed."""


def agent_to_dict(agent: Any) -> dict[str, Any]:
    model = agent.model
    data: dict[str, Any] = {
        "class": type(agent).__name__,
        "tools": [tool.name for tool in agent.tools.values() if tool.name != "final_answer"],
        "model": {"class": type(model).__name__, "data": model.to_dict()},
        "managed_agents": {name: type(a).__name__ for name, a in agent.managed_agents.items()},
        "prompt_templates": agent.prompt_templates,
        "max_steps": agent.max_steps,
        "verbosity_level": int(agent.logger.level),
        "planning_interval": agent.planning_interval,
        "name": agent.name,
        "description": agent.description,
        "instructions": agent.instructions,
        "provide_run_summary": agent.provide_run_summary,
        "requirements": ["smol-core"],
    }
    if hasattr(agent, "executor_type"):
        data.update(
            authorized_imports=agent.additional_authorized_imports,
            executor_type=agent.executor_type,
            executor_kwargs={k: v for k, v in agent.executor_kwargs.items() if _jsonable(v)},
            max_print_outputs_length=agent.max_print_outputs_length,
            use_structured_outputs_internally=agent._use_structured_outputs_internally,
            answer_drafts=agent.answer_drafts,
        )
    return data


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except TypeError:
        return False
    return True


def save_agent(agent: Any, output_dir: str | os.PathLike[str], relative_path: str | None = None) -> None:
    root = Path(output_dir)
    root.mkdir(parents=True, exist_ok=True)
    data = agent_to_dict(agent)
    for name, managed in agent.managed_agents.items():
        managed.save(root / "managed_agents" / name)
    tools_dir = root / "tools"
    tools_dir.mkdir(exist_ok=True)
    for tool in agent.tools.values():
        if tool.name != "final_answer":
            (tools_dir / f"{tool.name}.py").write_text(tool_source(tool), encoding="utf-8")
    (root / "prompts.yaml").write_text(json.dumps(data["prompt_templates"], indent=2), encoding="utf-8")
    (root / AGENT_FILE).write_text(json.dumps(data, indent=2), encoding="utf-8")
    (root / "requirements.txt").write_text("\n".join(data["requirements"]) + "\n", encoding="utf-8")
    (root / "app.py").write_text(
        "from smol_core import MultiStepAgent\n"
        "from smol_ui_gradio import GradioUI\n\n"
        'agent = MultiStepAgent.from_folder(".")\n'
        "GradioUI(agent).launch()\n",
        encoding="utf-8",
    )


def _agent_class(name: str) -> type[Any]:
    from smol_core.agents.code_agent import CodeAgent
    from smol_core.agents.tool_calling_agent import ToolCallingAgent

    classes = {"CodeAgent": CodeAgent, "ToolCallingAgent": ToolCallingAgent}
    if name not in classes:
        raise AgentLoadError(f"Unknown agent class {name!r}: expected one of {sorted(classes)}.")
    return classes[name]


def _model_from_dict(model_info: Any) -> Any:
    from smol_core.plugins.registry import get_registry

    if not isinstance(model_info, dict) or "class" not in model_info:
        raise AgentLoadError("agent.json: 'model' must be an object with 'class' and 'data'.")
    class_name, data = model_info["class"], dict(model_info.get("data") or {})
    registry = get_registry()
    for spec in cast("list[ModelSpec]", registry.specs("models")):
        target = getattr(spec.factory, "target", "")
        if target.endswith(f":{class_name}") or spec.name == model_info.get("type"):
            return spec.factory(**data)
    raise AgentLoadError(
        f"agent.json names the model class {class_name!r}, which no installed model plugin provides "
        f"(installed: {', '.join(registry.names('models'))}). Install its plugin, or pass model=... to from_folder()."
    )


def agent_from_dict(agent_dict: dict[str, Any], cls: type[Any] | None = None, **overrides: Any) -> Any:
    if not isinstance(agent_dict, dict):
        raise AgentLoadError("An agent dict must be a JSON object.")
    agent_class = (
        _agent_class(agent_dict.get("class", "")) if cls is None or cls.__name__ == "MultiStepAgent" else cls
    )
    model = overrides.pop("model", None) or _model_from_dict(agent_dict.get("model"))
    kwargs: dict[str, Any] = {
        key: agent_dict[key]
        for key in (
            "prompt_templates",
            "max_steps",
            "verbosity_level",
            "planning_interval",
            "name",
            "description",
            "instructions",
            "provide_run_summary",
        )
        if agent_dict.get(key) is not None
    }
    if agent_class.__name__ == "CodeAgent":
        kwargs.update(
            additional_authorized_imports=agent_dict.get("authorized_imports"),
            executor_type=agent_dict.get("executor_type", "local"),
            executor_kwargs=agent_dict.get("executor_kwargs"),
            max_print_outputs_length=agent_dict.get("max_print_outputs_length"),
            use_structured_outputs_internally=agent_dict.get("use_structured_outputs_internally", False),
            answer_drafts=agent_dict.get("answer_drafts"),
        )
    kwargs.update(overrides)
    kwargs.setdefault("tools", [])
    return agent_class(model=model, **kwargs)


def agent_from_folder(folder: str | os.PathLike[str], **overrides: Any) -> Any:
    root = Path(folder)
    path = root / AGENT_FILE
    if not path.is_file():
        raise AgentLoadError(f"No {AGENT_FILE} in {root}: is this a folder written by agent.save()?")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise AgentLoadError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(data, dict) or "class" not in data or "model" not in data:
        raise AgentLoadError(f"{path} must be a JSON object with at least 'class' and 'model'.")
    tools = []
    for name in data.get("tools", []):
        tool_file = root / "tools" / f"{name}.py"
        if not tool_file.is_file():
            raise AgentLoadError(f"agent.json lists the tool {name!r} but {tool_file} is missing.")
        tools.append(tool_from_code(tool_file.read_text(encoding="utf-8")))
    managed = [
        agent_from_folder(root / "managed_agents" / name, model=overrides.get("model"))
        for name in data.get("managed_agents", {})
    ]
    if "tools" not in overrides:
        overrides["tools"] = tools
    if managed and "managed_agents" not in overrides:
        overrides["managed_agents"] = managed
    return agent_from_dict(data, None, **overrides)
