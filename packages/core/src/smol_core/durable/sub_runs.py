"""How a team member's durable sub-run is named after the call that started it, and how a list of
runs is read back into managers and their sub-runs.

Why a name, not a field: a member's sub-run is found again by the call that started it (the same name
in every attempt at the call, from its idempotency key), so a manager resumed after a crash goes on in
the member's run where it was. Whatever handles runs as a whole (`smol runs prune`) must keep a
manager's sub-runs with it: a sub-run deleted alone is a member started again from its first step, its
side effects made twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_MAX_RUN_ID = 128
_SUB_RUN = re.compile(r"^(?P<parent>.+)\.(?P<member>[^.]+)\.(?P<call>[0-9a-f]{12})$")


def sub_run_id(run_id: str, member: str, call_key: str) -> str:
    """The sub-run of `member` called by run `run_id` in the call of key `call_key`; a manager's id
    too long to hold it is shortened to a digest of itself."""
    sub_run = f"{run_id}.{member}.{call_key[:12]}"
    if len(sub_run) > _MAX_RUN_ID:
        sub_run = f"{_digest(run_id)}.{member[:60]}.{call_key[:12]}"
    return sub_run


def _digest(run_id: str) -> str:
    return hashlib.sha256(run_id.encode()).hexdigest()[:40]


def managers(run_ids: Iterable[str]) -> dict[str, str]:
    """For each run of `run_ids` that is the sub-run of another run of `run_ids`, that run (its
    manager, one level up)."""
    ids = set(run_ids)
    digests = {_digest(run_id): run_id for run_id in ids}
    found: dict[str, str] = {}
    for run_id in ids:
        match = _SUB_RUN.match(run_id)
        if match is None:
            continue
        parent = match.group("parent")
        manager = parent if parent in ids else digests.get(parent)
        if manager is not None and manager != run_id:
            found[run_id] = manager
    return found


def top_runs(run_ids: Iterable[str]) -> dict[str, str]:
    """For each run of `run_ids`, the run at the top of its team (itself for a run no other
    manages): a sub-run of a sub-run belongs to the first manager's run."""
    ids = list(run_ids)
    up = managers(ids)
    tops: dict[str, str] = {}
    for run_id in ids:
        top, seen = run_id, {run_id}
        while top in up and up[top] not in seen:
            top = up[top]
            seen.add(top)
        tops[run_id] = top
    return tops
