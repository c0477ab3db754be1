"""A time limit on every tool call, on by default: a tool that hangs must not hang the agent.

Why a thread: Python cannot interrupt a function stuck in a socket read or a C call, but the agent
can stop waiting for it. The tool runs on a daemon thread (with the caller's context variables);
past its limit the step gets a `ToolTimeoutError` the model reads and the run goes on. The abandoned
call may still finish on the host: its result is dropped. A tool that must run on the caller's
thread (a SQLite connection made there, a GUI toolkit) sets `timeout_seconds = None` and runs there
with no limit; so do managed agents, which are bounded by their own `max_steps`.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from smol_core.errors import AgentToolExecutionError

DEFAULT_TOOL_TIMEOUT_SECONDS = 300.0
"""How long one tool call may take unless the tool or the agent says otherwise."""


_UNSET: Any = object()  # a tool that does not set `timeout_seconds` (None means "no limit")


class ToolTimeoutError(AgentToolExecutionError):
    """A tool call ran past its time limit; the agent stopped waiting for it."""


def tool_time_limit(tool: Any, default: float | None) -> float | None:
    """The limit for one call of `tool`: its own `timeout_seconds` if it sets one, else `default`.

    A tool's `timeout_seconds = None` means no limit (and the caller's thread); the agent's
    `tool_timeout_seconds=None` means no limit for tools that do not set their own.
    """
    own = getattr(tool, "timeout_seconds", _UNSET)
    return default if own is _UNSET else own


def _timeout_message(name: str, seconds: float) -> str:
    return (
        f"The tool {name!r} did not finish within {seconds:g} seconds and was abandoned (it may still be "
        "running on the host). Try a smaller request, or do without this tool."
    )


def call_with_time_limit(call: Callable[[], Any], seconds: float | None, name: str) -> Any:
    """`call()` on a daemon thread, waited for at most `seconds`; its exception or result otherwise."""
    if seconds is None:
        return call()
    outcome: dict[str, Any] = {}
    finished = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome["value"] = context.run(call)
        except BaseException as error:  # handed to the waiting caller, who decides
            outcome["error"] = error
        finally:
            finished.set()

    threading.Thread(target=target, name=f"smol-tool-{name}", daemon=True).start()
    if not finished.wait(seconds):
        raise ToolTimeoutError(_timeout_message(name, seconds))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def await_with_time_limit(awaitable: Awaitable[Any], seconds: float | None, name: str) -> Any:
    """An async tool's result, cancelled past `seconds`."""
    if seconds is None:
        return await awaitable
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise ToolTimeoutError(_timeout_message(name, seconds)) from None
