"""`AgentSettings`: how to build one agent of a team, as data that crosses into its process.

Each agent builds its own model and executor in its own process (a model client, a llama.cpp server
handle or a sandbox worker cannot be shared across processes, and should not be): the host hands
over only these settings, which pickle under `spawn`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from smol_core.monitoring import AgentLogger


@dataclass(frozen=True)
class AgentSettings:
    """What one agent of a team is: its model, kind, tools, imports, executor and step budget.

    `model` is a ready model object for tests and embedding (it must pickle: `ScriptedModel` does);
    otherwise `model_type`/`model_id`/`model_kwargs` name a model plugin, built in the agent's process.
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


def team_instructions(agent_id: int, num_agents: int) -> str:
    """What each agent's prompt says about the team: who it is, and whom it can message."""
    others = [str(i) for i in range(num_agents) if i != agent_id]
    lines = [
        f"You are agent {agent_id} of a team of {num_agents} agents (ids 0 to {num_agents - 1}), "
        "each its own process.",
        f"You can message agents {', '.join(others) or '(none)'} with send_message(target_id=..., "
        "message=...) and read messages sent to you with receive_messages(timeout=seconds).",
    ]
    if agent_id == 0:
        lines.append("You received the user's task: your final answer is the team's answer and ends the run.")
    else:
        lines.append(
            "Agent 0 holds the user's task. Send your results to the agent that asked for them "
            "before you give your final answer."
        )
    return "\n".join(lines)


def build_agent(
    agent_id: int, num_agents: int, settings: AgentSettings, tools: list[Any], logger: AgentLogger
) -> Any:
    """The agent `settings` describe, with the team's tools and instructions added."""
    from smol_core.loading import load_model, load_tools

    model = settings.model
    if model is None:
        model = load_model(settings.model_type, settings.model_id, **settings.model_kwargs)
    all_tools = list(tools)
    for name in settings.tools:
        all_tools.extend(load_tools(name))
    instructions = team_instructions(agent_id, num_agents)
    if settings.instructions:
        instructions = f"{settings.instructions}\n\n{instructions}"
    common: dict[str, Any] = {
        "tools": all_tools,
        "model": model,
        "max_steps": settings.max_steps,
        "instructions": instructions,
        "logger": logger,
        "name": f"agent_{agent_id}",
    }
    if settings.action_type == "tool_calling":
        from smol_core.agents.tool_calling_agent import ToolCallingAgent

        return ToolCallingAgent(**common)
    from smol_core.agents.code_agent import CodeAgent

    return CodeAgent(
        additional_authorized_imports=list(settings.additional_authorized_imports),
        executor_type=settings.executor_type,
        use_structured_outputs_internally=settings.structured,
        **common,
    )
