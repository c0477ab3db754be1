"""A person's decision on a tool call a durable run paused for: `approve` or `deny`, from any process
that reaches the store (the run's own process has usually exited by then).

Why in the checkpoint: the run is not running while it waits, so there is no process to tell; the
decision is written where the run will read it when it is resumed (`agent.resume(run_id)`, `smol runs
resume`), under the run's lease, so it cannot race a process that resumed the run meanwhile.

Why a key: a decision names the call it is about by the approval key every view shows beside the
whole call (`call_view.py`). A decision whose key is not the waiting call's is refused: between the
view and the decision another operator may have decided, or the run moved on to another call, and a
person's "yes" to one transfer must never let another one through. The key is required, in Python
too: code that decides on its own reads the key from `pending_approval` first, and so names the call
it decided on.
"""

from __future__ import annotations

import contextlib
from typing import Any

import smol_core.durable.checkpoint as checkpoint_format
from smol_core.durable.call_view import describe_call
from smol_core.durable.checkpoint import Checkpoint
from smol_core.durable.errors import ApprovalKeyError, CheckpointError, RunNotFoundError
from smol_core.durable.runner import check_run_id, read_checkpoint
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.durable.store import CheckpointStore
from smol_core.durable.sub_runs import managers


def pending_approval(store: CheckpointStore, run_id: str) -> dict[str, Any] | None:
    """The call run `run_id` waits on a decision for, or None: `tool`, `arguments` (all of them),
    `approval_key` (what `approve`/`deny` take), `call`, the whole call as a person reads it
    (escaped; `call_view.describe_call`), and `run_id`, the run whose call it is: a run paused
    because a team member it called waits for a person shows the member's call, in the member's
    sub-run, and `approve`/`deny` on either run decide it."""
    state = read_checkpoint(store, check_run_id(run_id))
    if state is None:
        raise RunNotFoundError(f"no run {run_id!r} in {store!r}: `smol runs list` shows the runs there")
    found = _waiting_call(store, run_id, state, decided_too=True)
    return None if found is None else _shown(found[1], found[0])


def _waiting_call(
    store: CheckpointStore, run_id: str, state: Checkpoint, decided_too: bool, depth: int = 0
) -> tuple[str, dict[str, Any]] | None:
    """The run whose call `run_id` waits for, and that call's entry: its own, or, where it waits on
    a team member, the call its member's sub-run (or theirs, a level down) waits for."""
    entry = next(
        (
            e
            for e in state.tool_ledger
            if e.get("status") == "awaiting_approval" and (decided_too or "approval" not in e)
        ),
        None,
    )
    if entry is not None:
        return run_id, entry
    if state.status != "awaiting_approval" or depth >= _MAX_TEAM_DEPTH:
        return None
    try:
        sub_runs = managers(record.run_id for record in store.list())
    except CheckpointError:
        return None  # another run's row the store cannot list: this run's own view still shows
    for sub_run in sorted(sub for sub, manager in sub_runs.items() if manager == run_id):
        try:
            sub_state = read_checkpoint(store, sub_run)
        except CheckpointError:
            continue
        found = (
            None if sub_state is None else _waiting_call(store, sub_run, sub_state, decided_too, depth + 1)
        )
        if found is not None:
            return found
    return None


_MAX_TEAM_DEPTH = 16
"""How far down a team a waiting call is looked for (a store's run ids could loop)."""


def _shown(entry: dict[str, Any], run_id: str) -> dict[str, Any]:
    shown = dict(entry)
    shown["call"] = describe_call(str(entry.get("tool", "a tool")), entry.get("arguments"))
    shown["run_id"] = run_id
    return shown


def approve(
    run_id: str, key: str, note: str | None = None, store: CheckpointStore | None = None
) -> dict[str, Any]:
    """Let the call run `run_id` paused for be made when the run is resumed, if `key` is its approval
    key (the one the person was shown); `ApprovalKeyError` otherwise. Returns the call, as
    `pending_approval` does."""
    return _decide(store, run_id, key, "approved", note)


def deny(
    run_id: str, key: str, note: str | None = None, store: CheckpointStore | None = None
) -> dict[str, Any]:
    """Refuse the call run `run_id` paused for, if `key` is its approval key: when resumed, the model
    reads that it was denied and why (`note`), and the call is not made. Returns the call."""
    return _decide(store, run_id, key, "denied", note)


def _decide(
    store: CheckpointStore | None, run_id: str, key: str, decision: str, note: str | None
) -> dict[str, Any]:
    if store is None:  # the default store: opened for this decision, and closed after it
        with contextlib.closing(SQLiteStore()) as default:
            return _decide(default, run_id, key, decision, note)
    check_run_id(run_id)
    target = _deciding_run(store, run_id)
    lease = store.acquire(target)  # a run being driven cannot be decided under it
    try:
        stored = store.load(target)
        if stored is None:
            raise RunNotFoundError(f"no run {target!r} in {store!r}: `smol runs list` shows the runs there")
        state = checkpoint_format.load(stored.data, f"the checkpoint of run {target!r}")
        found = _waiting_call(store, target, state, decided_too=False, depth=_MAX_TEAM_DEPTH)
        if found is None:
            raise CheckpointError(f"run {run_id!r} waits for no decision (its status: {state.status})")
        entry = found[1]
        if str(key).strip().lower() != entry.get("approval_key"):
            raise ApprovalKeyError(
                f"run {run_id!r} waits for another call than the one of key {str(key)[:40]!r}: the call "
                f"waiting changed, so nothing was decided; `smol runs show {run_id}` shows it again"
            )
        entry["approval"] = decision
        if note:
            entry["note"] = note[:2000]
        store.save(
            lease,
            stored.step,
            checkpoint_format.dump(state),
            status=state.status,
            agent=state.agent,
            task=state.task,
        )
        return _shown(entry, target)
    finally:
        store.release(lease)


def _deciding_run(store: CheckpointStore, run_id: str) -> str:
    """The run whose waiting call a decision on run `run_id` is about: itself, or the sub-run of
    the team member it waits on (decided under that run's own lease)."""
    state = read_checkpoint(store, run_id)
    if state is None:
        raise RunNotFoundError(f"no run {run_id!r} in {store!r}: `smol runs list` shows the runs there")
    found = _waiting_call(store, run_id, state, decided_too=False)
    return run_id if found is None else found[0]
