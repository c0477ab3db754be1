"""What the workflow and its activity send each other: plain data, no smol import.

Why a module of its own: Temporal re-imports a workflow's modules in its deterministic sandbox for
every run, so what the workflow touches must be light and free of side effects; smol's agent code
loads only where the activity runs. Checkpoints travel as base64 text (the checkpoint format's
bytes, `smol_core.durable.checkpoint`), so the data converter's JSON carries them unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WORKFLOW_NAME = "smol.AgentRun"
STEP_ACTIVITY = "smol.run_one_step"
DECIDE_SIGNAL = "decide"
"""The signal a person's decision on a paused call arrives by (`approve_on_temporal`): recorded in
the run's history at once, whether or not a worker runs."""
MAX_NOTE_CHARS = 2000
"""The longest note a decision carries (`approve_on_temporal` cuts it; the workflow refuses more)."""
PENDING_MEMO = "smol_pending"
"""The memo field that holds the call a paused run waits on (read with no worker running)."""
AWAITING_APPROVAL = "awaiting_approval"
NON_RETRYABLE = ("AgentSpecError", "BudgetExceededError", "CheckpointError")
"""Errors a retry on another worker cannot fix: the workflow fails at once, with the error's line."""


@dataclass(frozen=True)
class RunRequest:
    """A run as the workflow starts (or, after `continue_as_new`, goes on with) it."""

    run_id: str
    task: str
    agent: dict[str, Any]
    """`AgentSpec.to_data()`: how each step's worker builds the agent."""
    checkpoint: str | None = None
    """The last step's checkpoint (base64); None before the first step."""
    max_steps: int | None = None
    heartbeat_timeout_s: float = 30.0
    """A worker silent for this long is presumed dead: its step goes to another worker."""
    step_timeout_s: float = 3600.0
    """The longest one step (its model calls and code) may take on one worker."""
    steps_per_history: int = 200
    """Steps before the workflow continues as new, so its event history stays small."""
    decision: Decision | None = None
    """A decision on the call the run paused for, not applied yet (kept across continue-as-new)."""


@dataclass(frozen=True)
class Decision:
    """A person's decision on the call a run paused for."""

    approval: str
    """"approved" or "denied"."""
    note: str | None = None


@dataclass(frozen=True)
class StepRequest:
    run_id: str
    task: str
    agent: dict[str, Any]
    checkpoint: str | None
    max_steps: int | None = None
    decision: Decision | None = None
    """Applied to the checkpoint's waiting call before the step runs (once: a retry finds it applied)."""


@dataclass(frozen=True)
class StepResult:
    checkpoint: str
    """The run's checkpoint after the step (base64)."""
    step: int
    """The last step the checkpoint holds."""
    status: str
    """"running", "finished" or "awaiting_approval" (the run waits for a decision on `pending`)."""
    pending: dict[str, Any] | None = None
    """The call the run waits on a decision for: its `tool` and `call` (how it was called)."""


@dataclass
class Progress:
    """What a query on a running workflow answers: the last step saved, and the call it waits on."""

    step: int = 0
    status: str = "running"
    pending: dict[str, Any] | None = None
