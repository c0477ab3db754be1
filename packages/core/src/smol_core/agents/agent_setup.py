"""What an agent's constructor checks and builds from its arguments: managed agents and tools by
name (one name, one thing), step callbacks, and custom templates under smolagents' names.

Why apart from the loop: these are the constructor's contracts with smolagents' users (its error
wording, which tests match on; its documented template names), and none of them runs during a run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from smol_core.agents.prompts import PromptTemplates
from smol_core.memory import ActionStep, CallbackRegistry, MemoryStep
from smol_core.tools.base_tools import TOOL_MAPPING, FinalAnswerTool
from smol_core.tools.decorator import as_tool
from smol_core.tools.tool import Tool

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent

_UNIQUE = "(Each tool or managed_agent should have a unique name!)"


def managed_agents_by_name(managed_agents: list[MultiStepAgent] | None) -> dict[str, MultiStepAgent]:
    """The team an agent manages, by the names its manager calls them."""
    by_name: dict[str, MultiStepAgent] = {}
    for agent in managed_agents or []:
        if not agent.name or not agent.description:
            raise ValueError(
                f"A managed agent needs a name and a description (got name={agent.name!r}, "
                f"description={agent.description!r}): its manager calls it by name and reads the description."
            )
        if agent.name in by_name:
            raise ValueError(f"Two managed agents are named {agent.name!r}.")
        by_name[agent.name] = agent
    return by_name


def tools_by_name(
    tools: Iterable[Tool | Callable[..., Any]],
    add_base_tools: bool,
    with_python_interpreter: bool,
    managed_agents: Mapping[str, object],
    agent_name: str | None,
) -> dict[str, Tool]:
    """The agent's tools by name: the given ones (functions become tools), the base tools when
    asked, and `final_answer`; no name taken twice, by a tool, a managed agent or the agent itself."""
    if tools is None:
        raise TypeError("`tools` must be a list (it may be empty).")
    by_name: dict[str, Tool] = {}
    for item in tools:
        tool = as_tool(item)
        if tool.name in by_name:
            raise ValueError(f"Two tools are named {tool.name!r}; tool names must be unique. {_UNIQUE}")
        by_name[tool.name] = tool
    if add_base_tools:
        for name, tool_class in TOOL_MAPPING.items():
            if name != "python_interpreter" or with_python_interpreter:
                by_name.setdefault(name, tool_class())
    by_name.setdefault("final_answer", FinalAnswerTool())
    clash = set(by_name) & set(managed_agents)
    if clash:
        raise ValueError(
            f"These names are used by both a tool and a managed agent: {sorted(clash)}. {_UNIQUE}"
        )
    if agent_name is not None and (agent_name in by_name or agent_name in managed_agents):
        # a manager calls this agent by its name, beside its own tools: one name, one thing
        raise ValueError(
            f"The agent is named {agent_name!r}, as one of its tools or managed agents. {_UNIQUE}"
        )
    return by_name


def step_callback_registry(
    step_callbacks: list[Callable[..., Any]] | dict[type[MemoryStep], Any] | None,
    update_metrics: Callable[..., Any],
) -> CallbackRegistry:
    """smolagents' two forms of `step_callbacks` (a list: after each action step; a dict: by step
    type), with the monitor's metrics update after every action step."""
    registry = CallbackRegistry()
    if isinstance(step_callbacks, dict):
        for step_cls, callbacks in step_callbacks.items():
            for callback in callbacks if isinstance(callbacks, list) else [callbacks]:
                registry.register(step_cls, callback)
    else:
        for callback in step_callbacks or []:
            registry.register(ActionStep, callback)
    registry.register(ActionStep, update_metrics)
    return registry


def with_smolagents_keys(templates: PromptTemplates | dict[str, Any] | None) -> dict[str, Any] | None:
    """Custom templates with smolagents' documented names read as the names it uses: its docstring
    calls the first planning template `plan`, its code `initial_plan`; both are taken."""
    if not templates:
        return None
    custom = dict(templates)
    planning = custom.get("planning")
    if isinstance(planning, dict) and "plan" in planning and "initial_plan" not in planning:
        planning = dict(planning)
        planning["initial_plan"] = planning.pop("plan")
        custom["planning"] = planning
    return custom
