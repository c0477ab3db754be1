"""`fresh_copy`: an agent for each user of a shared surface, with the configuration shared and no state.

Why: a surface that serves several people (a chat page, a server) gives each their own agent, so no
one reads another's conversation or the variables another's code left in the sandbox.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, cast

from smol_core.agents.run_state import AgentRuns
from smol_core.memory import AgentMemory
from smol_core.monitoring import Monitor
from smol_core.tools.time_limit import StepToolBudget
from smol_core.tools.tool import Tool

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent


def fresh_copy(agent: MultiStepAgent) -> MultiStepAgent:
    """A copy of `agent` that shares its configuration (model, tools, prompts, callbacks, logger)
    and none of its state: an empty memory, its own variables, runs and token counts, copies of its
    managed agents and of its tools that keep state (those with a `fresh_copy()`)."""
    twin = copy.copy(agent)
    twin._runs = AgentRuns()
    twin.monitor = Monitor(agent.model, agent.logger)
    twin.run_extensions = list(agent.run_extensions)  # a tape on one copy is not on the others
    twin.tool_budget = StepToolBudget(agent.tool_budget.seconds)
    twin.managed_agents = {name: managed.fresh_copy() for name, managed in agent.managed_agents.items()}
    # a tool that keeps state between calls (an interpreter's namespace) says so with a
    # fresh_copy() of its own; the others are configuration, shared
    twin.tools = {name: _own_copy(tool) for name, tool in agent.tools.items()}
    twin.step_callbacks = agent.step_callbacks.rebound(
        agent.monitor.update_metrics, twin.monitor.update_metrics
    )
    twin._runs.last.memory = AgentMemory(twin.system_prompt)
    return twin


def _own_copy(tool: Tool) -> Tool:
    """`tool.fresh_copy()` for a tool that keeps state between calls, else the tool itself."""
    make = getattr(tool, "fresh_copy", None)
    return cast(Tool, make()) if callable(make) else tool
