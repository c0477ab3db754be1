"""What a checkpoint store is: the small interface every store plugin implements.

Why so small: stores will be plugins (SQLite embedded here; an engine users already run for many
machines later), and each method is one operation any database offers. The store keeps bytes; what
they mean (`durable/checkpoint.py`) is the same whatever the store, so a checkpoint moves between
stores unchanged.

Leases: a run is driven by one process at a time. `acquire` gives a `Lease` or raises
`RunLockedError` when another live process holds one; `save` writes only under the lease it is
given, so a process that lost its lease (another took the run over after it was presumed dead) can
never overwrite the newer process's checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Lease:
    """The right to drive one run: who holds it (`owner`: host and process id, plus a random token)."""

    run_id: str
    owner: str


@dataclass(frozen=True)
class RunRecord:
    """One run as `list` shows it: its last step, status and checkpoint size."""

    run_id: str
    step: int
    status: str
    """"running" (resumable) or "finished"."""
    updated_at: float
    size: int
    agent: str = ""
    task: str = ""


@dataclass(frozen=True)
class StoredCheckpoint:
    """The latest checkpoint of a run, as bytes (`smol_core.durable.checkpoint` reads them)."""

    run_id: str
    step: int
    status: str
    data: bytes


@runtime_checkable
class CheckpointStore(Protocol):
    """Where checkpoints live. Every failure to reach the store is a `StoreUnavailableError`."""

    def acquire(self, run_id: str) -> Lease:
        """Take the run for this process; `RunLockedError` if another live process holds it."""
        ...

    def release(self, lease: Lease) -> None:
        """Give the run back (idempotent; a lease already taken over is left alone)."""
        ...

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
        """Make `data` the run's latest checkpoint, atomically; `RunLockedError` if `lease` was lost."""
        ...

    def load(self, run_id: str) -> StoredCheckpoint | None:
        """The run's latest checkpoint, or None if the store has no run of this id."""
        ...

    def list(self) -> list[RunRecord]:
        """Every run in the store, newest first."""
        ...

    def delete(self, run_id: str) -> bool:
        """Forget the run (its checkpoint and lease); False if there was none."""
        ...
