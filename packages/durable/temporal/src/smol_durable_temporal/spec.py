"""`AgentSpec`: an agent described as data that a Temporal worker on another machine can build.

Why an import path and not an agent object: each step runs in a fresh process's worker thread
(any worker polling the task queue), so the agent cannot travel; its recipe does. A spec names a
factory, `"package.module:function"`, importable on every worker, and JSON keyword arguments for it.
`AgentSpec.from_settings(...)` describes the same agents as `smolagent` and teams
(`smol_core.agents.settings.AgentSettings`) without a factory of one's own.

Every way a spec can be wrong (not `module:function`, a module or name that is not there, a factory
that fails or returns no agent) is one `AgentSpecError` line that names the spec.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from smol_core.plugin_api import SmolError

_SETTINGS_FACTORY = "smol_durable_temporal.spec:agent_from_settings"


class AgentSpecError(SmolError):
    """An agent spec that cannot give an agent (one line, naming the spec)."""


@dataclass(frozen=True)
class AgentSpec:
    factory: str
    """`"package.module:function"`: called with `kwargs`, it returns a fresh smol agent."""
    kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, agent: AgentSpec | str | Callable[..., Any], **kwargs: Any) -> AgentSpec:
        """A spec from a spec, an import path, or a module-level factory function."""
        if isinstance(agent, AgentSpec):
            return agent if not kwargs else cls(agent.factory, {**agent.kwargs, **kwargs})
        if isinstance(agent, str):
            return cls(agent, kwargs)
        module, qualname = getattr(agent, "__module__", None), getattr(agent, "__qualname__", None)
        if not callable(agent) or not module or not qualname:
            raise AgentSpecError(
                f"agent spec {agent!r}: give a factory function, its import path 'module:function', or an AgentSpec"
            )
        if module == "__main__" or "<" in qualname:
            raise AgentSpecError(
                f"agent spec {module}:{qualname}: the workers cannot import it; define the factory at the top "
                "level of a module they import, and give it (or 'module:function')"
            )
        return cls(f"{module}:{qualname}", kwargs)

    @classmethod
    def from_settings(cls, **settings: Any) -> AgentSpec:
        """The agent `AgentSettings(**settings)` describes (model plugin, tools by name, executor...),
        built with `build_agent` on each worker; `budget` is a dict of `RunBudget` fields."""
        return cls(_SETTINGS_FACTORY, settings)

    def to_data(self) -> dict[str, Any]:
        try:
            json.dumps(self.kwargs)
        except (TypeError, ValueError) as error:
            raise AgentSpecError(
                f"agent spec {self.factory}: its kwargs must be JSON data ({error})"
            ) from None
        return {"factory": self.factory, "kwargs": dict(self.kwargs)}

    @classmethod
    def from_data(cls, data: Any) -> AgentSpec:
        if not isinstance(data, dict) or not isinstance(data.get("factory"), str):
            raise AgentSpecError(
                f"agent spec {str(data)[:80]!r}: expected {{'factory': 'module:function', 'kwargs': {{...}}}}"
            )
        kwargs = data.get("kwargs") or {}
        if not isinstance(kwargs, dict):
            raise AgentSpecError(f"agent spec {data['factory']}: its kwargs must be a dict")
        return cls(data["factory"], kwargs)

    def load_factory(self) -> Callable[..., Any]:
        """The factory function, imported here: what a worker does before each step."""
        module_name, colon, name = self.factory.partition(":")
        if not colon or not module_name or not name:
            raise AgentSpecError(
                f"agent spec {self.factory!r}: give the factory as 'package.module:function'"
            )
        try:
            target: Any = importlib.import_module(module_name)
        except Exception as error:
            raise AgentSpecError(
                f"agent spec {self.factory}: cannot import {module_name!r} ({type(error).__name__}: {_line(error)}); "
                "is it installed, or on PYTHONPATH, where the worker runs?"
            ) from None
        for part in name.split("."):
            if not hasattr(target, part):
                raise AgentSpecError(f"agent spec {self.factory}: module {module_name!r} has no {name!r}")
            target = getattr(target, part)
        if not callable(target):
            raise AgentSpecError(
                f"agent spec {self.factory}: {name!r} is a {type(target).__name__}, not a function"
            )
        return target  # type: ignore[no-any-return]

    def build(self) -> Any:
        """A fresh agent from the factory: a `MultiStepAgent`, or a one-line `AgentSpecError`."""
        from smol_core.plugin_api import MultiStepAgent

        factory = self.load_factory()
        try:
            agent = factory(**self.kwargs)
        except AgentSpecError:
            raise
        except Exception as error:
            raise AgentSpecError(
                f"agent spec {self.factory}: the factory failed ({type(error).__name__}: {_line(error)})"
            ) from None
        if not isinstance(agent, MultiStepAgent):
            raise AgentSpecError(
                f"agent spec {self.factory}: the factory returned a {type(agent).__name__}, not a smol agent "
                "(CodeAgent, ToolCallingAgent)"
            )
        return agent


def agent_from_settings(**settings: Any) -> Any:
    """`AgentSpec.from_settings`'s factory: `build_agent(AgentSettings(**settings))`."""
    from smol_core.plugin_api import AgentSettings, RunBudget, build_agent

    known = {item.name for item in fields(AgentSettings)} - {"model"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise AgentSpecError(
            f"agent spec from_settings: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    values = dict(settings)
    for name in ("tools", "additional_authorized_imports"):
        if name in values:
            values[name] = tuple(values[name])
    if isinstance(values.get("budget"), dict):
        values["budget"] = RunBudget(**values["budget"])
    return build_agent(AgentSettings(**values))


def _line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else ""
