"""Tool calls that wait for a person's approval, on the chat page.

Why the page runs such agents durably: a call that needs approval (a tool with
`requires_approval = True`, or the agent's `approval_policy`) pauses the run before it is made, and
only a durable run can pause (its checkpoint holds everything while nobody decides). So when the
agent has such a tool or policy, each task the page runs gets a `run_id` in the agent's checkpoint
store (the default SQLite store when it has none). When the run pauses, the chat shows the call
waiting and the page its Approve and Deny buttons; the decision is written to the checkpoint, as
`smol runs approve|deny` writes it, and the run is resumed in the same chat. The same paused run can
also be decided from a terminal (`smol runs approve ID`): the page then resumes what it finds.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import Any

from smol_core.plugin_api import CheckpointError, SQLiteStore, approve, deny, pending_approval


def needs_approvals(agent: Any) -> bool:
    """Whether a run of `agent` may pause for a person (and so must be durable)."""
    tools = getattr(agent, "tools", {}) or {}
    return getattr(agent, "approval_policy", None) is not None or any(
        getattr(tool, "requires_approval", False) for tool in tools.values()
    )


def new_run_id() -> str:
    return f"ui-{secrets.token_hex(8)}"


@dataclass
class PendingCall:
    """A paused run of the page and the call it waits on."""

    run_id: str
    call: str

    def describe(self) -> str:
        return f"The agent wants to call `{self.call}`. Approve it, or deny it (the model reads your note)."


def pending_call(agent: Any, run_id: str) -> PendingCall | None:
    """The call run `run_id` waits on, from the agent's store; None when it waits on nothing."""
    own = getattr(agent, "checkpoint_store", None)
    if own is not None:
        waiting = pending_approval(own, run_id)
    else:  # the default store, opened for this question and closed after it
        with contextlib.closing(SQLiteStore()) as default:
            waiting = pending_approval(default, run_id)
    if waiting is None:
        return None
    return PendingCall(run_id, str(waiting.get("call") or waiting.get("tool") or "a tool")[:500])


def decide(agent: Any, pending: PendingCall, approved: bool, note: str | None) -> None:
    """Write the person's decision where the run reads it when it is resumed. A run decided
    meanwhile elsewhere (`smol runs approve`) is left as it is: resuming it applies that decision."""
    try:
        store = getattr(agent, "checkpoint_store", None)  # None: the default store
        (approve if approved else deny)(pending.run_id, note or None, store=store)
    except CheckpointError as error:
        if "waits for no decision" not in str(error):
            raise
