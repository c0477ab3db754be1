"""A person's decision on a tool call a durable run paused for: `approve` or `deny`, from any process
that reaches the store (the run's own process has usually exited by then).

Why in the checkpoint: the run is not running while it waits, so there is no process to tell; the
decision is written where the run will read it when it is resumed (`agent.resume(run_id)`, `smol runs
resume`), under the run's lease, so it cannot race a process that resumed the run meanwhile.
"""

from __future__ import annotations

import contextlib
from typing import Any

import smol_core.durable.checkpoint as checkpoint_format
from smol_core.durable.errors import CheckpointError, RunNotFoundError
from smol_core.durable.runner import check_run_id, read_checkpoint
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.durable.store import CheckpointStore


def pending_approval(store: CheckpointStore, run_id: str) -> dict[str, Any] | None:
    """The call run `run_id` waits on a decision for (`tool`, `call`: how it was called), or None."""
    state = read_checkpoint(store, check_run_id(run_id))
    if state is None:
        raise RunNotFoundError(f"no run {run_id!r} in {store!r}: `smol runs list` shows the runs there")
    return next((dict(e) for e in state.tool_ledger if e.get("status") == "awaiting_approval"), None)


def approve(run_id: str, note: str | None = None, store: CheckpointStore | None = None) -> dict[str, Any]:
    """Let the call run `run_id` paused for be made when the run is resumed; returns the call."""
    return _decide(store, run_id, "approved", note)


def deny(run_id: str, note: str | None = None, store: CheckpointStore | None = None) -> dict[str, Any]:
    """Refuse the call run `run_id` paused for: when resumed, the model reads that it was denied and
    why (`note`), and the call is not made. Returns the call."""
    return _decide(store, run_id, "denied", note)


def _decide(store: CheckpointStore | None, run_id: str, decision: str, note: str | None) -> dict[str, Any]:
    if store is None:  # the default store: opened for this decision, and closed after it
        with contextlib.closing(SQLiteStore()) as default:
            return _decide(default, run_id, decision, note)
    check_run_id(run_id)
    lease = store.acquire(run_id)
    try:
        stored = store.load(run_id)
        if stored is None:
            raise RunNotFoundError(f"no run {run_id!r} in {store!r}: `smol runs list` shows the runs there")
        state = checkpoint_format.load(stored.data, f"the checkpoint of run {run_id!r}")
        waiting = [
            e for e in state.tool_ledger if e.get("status") == "awaiting_approval" and "approval" not in e
        ]
        if not waiting:
            raise CheckpointError(f"run {run_id!r} waits for no decision (its status: {state.status})")
        waiting[0]["approval"] = decision
        if note:
            waiting[0]["note"] = note[:2000]
        store.save(
            lease,
            stored.step,
            checkpoint_format.dump(state),
            status=state.status,
            agent=state.agent,
            task=state.task,
        )
        return dict(waiting[0])
    finally:
        store.release(lease)
