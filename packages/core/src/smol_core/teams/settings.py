"""How each agent of a team is built: the agent its `AgentSettings` describe (agents/settings.py),
with the team's message tools and a prompt that says who it is and whom it can message."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smol_core.agents.multi_step import MultiStepAgent
from smol_core.agents.settings import AgentSettings, build_agent
from smol_core.monitoring import AgentLogger

__all__ = ["AgentSettings", "build_team_agent", "modules_of_models", "team_instructions"]


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


def build_team_agent(
    agent_id: int, num_agents: int, settings: AgentSettings, tools: list[Any], logger: AgentLogger
) -> MultiStepAgent:
    """Agent `agent_id` of a team of `num_agents`: `settings`' agent with the team's `tools`."""
    return build_agent(
        settings,
        tools=tools,
        instructions=team_instructions(agent_id, num_agents),
        logger=logger,
        name=f"agent_{agent_id}",
    )


_NOT_PRELOADED = frozenset({"__main__", "__mp_main__", "builtins"})
"""The host's script is imported in the fork server on its own (`fork_server_path.import_host_main`)."""


def modules_of_models(settings: Sequence[AgentSettings]) -> tuple[str, ...]:
    """The modules of the model objects `settings` hand the agents: each agent imports them as it
    unpickles its settings, unless its fork server has (`start_method.start_fork_server`)."""
    modules = {type(each.model).__module__ for each in settings if each.model is not None}
    return tuple(sorted(modules - _NOT_PRELOADED))
