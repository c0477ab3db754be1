"""Tool calls that wait for a person's approval, on the chat page.

Why the page runs such agents durably: a call that needs approval (a tool with
`requires_approval = True`, or the agent's `approval_policy`) pauses the run before it is made, and
only a durable run can pause (its checkpoint holds everything while nobody decides). So when the
agent has such a tool or policy, each task the page runs gets a `run_id` in the agent's checkpoint
store (the default SQLite store when it has none). When the run pauses, the chat shows the call
waiting and the page its Approve and Deny buttons; the decision is written to the checkpoint, as
`smol runs approve|deny` writes it, and the run is resumed in the same chat. The same paused run can
also be decided from a terminal (`smol runs approve ID KEY`): the page then resumes what it finds.

What the person approves is what runs: the panel shows the whole call (escaped, in a box that
scrolls) and its approval key; the chat shows it with each argument shortened, and says so. The
buttons send the key the panel showed, and a decision whose key is not the waiting call's is refused
(the call waiting changed: the page shows the new one), as `smol runs approve` refuses it.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from typing import Any

from smol_core.plugin_api import CheckpointError, SQLiteStore, approve, deny, pending_approval, short_call
from smol_ui_gradio.rendering import format_code


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
    """A paused run of the page, the call it waits on (`call`: whole and escaped; `short`: each
    argument cut, for the chat) and the key a decision names it by."""

    run_id: str
    key: str
    call: str
    short: str
    shortened: bool = False

    def describe(self) -> str:
        """What the chat says: the call (shortened, and then said so) and where to see it whole."""
        where = (
            "It is shortened here: the panel below shows the whole call."
            if self.shortened
            else "The panel below shows it with its key."
        )
        return (
            f"The agent wants to make this call (key `{self.key}`):\n\n{format_code(self.short)}\n\n"
            f"{where} Approve it, or deny it (the model reads your note)."
        )


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
    tool = str(waiting.get("tool") or "a tool")
    short, cut = short_call(tool, waiting.get("arguments"))
    return PendingCall(run_id, str(waiting.get("approval_key", "")), str(waiting["call"]), short, cut)


def decide(agent: Any, pending: PendingCall, approved: bool, note: str | None) -> None:
    """Write the person's decision on `pending` (by its key) where the run reads it when resumed.
    A run decided meanwhile elsewhere (`smol runs approve`) is left as it is: resuming it applies
    that decision. A run that waits for another call now raises `ApprovalKeyError`."""
    try:
        store = getattr(agent, "checkpoint_store", None)  # None: the default store
        (approve if approved else deny)(pending.run_id, pending.key, note or None, store=store)
    except CheckpointError as error:
        if "waits for no decision" not in str(error):
            raise
