"""`AgentSettings` and `build_agent`: an agent described as data, and the one way it is built.

Why one: the `smolagent` command, `smol ui` and every agent of a team build their agent from the same
description (model plugin and options, kind, tools by name, imports, executor, step budget), so a
tool given as `name:argument` or an option of the model means the same in each. The settings are
data that crosses into a team's agent processes (they pickle under `spawn`): each agent builds its
own model and executor in its own process, as a model client or a sandbox worker cannot be shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from smol_core.agents.budget import RunBudget
from smol_core.agents.code_agent import CodeAgent
from smol_core.agents.multi_step import MultiStepAgent
from smol_core.agents.tool_calling_agent import ToolCallingAgent
from smol_core.errors import SmolError
from smol_core.loading import load_model, load_tools
from smol_core.monitoring import AgentLogger
from smol_core.plugins.registry import get_registry


@dataclass(frozen=True)
class AgentSettings:
    """What an agent is: its model, kind, tools, imports, executor and step budget.

    `model` is a ready model object for tests and embedding (in a team it must pickle:
    `ScriptedModel` does); otherwise `model_type`/`model_id`/`model_kwargs` name a model plugin,
    built where the agent runs. `tools` are registered tool names, `name:argument` for those that
    take one (`space:owner/name`).
    """

    model_type: str = "llamacpp"
    model_id: str | None = None
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    model: Any = None
    action_type: Literal["code", "tool_calling"] = "code"
    tools: tuple[str, ...] = ()
    additional_authorized_imports: tuple[str, ...] = ()
    executor_type: str = "local"
    max_steps: int = 20
    verbosity_level: int = 1
    instructions: str | None = None
    structured: bool | None = None
    budget: RunBudget | None = None
    """What each run of the agent may spend (`smol_core.agents.budget`): in a team, each agent's own."""
    checkpoint_store: Any = None
    """Where the agent's durable runs are saved: a store plugin's name, a store object (in a team it
    must pickle: `SQLiteStore` does), or None for the default SQLite file."""


def build_agent(
    settings: AgentSettings,
    tools: Sequence[Any] = (),
    instructions: str | None = None,
    logger: AgentLogger | None = None,
    name: str | None = None,
) -> MultiStepAgent:
    """The agent `settings` describe, with `tools` added to its named ones and `instructions` after
    its own (a team adds its message tools and what each agent is to the others)."""
    model = settings.model
    if model is None:
        model = load_model(settings.model_type, settings.model_id, **settings.model_kwargs)
    joined = "\n\n".join(text for text in (settings.instructions, instructions) if text) or None
    common: dict[str, Any] = {
        "tools": [*tools, *tools_from_names(settings.tools)],
        "model": model,
        "max_steps": settings.max_steps,
        "instructions": joined,
        "name": name,
        "budget": settings.budget,
        "checkpoint_store": settings.checkpoint_store,
    }
    if logger is not None:
        common["logger"] = logger
    else:
        common["verbosity_level"] = settings.verbosity_level
    if settings.action_type == "tool_calling":
        return ToolCallingAgent(**common)
    return CodeAgent(
        additional_authorized_imports=list(settings.additional_authorized_imports),
        executor_type=settings.executor_type,
        use_structured_outputs_internally=settings.structured,
        **common,
    )


def tools_from_names(names: Sequence[str]) -> list[Any]:
    """The registered tools `names` name; `name:argument` for a tool that takes an argument. A name
    with an argument it does not take, or without one it needs, is a one-line `SmolError`."""
    tools: list[Any] = []
    for entry in names:
        name, colon, argument = entry.partition(":")
        spec = get_registry().tool(name)
        if argument and not spec.parametrized:
            raise SmolError(f"the tool {name!r} takes no ':argument': give it as --tools {name}")
        if spec.parametrized and not argument.strip():
            raise SmolError(f"the tool {name!r} needs an argument: --tools {name}:ARGUMENT")
        tools.extend(load_tools(name, argument) if colon else load_tools(name))
    return tools
