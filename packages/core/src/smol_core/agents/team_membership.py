"""What the agent loop needs from a team, declared here so that the loop never imports `teams/`.

Why: teams stand above agents (a team starts agent processes and gives them message tools); an
agent only has to know that some of its tools carry a team's messages. An agent started without a
task (`run(task=None)`) waits on a `TaskInbox` for one, and its run continues the trace of the
message that brought it; a run's full result lists what its `MessageTool`s sent and received. The
teams' `SendMessageTool` and `ReceiveMessagesTool` satisfy these protocols by their shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeGuard, runtime_checkable


class MessageRecords(Protocol):
    """Where a message tool writes each message it sent or received, in order."""

    records: list[dict[str, Any]]


@runtime_checkable
class MessageTool(Protocol):
    """A tool that sends or receives a team's messages; several may share one `log`."""

    log: MessageRecords


@runtime_checkable
class TaskInbox(MessageTool, Protocol):
    """A tool an agent of a team waits on for its task."""

    trace_context: dict[str, str]
    """The W3C trace context of the messages that became the task (empty when none carried one)."""

    def wait_for_task(
        self, poll_seconds: float = 0.5, should_stop: Callable[[], bool] | None = None
    ) -> str: ...


def message_tools(tools: Iterable[Any]) -> list[MessageTool]:
    """The tools among `tools` that carry a team's messages.

    Checked by their attributes, as `isinstance(tool, MessageTool)` would, without the protocol
    machinery: a runtime protocol check walks the protocol's attributes on every call (about 1 ms of
    each team agent's start, for a handful of tools asked twice)."""
    return [tool for tool in tools if isinstance(getattr(getattr(tool, "log", None), "records", None), list)]


def _is_task_inbox(tool: Any) -> TypeGuard[TaskInbox]:
    """`isinstance(tool, TaskInbox)`, by its attributes (see `message_tools`)."""
    return hasattr(tool, "trace_context") and callable(getattr(tool, "wait_for_task", None))


def task_from_inbox(tools: Iterable[Any], should_stop: Callable[[], bool]) -> tuple[str, dict[str, str]]:
    """The task that arrives at the first `TaskInbox` among `tools`, and the trace it continues."""
    inboxes = [tool for tool in message_tools(tools) if _is_task_inbox(tool)]
    if not inboxes:
        raise ValueError(
            "run(task=None) waits for a task from other agents, which needs a ReceiveMessagesTool "
            "among this agent's tools: give it one, or give run() a task"
        )
    task = inboxes[0].wait_for_task(should_stop=should_stop)
    return task, dict(inboxes[0].trace_context)


def team_messages(tools: Iterable[Any]) -> list[dict[str, Any]]:
    """Every message the message tools among `tools` sent or received, once each (they may share a log)."""
    seen: set[int] = set()
    records: list[dict[str, Any]] = []
    for tool in message_tools(tools):
        if id(tool.log) not in seen:
            seen.add(id(tool.log))
            records.extend(tool.log.records)
    return sorted(records, key=lambda record: record["timestamp"])
