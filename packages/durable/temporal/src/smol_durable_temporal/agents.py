"""`AgentRegistry`: the agents a worker runs, registered by name when the worker starts.

Why names and not import paths: whoever reaches a task queue can start a workflow on it, with any
input. If the input named code ("module:function", with arguments), every such client would run
code of its choice on every worker, and could point the worker's model at a server of its own with
the worker's API key. So the code is chosen where the worker starts (`create_worker(...,
agents={"support": make_support_agent})`, or `--agent support=my_agents:make_support_agent`), and a
run's input only names one of those agents: a name the worker does not serve ends the run at once,
with the names it does.

A factory takes no arguments and returns a fresh agent for each step (each step may run on another
worker, in another process). `settings_agent(...)` makes one from `AgentSettings` fields (model
plugin, tools by name, executor...), as `smolagent` and teams describe agents.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from smol_core.plugin_api import SmolError

AgentFactory = Callable[[], Any]
"""Returns a fresh smol agent (`CodeAgent`, `ToolCallingAgent`); called for every step."""

AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""What an agent's name may be: it travels in workflow inputs and is shown in errors."""


class UnknownAgentError(SmolError):
    """A run names an agent the worker does not serve (one line, with the names it serves)."""


class AgentFactoryError(SmolError):
    """A registered factory that cannot give an agent: it failed, or returned something else."""


def check_agent_name(name: object) -> str:
    """`name` if it can name an agent; else a one-line `ValueError` that says what can."""
    if not isinstance(name, str) or AGENT_NAME.fullmatch(name) is None:
        raise ValueError(
            f"agent name {str(name)[:80]!r}: give 1 to 64 letters, digits, '_', '.' or '-' "
            "(the name the worker registered the agent under)"
        )
    return name


class AgentRegistry:
    """The agents one worker runs, by name: `AgentRegistry({"support": make_support_agent})`."""

    def __init__(self, agents: Mapping[str, AgentFactory]) -> None:
        if not agents:
            raise ValueError(
                "a worker needs at least one agent: create_worker(..., agents={'name': factory}), "
                "or smol-temporal-worker --agent NAME=module:function"
            )
        for name, factory in agents.items():
            check_agent_name(name)
            if not callable(factory):
                raise ValueError(f"agent {name!r}: its factory is a {type(factory).__name__}, not a function")
        self._factories = dict(agents)

    @classmethod
    def of(cls, agents: AgentRegistry | Mapping[str, AgentFactory]) -> AgentRegistry:
        return agents if isinstance(agents, AgentRegistry) else cls(agents)

    @property
    def names(self) -> list[str]:
        return sorted(self._factories)

    def build(self, name: str) -> Any:
        """A fresh agent for one step of a run of `name`; one line if there is none."""
        from smol_core.plugin_api import MultiStepAgent

        factory = self._factories.get(name)
        if factory is None:
            raise UnknownAgentError(
                f"this worker serves no agent {name[:80]!r}; it serves: {', '.join(self.names)}"
            )
        try:
            agent = factory()
        except Exception as error:
            raise AgentFactoryError(
                f"agent {name!r}: its factory failed ({type(error).__name__}: {first_line(error)})"
            ) from None
        if not isinstance(agent, MultiStepAgent):
            raise AgentFactoryError(
                f"agent {name!r}: its factory returned a {type(agent).__name__}, not a smol agent "
                "(CodeAgent, ToolCallingAgent)"
            )
        return agent

    def __repr__(self) -> str:
        return f"AgentRegistry({', '.join(self.names)})"


def load_agents(entries: list[str], registries: list[str]) -> AgentRegistry:
    """The worker command's agents: `NAME=module:function` entries, and `module:attribute`
    registries (a mapping of names to factories, or an `AgentRegistry`). Chosen by whoever starts
    the worker: the only place where code is named."""
    agents: dict[str, AgentFactory] = {}
    for path in registries:
        found = _import(path)
        if isinstance(found, AgentRegistry):
            found = found._factories
        if not isinstance(found, Mapping):
            raise ValueError(
                f"--agents {path}: a {type(found).__name__}, not a mapping of names to factories"
            )
        agents.update(found)
    for entry in entries:
        name, equals, path = entry.partition("=")
        if not equals:
            raise ValueError(f"--agent {entry!r}: give NAME=module:function")
        agents[check_agent_name(name)] = _import(path)
    return AgentRegistry(agents)


def _import(path: str) -> Any:
    module_name, colon, name = path.partition(":")
    if not colon or not module_name or not name:
        raise ValueError(f"{path!r}: give 'package.module:name'")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:
        raise ValueError(
            f"{path}: cannot import {module_name!r} ({type(error).__name__}: {first_line(error)}); "
            "is it installed, or on PYTHONPATH, where the worker runs?"
        ) from None
    for part in name.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{path}: module {module_name!r} has no {name!r}")
        target = getattr(target, part)
    return target


def settings_agent(**settings: Any) -> AgentFactory:
    """A factory for the agent `AgentSettings(**settings)` describes (model plugin, tools by name,
    executor...; `budget` a dict of `RunBudget` fields), checked now, when the worker starts."""
    from smol_core.plugin_api import AgentSettings

    known = {item.name for item in fields(AgentSettings)} - {"model"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return lambda: _build_from_settings(dict(settings))


def _build_from_settings(values: dict[str, Any]) -> Any:
    from smol_core.plugin_api import AgentSettings, RunBudget, build_agent

    for name in ("tools", "additional_authorized_imports"):
        if name in values:
            values[name] = tuple(values[name])
    if isinstance(values.get("budget"), dict):
        values["budget"] = RunBudget(**values["budget"])
    return build_agent(AgentSettings(**values))


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else ""
