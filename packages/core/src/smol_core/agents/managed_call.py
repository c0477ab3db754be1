"""An agent called by its manager (`managed_agent(task=...)`): the manager's task in, a report out.

Why apart from the loop: the task and report wording come from the `managed_agent` templates and the
run summary's layout is smolagents' (managers' prompts and parsers expect both), so they are a
contract of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smol_core.agents.prompts import MANAGED_AGENTS_SECTION, populate_template
from smol_core.agents.result import RunResult

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent

_SUMMARY_MESSAGE_CHARS = 20_000


def managed_agent_report(
    agent: MultiStepAgent, task: str, additional_args: dict[str, Any] | None, run_kwargs: dict[str, Any]
) -> str:
    """Run `agent` on its manager's `task` and write the report its manager reads."""
    templates = agent.prompt_templates["managed_agent"]
    full_task = populate_template(templates["task"], {"name": agent.name, "task": task})
    result = agent.run(full_task, additional_args=additional_args, **run_kwargs)
    output = result.output if isinstance(result, RunResult) else result
    report = populate_template(templates["report"], {"name": agent.name, "final_answer": output})
    if agent.provide_run_summary:
        # smolagents' layout, which managers' prompts and parsers expect
        report += "\n\nFor more detail, find below a summary of this agent's work:\n<summary_of_work>\n"
        for message in agent.write_memory_to_messages(summary_mode=True):
            report += "\n" + _truncated(message.text) + "\n---"
        report += "\n</summary_of_work>"
    return report


def managed_agents_section(managed_agents: dict[str, MultiStepAgent]) -> str:
    """The system prompt's list of the agents a manager can call, as functions (empty without any)."""
    if not managed_agents:
        return ""
    listing = "\n".join(
        f"- {name}(task: str, additional_args: dict | None = None) -> str: {agent.description}"
        for name, agent in managed_agents.items()
    )
    return populate_template(MANAGED_AGENTS_SECTION, {"managed_agents_list": listing})


def _truncated(text: str) -> str:
    """A message of a run summary, cut in the middle past `_SUMMARY_MESSAGE_CHARS` (as smolagents does)."""
    if len(text) <= _SUMMARY_MESSAGE_CHARS:
        return text
    half = _SUMMARY_MESSAGE_CHARS // 2
    return f"{text[:half]}\n..._This content has been truncated to stay below {_SUMMARY_MESSAGE_CHARS} characters_...\n{text[-half:]}"
