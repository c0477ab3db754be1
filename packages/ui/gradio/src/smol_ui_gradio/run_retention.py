"""How long the chat page keeps the durable runs it starts: each session's last few, none past a day.

Why: a page whose agent can pause for approval runs every task durably (`approvals.py`), and a durable
run's checkpoint holds its whole memory and sandbox variables. Kept forever, six tasks of one visitor
took 78 MB of the store, and anyone who reaches the page can type tasks. So after each task the page
forgets its runs beyond the session's newest `keep_per_session`, and every run of the page (an id that
starts with `ui-`) last saved more than `max_age_seconds` ago, whichever session started it; when a
session ends, its runs go but for one waiting on a decision (`forget_ended_session_runs`). A run
being driven is never removed (`prune_runs` takes each run's lease first), nor one whose waiting call
an approval panel shows (a person may be deciding on it; once no panel shows it, the rules apply).
`RunRetention(None, None)` keeps every run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from smol_core.plugin_api import CheckpointError, RetentionPolicy, SQLiteStore, prune_runs

DEFAULT_KEEP_PER_SESSION = 5
DEFAULT_MAX_AGE_SECONDS = 86400.0
AWAITING_APPROVAL = "awaiting_approval"
PAGE_RUN_PREFIX = "ui-"
"""The page's run ids start with this (`approvals.new_run_id`): the age rule touches no other run."""


@dataclass(frozen=True)
class RunRetention:
    """What the page keeps of its runs: each session's newest `keep_per_session`, none older than
    `max_age_seconds`; None keeps all by that rule."""

    keep_per_session: int | None = DEFAULT_KEEP_PER_SESSION
    max_age_seconds: float | None = DEFAULT_MAX_AGE_SECONDS


@contextlib.contextmanager
def _store_of(agent: Any) -> Iterator[Any]:
    own = getattr(agent, "checkpoint_store", None)
    if own is not None:
        yield own
        return
    with contextlib.closing(SQLiteStore()) as default:  # the default store, opened for this and closed
        yield default


def prune_page_runs(
    agent: Any,
    session_runs: list[str],
    retention: RunRetention,
    shown: frozenset[str] | set[str] = frozenset(),
) -> None:
    """Forget what `retention` says of the runs of `agent`'s store that the page started, except the
    runs in `shown` (those whose waiting call an approval panel shows: a person may be deciding on it
    now); `session_runs` (the session's run ids, oldest first) loses those that went. A store that
    fails leaves everything as it was: pruning is never a reason for a task to fail."""
    with contextlib.suppress(CheckpointError), _store_of(agent) as store:
        if retention.keep_per_session is not None and len(session_runs) > retention.keep_per_session:
            mine = set(session_runs) - set(shown)
            prune_runs(
                store,
                RetentionPolicy(keep=retention.keep_per_session, select=lambda record: record.run_id in mine),
            )
        if retention.max_age_seconds is not None:
            prune_runs(
                store,
                RetentionPolicy(
                    older_than=retention.max_age_seconds,
                    select=lambda record: (
                        record.run_id.startswith(PAGE_RUN_PREFIX) and record.run_id not in shown
                    ),
                ),
            )
        kept = {record.run_id for record in store.list()}
        session_runs[:] = [run_id for run_id in session_runs if run_id in kept]


def forget_ended_session_runs(agent: Any, session_runs: list[str]) -> None:
    """Forget the runs of a session that ended (its tab closed or reloaded, or Reset): no page can
    resume them, and a visitor who reloads every few tasks would otherwise keep every run for a day.
    A run waiting on a decision stays (a terminal may decide it: `smol runs approve`), as does one
    still being driven (its lease); the age rule bounds them."""
    if not session_runs:
        return
    mine = set(session_runs)
    with contextlib.suppress(CheckpointError), _store_of(agent) as store:
        prune_runs(
            store,
            RetentionPolicy(
                keep=0, select=lambda record: record.run_id in mine and record.status != AWAITING_APPROVAL
            ),
        )
