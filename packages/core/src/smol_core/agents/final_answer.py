"""The final answer's two ways out of the loop: checked (`final_answer_checks`), or asked for when
the step budget runs out.

Why apart from the loop: both are user-facing contracts with smolagents' wording ("Check <name>
failed", "Reached the maximum number of steps") that callers match on; the loop only calls them.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from smol_core import instrumentation
from smol_core.agents.prompts import populate_template
from smol_core.errors import AgentError, AgentMaxStepsError, BudgetExceededError
from smol_core.memory import ActionStep
from smol_core.messages import ChatMessage, MessageRole, Timing

if TYPE_CHECKING:
    from smol_core.agents.multi_step import MultiStepAgent


def validate_final_answer(agent: MultiStepAgent, final_answer: Any) -> None:
    """Run `agent.final_answer_checks`; a check that fails or raises rejects the answer with an
    `AgentError` the model reads as its step's error, so it keeps working."""
    for check in agent.final_answer_checks:
        name = str(getattr(check, "__name__", "check"))
        try:
            with instrumentation.span("check", name, {"check.name": name}) as check_span:
                passed = (
                    check(final_answer, agent.memory, agent=agent)
                    if _takes_agent(check)
                    else check(final_answer, agent.memory)
                )
                check_span.set("check.passed", bool(passed))
        except Exception as error:
            # "Check <name> failed with error": smolagents' wording, which callers match on
            raise AgentError(
                f"The final answer was rejected by the check {getattr(check, '__name__', check)!r}: "
                f"Check {name} failed with error: {error}",
                agent.logger,
            ) from error
        if not passed:
            # "Check <name> failed": smolagents' wording, which callers match on
            raise AgentError(
                f"Check {name} failed: the final answer {final_answer!r:.200} was rejected by the check "
                f"{getattr(check, '__name__', check)!r}. Keep working and give a better answer.",
                agent.logger,
            )


def _takes_agent(check: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(check).parameters
    except (TypeError, ValueError):
        return False
    return "agent" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def answer_at_max_steps(agent: MultiStepAgent, task: str) -> Any:
    """The step budget ran out: the model's best answer from the memory, in a step of its own that
    records the `AgentMaxStepsError` (a full result's state is then `max_steps_error`)."""
    start = time.time()
    message = agent.provide_final_answer(task)
    step = ActionStep(
        step_number=agent.step_number,
        error=AgentMaxStepsError(
            f"Reached the maximum number of steps ({agent.step_number - 1}).", agent.logger
        ),
        timing=Timing(start_time=start),
        token_usage=message.token_usage,
    )
    step.action_output = message.text
    agent._finalize_step(step)
    agent.memory.steps.append(step)
    return message.text


def final_answer_messages(
    agent: MultiStepAgent, task: str, images: list[Any] | None = None
) -> list[ChatMessage]:
    """What the model reads to give its best answer: the `final_answer` templates around the memory."""
    templates = agent.prompt_templates["final_answer"]
    content: list[dict[str, Any]] = [{"type": "text", "text": templates["pre_messages"]}]
    content += [{"type": "image", "image": image} for image in images or []]
    messages = [ChatMessage(MessageRole.SYSTEM, content)]
    messages += agent.write_memory_to_messages()[1:]
    messages.append(
        ChatMessage(
            MessageRole.USER,
            [{"type": "text", "text": populate_template(templates["post_messages"], {"task": task})}],
        )
    )
    return messages


def ask_for_final_answer(agent: MultiStepAgent, task: str, images: list[Any] | None = None) -> ChatMessage:
    """The model's best answer from the memory; a model that fails gives a message that says so."""
    try:
        return agent.model.generate(agent._final_answer_messages(task, images))
    except BudgetExceededError:
        raise  # the run stops on its budget: not the model's failure
    except Exception as error:
        return ChatMessage(MessageRole.ASSISTANT, f"Error in generating final LLM output: {error}")
