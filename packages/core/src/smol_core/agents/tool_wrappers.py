"""How tools and managed agents are handed to an executor: as plain callables that check their input.

The executor sees only callables, never the `Tool` objects themselves (which may hold clients and
secrets): a call from the code is validated against the tool's declared inputs, so a wrong argument
comes back to the model as an error that names it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from smol_core.agent_types import handle_agent_input_types
from smol_core.effects import RunDoor, ToolEffect
from smol_core.tools.time_limit import DEFAULT_TOOL_TIMEOUT_SECONDS, StepToolBudget, tool_time_limit
from smol_core.tools.tool import Tool


def tool_callable(
    tool: Tool,
    timeout_seconds: float | None = DEFAULT_TOOL_TIMEOUT_SECONDS,
    budget: StepToolBudget | None = None,
    door: RunDoor | None = None,
) -> Callable[..., Any]:
    """A callable for code actions: validates arguments, then runs the tool (async tools stay async)
    within its time limit and the step's tool time `budget` (`tools/time_limit.py`), through the
    run's `door` (effects.py: a durable run's ledger makes a finished call only once)."""
    door = door or RunDoor()
    idempotent = bool(getattr(tool, "idempotent", False))
    approval = bool(getattr(tool, "requires_approval", False))
    forward = getattr(tool, "func", None) or tool.forward
    limit = tool_time_limit(tool, timeout_seconds)
    budget = budget or StepToolBudget(None)

    def effect(bound: dict[str, Any]) -> ToolEffect:
        return ToolEffect(tool.name, bound, "tool", idempotent, approval)

    if inspect.iscoroutinefunction(forward):

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            bound = tool.check_arguments(args, kwargs)
            if not getattr(tool, "is_initialized", False):
                tool.setup()
            return await door.tool_call_async(
                effect(bound), lambda: budget.call_async(forward(**bound), limit, tool.name)
            )

        functools.update_wrapper(call_async, forward)
        call_async.__name__ = tool.name
        return call_async

    def call(*args: Any, **kwargs: Any) -> Any:
        # arguments checked, agent types in made plain; the output is what forward returned, never
        # wrapped as an agent type (a tool declared "string" that returns bytes must still give bytes)
        raw_args, raw_kwargs = handle_agent_input_types(*args, **kwargs)
        bound = tool.check_arguments(tuple(raw_args), raw_kwargs)
        return door.tool_call(effect(bound), lambda: budget.call(lambda: tool(**bound), limit, tool.name))

    call.__name__ = tool.name
    call.__doc__ = tool.description
    return call


MANAGED_AGENT_ARGUMENTS = ("task", "additional_args")


def managed_agent_callable(agent: Any, door: RunDoor | None = None) -> Callable[..., Any]:
    """A callable that runs `agent` with a task and, optionally, values to hand over: nothing else,
    through the calling run's `door` (a durable run's ledger, its approval policy and budget cover
    the member's call and, handed down, the member's own run: effects.py).

    The model is the caller here, and `agent.__call__` passes extra keywords on to `run()`: a model
    that could add `max_steps=10**9`, `reset=False` or `stream=True` would set the team member's
    budget and behaviour. So only `task` and `additional_args` get through; any other argument is a
    `TypeError` that names the two (shown to the model as the step's error).
    """
    door = door or RunDoor()

    def call(*args: Any, **kwargs: Any) -> Any:
        task, additional_args = _managed_agent_arguments(agent.name, args, kwargs)
        effect = ToolEffect(agent.name, {"task": task, "additional_args": additional_args}, "member")
        return door.tool_call(effect, lambda: agent(task, additional_args=additional_args))

    call.__name__ = agent.name
    call.__doc__ = agent.description
    return call


def _managed_agent_arguments(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str, dict[str, Any] | None]:
    usage = f"{name}(task: str, additional_args: dict | None = None)"
    if len(args) > len(MANAGED_AGENT_ARGUMENTS):
        raise TypeError(f"{usage} takes at most 2 arguments, got {len(args)}.")
    bound = dict(zip(MANAGED_AGENT_ARGUMENTS, args, strict=False))
    unexpected = sorted(str(key) for key in kwargs if key not in MANAGED_AGENT_ARGUMENTS)
    if unexpected:
        raise TypeError(
            f"{usage} takes only a task and additional_args; it got unexpected arguments: "
            f"{', '.join(unexpected)[:300]}. Put everything the team member needs into the task."
        )
    for key, value in kwargs.items():
        if key in bound:
            raise TypeError(f"{usage} got two values for {key!r}.")
        bound[key] = value
    task = bound.get("task")
    if not isinstance(task, str):
        raise TypeError(f"{usage} takes the task as a string, got {type(task).__name__}.")
    additional_args = bound.get("additional_args")
    if additional_args is not None and not isinstance(additional_args, dict):
        raise TypeError(
            f"{usage} takes additional_args as a dict or None, got {type(additional_args).__name__}."
        )
    if additional_args is not None and not all(isinstance(key, str) for key in additional_args):
        raise TypeError(f"{usage}: the keys of additional_args must be strings.")
    return task, additional_args
