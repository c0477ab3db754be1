"""Durable runs: a run checkpointed after every step, resumed after its process died.

`agent.run(task, run_id="...")` saves the run after each step in a `CheckpointStore` (the agent's
`checkpoint_store`, by default `SQLiteStore`: one file under the user's data folder);
`agent.resume(run_id)` continues it, in this process or another. See docs/durable.md.
"""

from smol_core.durable.approvals import approve, deny, pending_approval
from smol_core.durable.checkpoint import FORMAT_VERSION, Checkpoint
from smol_core.durable.errors import (
    ApprovalKeyError,
    ApprovalPendingError,
    CheckpointError,
    CheckpointFormatError,
    RunFinishedError,
    RunLockedError,
    RunNotFoundError,
    StoreUnavailableError,
    ToolCallDeniedError,
)
from smol_core.durable.sqlite_store import SQLiteStore, default_store_path
from smol_core.durable.store import CheckpointStore, Lease, RunRecord, StoredCheckpoint
from smol_core.durable.tool_ledger import idempotency_key

__all__ = [
    "FORMAT_VERSION",
    "ApprovalKeyError",
    "ApprovalPendingError",
    "Checkpoint",
    "CheckpointError",
    "CheckpointFormatError",
    "CheckpointStore",
    "Lease",
    "RunFinishedError",
    "RunLockedError",
    "RunNotFoundError",
    "RunRecord",
    "SQLiteStore",
    "StoreUnavailableError",
    "StoredCheckpoint",
    "ToolCallDeniedError",
    "approve",
    "default_store_path",
    "deny",
    "idempotency_key",
    "pending_approval",
]
