"""Time limits on tools, on by default: per call, and per step in all.

A tool that hangs must not hang the agent, and neither must a loop of slow calls: code that calls a
300-second tool a hundred times in one action (or a reply of a hundred tool calls) would hold the
step for hours although each call keeps its own limit. So a step also has a budget of tool time in
all (`StepToolBudget`); each call may take at most what is left of it, and once it is spent further
calls in that step fail at once with an error the model reads.

Why a thread: Python cannot interrupt a function stuck in a socket read or a C call, but the agent
can stop waiting for it. The tool runs on a daemon thread (with the caller's context variables);
past its limit the step gets a `ToolTimeoutError` the model reads and the run goes on. The abandoned
call may still finish on the host: its result is dropped. A tool that must run on the caller's
thread (a SQLite connection made there, a GUI toolkit) sets `timeout_seconds = None` and runs there
with no limit; so do managed agents, which are bounded by their own `max_steps`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from smol_core.errors import AgentToolExecutionError

DEFAULT_TOOL_TIMEOUT_SECONDS = 300.0
"""How long one tool call may take unless the tool or the agent says otherwise."""

DEFAULT_STEP_TOOL_BUDGET_SECONDS = 600.0
"""How much tool time one step may spend in all (two calls at the full per-call limit)."""


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


class StepToolBudget:
    """The tool time one agent step may spend, summed over its calls; reset at each step.

    Thread-safe: a ToolCallingAgent runs a reply's calls in parallel, and a code action's async tools
    run on the executor's loop thread. A call starts with at most what is left (so parallel calls end
    by the budget's end), and is charged its real duration when it returns or is abandoned. Tools that
    must run on the caller's thread (`timeout_seconds = None`) are not interrupted, but are charged,
    and are refused once the budget is spent.
    """

    def __init__(self, seconds: float | None = DEFAULT_STEP_TOOL_BUDGET_SECONDS) -> None:
        self.seconds = seconds
        self._spent = 0.0
        self._lock = threading.Lock()

    def start_step(self) -> None:
        with self._lock:
            self._spent = 0.0

    @property
    def spent(self) -> float:
        with self._lock:
            return self._spent

    def charge(self, seconds: float) -> None:
        with self._lock:
            self._spent += max(0.0, seconds)

    def limit_for(self, call_limit: float | None, name: str) -> tuple[float | None, bool]:
        """The limit of one call of `name` whose own limit is `call_limit`, and whether the budget
        (rather than the call's own limit) set it. Raises `ToolTimeoutError` if nothing is left."""
        if self.seconds is None:
            return call_limit, False
        remaining = self.seconds - self.spent
        if remaining <= 0:
            raise ToolTimeoutError(self._spent_message(name))
        if call_limit is None:  # runs on the caller's thread, where it cannot be cut short
            return None, False
        if remaining < call_limit:
            return remaining, True
        return call_limit, False

    def _spent_message(self, name: str) -> str:
        return (
            f"The tool {name!r} was not run: this step has already spent its tool time budget of "
            f"{self.seconds:g} seconds. Use the results you have, or continue in the next step."
        )

    @contextlib.contextmanager
    def _spending(self, name: str, by_budget: bool) -> Iterator[None]:
        """Charge the call's duration; a call cut by the budget (not its own limit) says so."""
        started = time.monotonic()
        try:
            yield
        except ToolTimeoutError:
            if by_budget:
                raise ToolTimeoutError(
                    self._spent_message(name).replace("was not run", "was stopped")
                ) from None
            raise
        finally:
            self.charge(time.monotonic() - started)

    def call(self, call: Callable[[], Any], call_limit: float | None, name: str) -> Any:
        """`call()` within both its own limit and what is left of the step's budget."""
        limit, by_budget = self.limit_for(call_limit, name)
        with self._spending(name, by_budget):
            return call_with_time_limit(call, limit, name)

    async def call_async(self, awaitable: Awaitable[Any], call_limit: float | None, name: str) -> Any:
        """An async tool's result within its own limit and what is left of the step's budget."""
        try:
            limit, by_budget = self.limit_for(call_limit, name)
        except ToolTimeoutError:
            if inspect.iscoroutine(awaitable):
                awaitable.close()  # never awaited: say nothing about it at exit
            raise
        with self._spending(name, by_budget):
            return await await_with_time_limit(awaitable, limit, name)
