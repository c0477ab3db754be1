"""Export and import agents: `agent.json`, prompts, tools as source files, managed agents in subfolders.

The folder layout is smolagents' (agent.json, prompts.yaml, tools/, managed_agents/,
requirements.txt, app.py) so saved agents move between the two. `prompts.yaml` is written as JSON,
which every YAML reader accepts, so that saving needs no YAML library. Secrets (API keys, tokens)
are never written.
"""

from __future__ import annotations

import importlib
import json
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from smol_core.agents.saved_settings import (
    IgnoredSetting,
    LoadRecord,
    agent_security_settings,
    benign_model_settings,
)
from smol_core.errors import SmolError
from smol_core.tools.serialization import tool_source, tool_to_dict
from smol_core.tools.tool import tool_from_code

if TYPE_CHECKING:
    from smol_core.plugins.specs import ModelSpec

AGENT_FILE = "agent.json"


class AgentLoadError(SmolError, ValueError):
    """A saved agent folder or dict is malformed."""


def agent_to_dict(agent: Any) -> dict[str, Any]:
    """Everything needed to rebuild `agent`: tools as their source, managed agents as nested dicts,
    prompts and settings. Security settings are written too (a reader may want to see them), but a
    loader applies them only when code grants them (see `saved_settings`)."""
    model = getattr(agent.model, "target", agent.model)  # a duck-typed model is saved as itself
    tools = [_tool_entry(tool) for tool in agent.tools.values()]
    data: dict[str, Any] = {
        "class": type(agent).__name__,
        "tools": tools,
        "model": {"class": type(model).__name__, "data": _model_settings(model)},
        "managed_agents": [managed.to_dict() for managed in agent.managed_agents.values()],
        "prompt_templates": agent.prompt_templates,
        "max_steps": agent.max_steps,
        "verbosity_level": int(agent.logger.level),
        "planning_interval": agent.planning_interval,
        "name": agent.name,
        "description": agent.description,
        "instructions": agent.instructions,
        "provide_run_summary": agent.provide_run_summary,
        "grammar": agent.grammar,
        "requirements": agent_requirements(agent, tools),
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


def _model_settings(model: Any) -> dict[str, Any]:
    """The model's `to_dict()`, or nothing for a model that has none (a duck-typed one, a mock)."""
    settings = model.to_dict() if callable(getattr(model, "to_dict", None)) else None
    return settings if isinstance(settings, dict) else {}


def agent_requirements(agent: Any, tool_entries: list[dict[str, Any]]) -> list[str]:
    """The distributions the agent needs, as smolagents lists them in `requirements.txt`: what its
    tools import (or the plugin that registers them), what its managed agents need, the packages
    its code may import, and the plugin of its model; smol-core always."""
    from smol_core.tools.serialization import code_requirements

    found = {"smol-core"}
    for entry in tool_entries:
        found.update(str(r) for r in entry.get("requirements") or [])
    for managed in agent.managed_agents.values():
        found.update(agent_requirements(managed, [_tool_entry(t) for t in managed.tools.values()]))
    modules = {
        name.split(".")[0]
        for name in getattr(agent, "additional_authorized_imports", None) or []
        if isinstance(name, str) and name.split(".")[0].isidentifier()
    }
    model = getattr(agent.model, "target", agent.model)
    modules.add(type(model).__module__.split(".")[0])
    found.update(code_requirements("".join(f"import {module}\n" for module in sorted(modules))))
    return sorted(found)


def _tool_entry(tool: Any) -> dict[str, Any]:
    """The tool's dict with its source; a tool built at run time (from an MCP server, a Space...)
    has no source to save, and one whose source is not self-contained (see
    `validate_tool_attributes`) cannot be loaded from it, so its entry names it and has
    `code: None` (pass it as tools=[...]); `save_agent` raises the reason instead.

    A tool an installed plugin registers (the web tools) is saved by its registered name, not its
    source: its code lives in the plugin and uses the plugin's own helpers, and loading it back
    through the registry runs installed code only (`registered_tool_name`)."""
    registered = registered_tool_name(tool)
    if registered is not None:
        from smol_core.tools.serialization import code_requirements

        package = type(tool).__module__.split(".")[0]
        requirements = code_requirements(f"import {package}\n")
        return {**_described(tool), "code": None, "registered": registered, "requirements": requirements}
    try:
        return tool_to_dict(tool)
    except (OSError, TypeError, ValueError):
        return {**_described(tool), "code": None, "requirements": []}


def _described(tool: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "inputs": tool.inputs,
        "output_type": tool.output_type,
    }


def registered_tool_name(tool: Any) -> str | None:
    """The name under which an installed plugin registers `tool`'s class, or None.

    Only plain registrations count (a class, or `lazy("module:Class")`), not families such as
    `mcp:<command>` whose tools depend on an argument. Rebuilt from the name, the tool gets its
    class's default settings."""
    from smol_core.plugins.registry import get_registry

    cls = type(tool)
    target = f"{cls.__module__}:{cls.__qualname__}"
    registry = get_registry()
    for name in registry.names("tools"):
        try:
            spec = registry.tool(name)
        except Exception:  # a conflicting or broken registration: never this tool's
            continue
        if not spec.parametrized and (spec.factory is cls or getattr(spec.factory, "target", None) == target):
            return name
    return None


def _registered_tool(registered: Any, name: Any) -> Any:
    """The tool a saved entry names by its registered name, checked to be the tool it says it is."""
    from smol_core.errors import PluginNotFoundError
    from smol_core.loading import load_tools

    if not isinstance(registered, str) or not registered.replace("_", "").replace("-", "").isalnum():
        raise AgentLoadError(f"The saved tool {name!r} names no registered tool ({registered!r:.80}).")
    from smol_core.plugins.registry import get_registry

    try:
        spec = get_registry().tool(registered)
    except PluginNotFoundError as error:
        raise AgentLoadError(
            f"The saved tool {name!r} comes from a plugin that is not installed here: {error}"
        ) from error
    if spec.parametrized:  # a family (`mcp:<command>`) is built from an argument a file must not give
        raise AgentLoadError(f"The saved tool {name!r} names the tool family {registered!r}, not one tool.")
    tools = load_tools(registered)
    if len(tools) != 1 or tools[0].name != name:
        raise AgentLoadError(f"The registered tool {registered!r} is not the saved tool {name!r}.")
    return tools[0]


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
    # In a folder, tools and managed agents live in files of their own; agent.json names them.
    tools_dir = root / "tools"
    tools_dir.mkdir(exist_ok=True)
    registered: dict[str, str] = {}
    for entry, tool in zip(data["tools"], agent.tools.values(), strict=True):
        if entry.get("registered"):
            # rebuilt from its plugin on load; its source is written too where it can be (the
            # layout smolagents writes and reads), but smol never runs that file
            registered[entry["name"]] = entry["registered"]
            try:
                code = tool_source(tool)
            except (OSError, TypeError, ValueError):
                continue
        else:
            code = entry["code"] if entry["code"] is not None else tool_source(tool)  # raises: says why
        (tools_dir / f"{entry['name']}.py").write_text(code, encoding="utf-8")
    data["tools"] = [entry["name"] for entry in data["tools"]]
    if registered:
        data["registered_tools"] = registered
    data["managed_agents"] = {name: type(a).__name__ for name, a in agent.managed_agents.items()}
    for name, managed in agent.managed_agents.items():
        managed.save(root / "managed_agents" / name)
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


LOADABLE_AGENT_CLASSES = {
    "CodeAgent": "smol_core.agents.code_agent",
    "ToolCallingAgent": "smol_core.agents.tool_calling_agent",
}
"""The classes a saved agent may name, and where each is defined. A saved file is data, so it picks
from this list and nothing else; named by module (imported when a file asks) because the agent
classes themselves import this module to save and load."""


def _agent_class(name: str) -> type[Any]:
    module = LOADABLE_AGENT_CLASSES.get(name)
    if module is None:
        raise AgentLoadError(
            f"Unknown agent class {name!r}. Supported agents: {', '.join(sorted(LOADABLE_AGENT_CLASSES))}."
        )
    cls: type[Any] = getattr(importlib.import_module(module), name)
    return cls


def _unnamed_agent_class(path: Path, agent_class: type[Any] | str | None) -> type[Any]:
    """The class of a saved agent that names none: the one its loader stands for."""
    if isinstance(agent_class, type):
        return agent_class
    if isinstance(agent_class, str):
        return _agent_class(agent_class)
    raise AgentLoadError(
        f"{path} does not say which agent it is (no 'class'): load it with "
        "CodeAgent.from_folder(...) or ToolCallingAgent.from_folder(...)."
    )


def _model_from_dict(model_info: Any, record: LoadRecord, model_kwargs: dict[str, Any] | None) -> Any:
    """The saved model, rebuilt from its benign settings only, with `model_kwargs` from code on top."""
    from smol_core.plugins.registry import get_registry

    if not isinstance(model_info, dict) or "class" not in model_info:
        raise AgentLoadError("agent.json: 'model' must be an object with 'class' and 'data'.")
    class_name, raw = model_info["class"], model_info.get("data") or {}
    if class_name == "HfApiModel":  # as smolagents reads agents saved before its rename
        warnings.warn(
            "HfApiModel was renamed to InferenceClientModel: the saved agent is loaded with InferenceClientModel",
            FutureWarning,
            stacklevel=3,
        )
        class_name = "InferenceClientModel"
    if not isinstance(raw, dict):
        raise AgentLoadError("agent.json: the model's 'data' must be an object.")
    granted = model_kwargs or {}
    data = {**benign_model_settings(raw, record, granted), **granted}
    registered_class = _registered_model_class(class_name)
    if registered_class is not None:
        return registered_class.from_dict(data)
    registry = get_registry()
    for spec in cast("list[ModelSpec]", registry.specs("models", include_test_doubles=True)):
        target = getattr(spec.factory, "target", "")
        if target.endswith(f":{class_name}") or spec.name == model_info.get("type"):
            return spec.factory(**data)
    raise AgentLoadError(
        f"Unknown model class {class_name!r} in the saved agent: no installed model plugin provides it. "
        f"Supported models: {', '.join(registry.names('models'))}. Install its plugin, or pass model=... to "
        "from_folder()/from_dict()."
    )


def _registered_model_class(class_name: Any) -> Any:
    """The class `MODEL_REGISTRY` maps `class_name` to (smolagents' names, and any a user added), or None."""
    from smol_core.models.model_registry import MODEL_REGISTRY

    if not isinstance(class_name, str):
        return None
    try:
        return MODEL_REGISTRY[class_name]
    except KeyError:
        return None


_BENIGN_SETTINGS = (
    "prompt_templates",
    "max_steps",
    "verbosity_level",
    "planning_interval",
    "name",
    "description",
    "instructions",
    "provide_run_summary",
    "grammar",
)
_CODE_AGENT_BENIGN_SETTINGS = ("use_structured_outputs_internally", "answer_drafts")


def agent_from_dict(
    agent_dict: dict[str, Any],
    cls: type[Any] | None = None,
    *,
    _source: str = "the agent dict",
    _loader: str = "from_dict()",
    trusted: bool = False,
    **overrides: Any,
) -> Any:
    """Build an agent from a dict: benign settings from the dict, security settings only from
    `overrides` (code). What the dict asked for and did not get is in `agent.ignored_settings`."""
    if not isinstance(agent_dict, dict):
        raise AgentLoadError("An agent dict must be a JSON object.")
    record = LoadRecord(_source, _loader)
    agent_class = (
        _agent_class(agent_dict.get("class", "")) if cls is None or cls.__name__ == "MultiStepAgent" else cls
    )
    model_kwargs = overrides.pop("model_kwargs", None)
    code_model = overrides.pop("model", None)
    model = code_model or _model_from_dict(agent_dict.get("model"), record, model_kwargs)
    kwargs: dict[str, Any] = {
        key: agent_dict[key] for key in _BENIGN_SETTINGS if agent_dict.get(key) is not None
    }
    security = agent_security_settings(agent_dict, overrides, record, trusted=trusted)
    if agent_class.__name__ == "CodeAgent":
        kwargs.update(security)
        kwargs.update(
            {key: agent_dict[key] for key in _CODE_AGENT_BENIGN_SETTINGS if agent_dict.get(key) is not None}
        )
    if "tools" not in overrides:
        kwargs["tools"] = _tools_from_dict(agent_dict.get("tools") or [])
    if "managed_agents" not in overrides:
        managed = _managed_agents_from_dict(agent_dict.get("managed_agents"), record, code_model, trusted)
        if managed:
            kwargs["managed_agents"] = managed
    kwargs.update(overrides)
    agent = agent_class(model=model, **kwargs)
    agent.ignored_settings = (*record.ignored, *agent.ignored_settings)
    agent.applied_settings = (*record.applied, *agent.applied_settings)
    return agent


def _tools_from_dict(entries: Any) -> list[Any]:
    """Tools from their saved source, as `from_folder` loads them (the code runs: load dicts you trust)."""
    if not isinstance(entries, list):
        raise AgentLoadError("The agent dict's 'tools' must be a list.")
    tools = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("registered") is not None:
            tools.append(_registered_tool(entry["registered"], entry.get("name")))
        elif isinstance(entry, dict) and isinstance(entry.get("code"), str):
            tools.append(tool_from_code(entry["code"]))
        else:
            name = entry.get("name") if isinstance(entry, dict) else entry
            raise AgentLoadError(
                f"The agent dict lists the tool {name!r} without its code: pass tools=[...] to from_dict()."
            )
    return tools


def _managed_agents_from_dict(
    entries: Any, record: LoadRecord, model: Any, trusted: bool = False
) -> list[Any]:
    """Managed agents from their nested dicts, under the same rules; `model` (from code) is shared
    with them as `from_folder` does, else each rebuilds its own saved model."""
    if not entries:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise AgentLoadError(
            "The agent dict's 'managed_agents' must be a list of agent dicts (what to_dict() writes): "
            "pass managed_agents=[...] to from_dict()."
        )
    managed = []
    for entry in entries:
        agent = agent_from_dict(
            entry,
            None,
            _source=f"managed agent {entry.get('name')!r} of {record.source}",
            _loader=record.loader,
            trusted=trusted,
            **({"model": model} if model is not None else {}),
        )
        record.adopt(agent.ignored_settings)
        record.applied.extend(agent.applied_settings)
        managed.append(agent)
    return managed


def agent_from_folder(
    folder: str | os.PathLike[str],
    *,
    _loader: str = "from_folder()",
    trusted: bool = False,
    agent_class: type[Any] | str | None = None,
    **overrides: Any,
) -> Any:
    """Load what `save_agent` wrote. Tool files are code and run (as in smolagents); settings
    are data, and security settings come only from `overrides` (see `saved_settings`), or, where the
    caller `trusted` the folder explicitly (`from_hub(trust_remote_code=True)`), from the folder too,
    each shown first.

    An `agent.json` without "class" (smolagents up to 1.20 wrote none) is an `agent_class`: the
    class whose `from_folder` was called, or for a team member the class its manager's
    `managed_agents` names, as smolagents reads it."""
    root = Path(folder)
    path = root / AGENT_FILE
    if not path.is_file():
        raise AgentLoadError(f"No {AGENT_FILE} in {root}: is this a folder written by agent.save()?")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, RecursionError) as error:
        raise AgentLoadError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(data, dict) or "model" not in data:
        raise AgentLoadError(f"{path} must be a JSON object with at least 'model'.")
    unnamed_class = None if "class" in data else _unnamed_agent_class(path, agent_class)
    saved_registered = {} if "tools" in overrides else data.get("registered_tools") or {}
    if not isinstance(saved_registered, dict):
        raise AgentLoadError("agent.json's 'registered_tools' must map tool names to registered names.")
    tools = []
    for name in [] if "tools" in overrides else data.get("tools") or []:
        if not isinstance(name, str) or not name.isidentifier():
            raise AgentLoadError(f"agent.json lists a tool named {name!r}, which is not a tool name.")
        if name in saved_registered:
            continue  # built from its plugin below; its file is there for smolagents' readers
        tool_file = root / "tools" / f"{name}.py"
        if not tool_file.is_file():
            raise AgentLoadError(f"agent.json lists the tool {name!r} but {tool_file} is missing.")
        tools.append(tool_from_code(tool_file.read_text(encoding="utf-8")))
    tools += [_registered_tool(registered, name) for name, registered in saved_registered.items()]
    nested: list[IgnoredSetting] = []
    nested_applied: list[IgnoredSetting] = []
    managed = []
    if "managed_agents" not in overrides:
        members = data.get("managed_agents") or {}
        for name in members:
            if not isinstance(name, str) or not name.isidentifier():
                raise AgentLoadError(f"agent.json lists a managed agent named {name!r}, which is not a name.")
            member_class = members.get(name) if isinstance(members, dict) else None
            agent = agent_from_folder(
                root / "managed_agents" / name,
                _loader=f"{_loader} for the managed agent (load it with from_folder() and pass managed_agents=[...])",
                trusted=trusted,
                agent_class=member_class if isinstance(member_class, str) else None,
                model=overrides.get("model"),
            )
            nested.extend(agent.ignored_settings)
            nested_applied.extend(agent.applied_settings)
            managed.append(agent)
        overrides["managed_agents"] = managed
    overrides.setdefault("tools", tools)
    agent = agent_from_dict(
        data, unnamed_class, _source=str(path), _loader=_loader, trusted=trusted, **overrides
    )
    agent.ignored_settings = (*agent.ignored_settings, *nested)
    agent.applied_settings = (*agent.applied_settings, *nested_applied)
    return agent
