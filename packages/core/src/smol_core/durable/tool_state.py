"""Tools' own state in a checkpoint: what a tool holds between calls that a resumed run needs back.

Why: most tools hold nothing between calls, and the ledger (`smol_core.durable.tool_ledger`) is enough for
them. A few hold a position in something outside the run. A team member's `ReceiveMessagesTool`
holds which messages it has handed to the agent and not yet acknowledged, and which it has handed
over at all. Without that in the checkpoint, a resumed agent would take again what a transport
redelivers, and lose the acknowledgements it owed.

A tool takes part by having two methods (`StatefulTool`): `durable_state()` returns plain data
(what the worker protocol's codec carries: None, bools, numbers, text, lists, dicts), saved with
every checkpoint under the tool's name; `restore_durable_state(state)` takes it back when the run
resumes, before its first step. The state comes back through the checkpoint's budgeted decoder, but
a checkpoint is a file anyone with the store could have written: each tool checks what it is given
and refuses, with `ValueError`, what it did not write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeGuard, runtime_checkable

from smol_core.durable.errors import CheckpointFormatError


@runtime_checkable
class StatefulTool(Protocol):
    """A tool whose state between calls goes into its run's checkpoints."""

    name: str

    def durable_state(self) -> Any:
        """The tool's state now, as plain data."""
        ...

    def restore_durable_state(self, state: Any) -> None:
        """Take back what `durable_state` returned (`ValueError` for anything else)."""
        ...


def _is_stateful(tool: Any) -> TypeGuard[StatefulTool]:
    """`isinstance(tool, StatefulTool)` by its attributes, without the protocol walk (asked at every save)."""
    return callable(getattr(tool, "durable_state", None)) and callable(
        getattr(tool, "restore_durable_state", None)
    )


def capture_tool_states(tools: Mapping[str, Any]) -> dict[str, Any]:
    """The state of every stateful tool among `tools` (name -> tool), by name."""
    return {name: tool.durable_state() for name, tool in tools.items() if _is_stateful(tool)}


def restore_tool_states(tools: Mapping[str, Any], states: Mapping[str, Any], run_id: str) -> None:
    """Give each stateful tool back its saved state. A saved state with no such tool now is left
    alone (the agent was built with other tools; it is not an error to drop a team's inbox). A state
    its tool refuses is the checkpoint's fault: a one-line `CheckpointFormatError`."""
    for name, state in states.items():
        tool = tools.get(name)
        if tool is None or not _is_stateful(tool):
            continue
        try:
            tool.restore_durable_state(state)
        except (ValueError, TypeError) as error:
            raise CheckpointFormatError(
                f"the checkpoint of run {run_id!r} holds a state for the tool {name!r} that it refuses "
                f"({str(error)[:200]}): the checkpoint is corrupt or not this agent's"
            ) from None
