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

from smol_core.tools.tool import Tool


def tool_callable(tool: Tool) -> Callable[..., Any]:
    """A callable for code actions: validates arguments, then runs the tool (async tools stay async)."""
    forward = getattr(tool, "func", None) or tool.forward
    if inspect.iscoroutinefunction(forward):

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            bound = tool.check_arguments(args, kwargs)
            if not getattr(tool, "is_initialized", False):
                tool.setup()
            return await forward(**bound)

        functools.update_wrapper(call_async, forward)
        call_async.__name__ = tool.name
        return call_async

    def call(*args: Any, **kwargs: Any) -> Any:
        return tool(*args, sanitize_inputs_outputs=True, **kwargs)

    call.__name__ = tool.name
    call.__doc__ = tool.description
    return call


def managed_agent_callable(agent: Any) -> Callable[..., Any]:
    def call(task: str, additional_args: dict[str, Any] | None = None) -> Any:
        if not isinstance(task, str):
            raise TypeError(f"{agent.name}(task) takes the task as a string, got {type(task).__name__}.")
        return agent(task, additional_args=additional_args)

    call.__name__ = agent.name
    call.__doc__ = agent.description
    return call
