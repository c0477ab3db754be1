"""One line that says how a `CodeAgent` prompts its model, and why: for verbose output.

The same model behaves very differently under the small-model prompt with a GBNF grammar and under the
generic prompt with JSON actions, and which one a run gets depends on what was learned about the model
(its file size in process, what its server reported, a user's override). Saying so at the start of
each run turns "why does it do worse over HTTP?" into something a user can read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smol_core.agents.code_agent import CodeAgent


def describe_mode(agent: CodeAgent) -> str:
    """`Model mode: small-model prompt, GBNF-constrained actions, 3 answer drafts (because ...)`."""
    parts = ["small-model prompt with worked examples" if agent._small_model else "generic prompt"]
    has_tools = set(agent.tools) != {"final_answer"} and not agent.managed_agents
    if agent._small_model and has_tools:
        parts.append(
            "tool examples, each block calling a tool first"
            if agent._calls_tools_then_answers
            else "no tool call (the task names nothing the tools are about)"
        )
    if agent._json_actions:
        parts.append("JSON-constrained actions (response_format)")
    elif agent.use_structured_outputs_internally:
        parts.append("GBNF-constrained actions (grammar)")
    else:
        parts.append("unconstrained actions")
    if agent._drafts_per_step > 1:
        parts.append(f"{agent._drafts_per_step} answer drafts per step")
    reason = getattr(agent.model, "capabilities_reason", None)
    because = f" (because: {reason})" if isinstance(reason, str) and reason else ""
    return f"Model mode: {', '.join(parts)}{because}"
