"""Planning steps: the model writes a plan at the first step and updates it every
`planning_interval` steps, with the run so far in view.

Why a module of its own: it is one of the agent's step kinds, with its own prompts (the `planning`
templates) and its own wording that smolagents' users' templates rely on; the loop only decides
when to plan (agents/multi_step.py).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from smol_core import instrumentation
from smol_core.agents.prompts import populate_template
from smol_core.errors import AgentGenerationError, BudgetExceededError
from smol_core.memory import PlanningStep
from smol_core.messages import ChatMessage, MessageRole, Timing
from smol_core.monitoring import LogLevel

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent


def planning_step(
    agent: MultiStepAgent, task: str, is_first_step: bool, step: int, max_steps: int
) -> Generator[PlanningStep]:
    """Ask `agent`'s model for a plan (the first) or an updated one, at step `step` of `max_steps`."""
    start = time.time()
    tools_text = "\n".join(f"- {tool.name}: {tool.description}" for tool in agent.tools.values())
    variables: dict[str, Any] = {
        "task": task,
        "tools": tools_text,
        "managed_agents": agent._managed_agents_section(),
    }
    templates = agent.prompt_templates["planning"]
    if any("{%" in str(template) for template in templates.values()):
        # a smolagents Jinja template iterates over the tools: it gets them as plain views
        variables.update(tools=agent.tools, managed_agents=agent.managed_agents)
    if is_first_step:
        prompt = populate_template(templates["initial_plan"], variables)
        input_messages = [ChatMessage(MessageRole.USER, [{"type": "text", "text": prompt}])]
    else:
        pre = populate_template(templates["update_plan_pre_messages"], variables)
        post = populate_template(
            templates["update_plan_post_messages"],
            {**variables, "remaining_steps": max_steps - step},
        )
        input_messages = [
            ChatMessage(MessageRole.SYSTEM, [{"type": "text", "text": pre}]),
            # summary mode leaves out the system prompt and earlier plans, as in smolagents
            *agent.write_memory_to_messages(summary_mode=True),
            ChatMessage(MessageRole.USER, [{"type": "text", "text": post}]),
        ]
    try:
        with instrumentation.span("planning", "planning", {"step.number": agent.step_number}):
            message = agent.model.generate(input_messages, stop_sequences=["<end_plan>"])
    except BudgetExceededError:
        raise  # the run stops on its budget: not the model's failure
    except Exception as error:
        raise AgentGenerationError(f"The model failed while planning: {error}", agent.logger) from error
    plan = (message.text or "").split("<end_plan>")[0].strip()
    heading = "Here is the plan:" if is_first_step else "Here is the updated plan:"
    step_record = PlanningStep(
        model_input_messages=input_messages,
        model_output_message=message,
        plan=f"{heading}\n{plan}",
        timing=Timing(start_time=start),
        token_usage=message.token_usage,
    )
    agent.logger.log_markdown(title="Plan", content=plan, level=LogLevel.INFO)
    agent._finalize_step(step_record)
    agent.memory.steps.append(step_record)
    yield step_record
