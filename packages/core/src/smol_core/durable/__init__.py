"""Durable runs: a run checkpointed after every step, resumed after its process died.

`agent.run(task, run_id="...")` saves the run after each step in a `CheckpointStore` (the agent's
`checkpoint_store`, by default `SQLiteStore`: one file under the user's data folder);
`agent.resume(run_id)` continues it, in this process or another. See docs/durable.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports

# imported on first use: registering the feature's plugin (its package) imports none of it
_EXPORTS = {
    "ApprovalKeyError": "smol_core.durable.errors",
    "ApprovalPendingError": "smol_core.durable.errors",
    "Checkpoint": "smol_core.durable.checkpoint",
    "CheckpointError": "smol_core.durable.errors",
    "CheckpointFormatError": "smol_core.durable.errors",
    "CheckpointStore": "smol_core.durable.store",
    "FORMAT_VERSION": "smol_core.durable.checkpoint",
    "Lease": "smol_core.durable.store",
    "RunFinishedError": "smol_core.durable.errors",
    "RunLockedError": "smol_core.durable.errors",
    "RunNotFoundError": "smol_core.durable.errors",
    "RunRecord": "smol_core.durable.store",
    "SQLiteStore": "smol_core.durable.sqlite_store",
    "StoreUnavailableError": "smol_core.durable.errors",
    "StoredCheckpoint": "smol_core.durable.store",
    "ToolCallDeniedError": "smol_core.durable.errors",
    "approve": "smol_core.durable.approvals",
    "default_store_path": "smol_core.durable.sqlite_store",
    "deny": "smol_core.durable.approvals",
    "idempotency_key": "smol_core.durable.tool_ledger",
    "pending_approval": "smol_core.durable.approvals",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_core.durable.approvals import (
        approve as approve,
        deny as deny,
        pending_approval as pending_approval,
    )
    from smol_core.durable.checkpoint import FORMAT_VERSION as FORMAT_VERSION, Checkpoint as Checkpoint
    from smol_core.durable.errors import (
        ApprovalKeyError as ApprovalKeyError,
        ApprovalPendingError as ApprovalPendingError,
        CheckpointError as CheckpointError,
        CheckpointFormatError as CheckpointFormatError,
        RunFinishedError as RunFinishedError,
        RunLockedError as RunLockedError,
        RunNotFoundError as RunNotFoundError,
        StoreUnavailableError as StoreUnavailableError,
        ToolCallDeniedError as ToolCallDeniedError,
    )
    from smol_core.durable.sqlite_store import (
        SQLiteStore as SQLiteStore,
        default_store_path as default_store_path,
    )
    from smol_core.durable.store import (
        CheckpointStore as CheckpointStore,
        Lease as Lease,
        RunRecord as RunRecord,
        StoredCheckpoint as StoredCheckpoint,
    )
    from smol_core.durable.tool_ledger import idempotency_key as idempotency_key
