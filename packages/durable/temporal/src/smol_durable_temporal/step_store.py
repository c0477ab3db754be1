"""`StepStore`: the checkpoint store one activity drives one step under, held in memory.

Why in memory: on Temporal, the workflow's history is where a run's checkpoints live (each step's
is the activity's result), so the agent needs no database of its own. The store starts from the
checkpoint the step resumes from, and it sees every save the run makes: a step's boundary (the step
counter moved on), which ends the activity's step (`StepDone`, raised from the save once the
checkpoint is kept), and the saves in the middle of a step (a model reply received, a tool call
starting or ending), which it hands to `on_save` to send as heartbeat details, so a retry on another worker resumes from them: no model call made twice, no tool call
whose start was recorded made again unless the tool is idempotent (smol_core.durable.tool_ledger).

The lease is the activity's: Temporal already runs one attempt of a step at a time.

A team member the run calls runs as a durable sub-run of its own (its id under the run's), saved
here too, apart from the run's: its saves are not the run's step boundary. Such a sub-run lives as
long as the manager's step attempt: a worker that dies in the middle of a member's work makes the
member's call again on the next attempt, from the member's start (docs/durable.md, On Temporal).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from smol_core.plugin_api import Lease, RunRecord, StoredCheckpoint


class StepDone(Exception):
    """Raised by `StepStore.save` at the step's boundary: the activity's step is over."""


class StepStore:
    def __init__(
        self,
        run_id: str,
        seed: StoredCheckpoint | None,
        on_save: Callable[[StoredCheckpoint], None],
    ) -> None:
        self.run_id = run_id
        self.latest = seed
        self.first_step = seed.step if seed is not None else 0
        self._on_save = on_save
        self.sub_runs: dict[str, StoredCheckpoint] = {}
        """The team members' sub-runs of this step, by run id."""

    def acquire(self, run_id: str) -> Lease:
        return Lease(run_id, "temporal-activity")

    def release(self, lease: Lease) -> None:
        return None

    def save(
        self,
        lease: Lease,
        step: int,
        data: bytes,
        *,
        status: str = "running",
        agent: str = "",
        task: str = "",
    ) -> None:
        if lease.run_id != self.run_id:
            self.sub_runs[lease.run_id] = StoredCheckpoint(lease.run_id, step, status, data)
            return
        self.latest = StoredCheckpoint(self.run_id, step, status, data)
        self._on_save(self.latest)
        if step > self.first_step and status != "finished":
            # one step per activity: the step is saved, and the run stops here, before the next
            # one (a finishing step goes on to the run's own end, which saves the final answer)
            raise StepDone(step)

    def load(self, run_id: str) -> StoredCheckpoint | None:
        return self.latest if run_id == self.run_id else self.sub_runs.get(run_id)

    def list(self) -> list[RunRecord]:
        latest = self.latest
        if latest is None:
            return []
        return [RunRecord(self.run_id, latest.step, latest.status, time.time(), len(latest.data))]

    def delete(self, run_id: str) -> bool:
        if run_id != self.run_id:
            return self.sub_runs.pop(run_id, None) is not None
        existed = self.latest is not None
        if existed:
            self.latest = None
        return existed

    def __repr__(self) -> str:
        return f"StepStore({self.run_id!r}, step {self.first_step})"
