"""What the workflow and its activity send each other: plain data, no smol import.

Why a module of its own: Temporal re-imports a workflow's modules in its deterministic sandbox for
every run, so what the workflow touches must be light and free of side effects; smol's agent code
loads only where the activity runs. Checkpoints travel as base64 text (the checkpoint format's
bytes, `smol_core.durable.checkpoint`), so the data converter's JSON carries them unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

WORKFLOW_NAME = "smol.AgentRun"
STEP_ACTIVITY = "smol.run_one_step"
DECIDE_SIGNAL = "decide"
"""The signal a person's decision on a paused call arrives by (`approve_on_temporal`): recorded in
the run's history at once, whether or not a worker runs."""
CONFIRM_SIGNAL = "confirm_start"
"""The signal the client that started a run sends at once, naming the execution it started
(`start_on_temporal`): a run waits for it before its first step. Why: a run's (encrypted) input can
be copied from a finished run's history and started again under the same workflow id by anyone who
reaches the server, without the key; the copy names no execution, and the copied confirmation names
the old one, so the copy runs nothing."""
CONFIRM_WAIT_S = 300.0
"""How long a run waits for its start to be confirmed before it ends (`BadRunInputError`)."""
START_CHECK = "smol-start-confirmed"
"""The workflow's patch id for the wait on the confirmation (runs started before it never wait)."""
MAX_NOTE_CHARS = 2000
"""The longest note a decision carries (`approve_on_temporal` cuts it; the workflow refuses more)."""
PENDING_MEMO = "smol_pending"
"""The memo field that holds the call a paused run waits on (read with no worker running)."""
PAUSE_FIELD = "pause"
"""In the memo's call: the pause's id, which a decision must carry to be taken."""
AWAITING_APPROVAL = "awaiting_approval"
NON_RETRYABLE = (
    "UnknownAgentError",
    "AgentFactoryError",
    "BadRunInputError",
    "CheckpointTooLargeError",
    "BudgetExceededError",
    "CheckpointError",
)
"""Errors a retry on another worker cannot fix: the workflow fails at once, with the error's line."""
REFUSED = "smol_refused_payload"
"""What a payload the codec cannot open decodes to: `{REFUSED: why}` (codec.py), never its data."""
MAX_TASK_CHARS = 1_000_000
MAX_RUN_ID_CHARS = 200


@dataclass(frozen=True)
class RunRequest:
    """A run as the workflow starts (or, after `continue_as_new`, goes on with) it."""

    run_id: str
    """The workflow's id."""
    task: str
    agent: str
    """The name a worker serves the agent under (`create_worker(..., agents={name: factory})`)."""
    checkpoint: str | None = None
    """The last step's checkpoint (base64), carried across continue-as-new; None at the start."""
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
    pause: str | None = None
    """The id of the pause it decides (`PAUSE_FIELD` of the memo): a decision sent for an earlier
    pause (a signal copied from the history and sent again) decides nothing."""
    key: str | None = None
    """The approval key of the call the person was shown (the memo's `approval_key`): the decision
    applies to that call only, and to no other call that waits by the time it arrives."""


@dataclass(frozen=True)
class StepRequest:
    run_id: str
    task: str
    agent: str
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


class BadRunInput(ValueError):
    """A workflow input that is not a run's: the run ends at once, with this line."""


class PayloadRefusedError(RuntimeError):
    """A run's input this worker's key does not open: the workflow's task fails (and is retried,
    so a worker with the right key can take it), and nothing of the input is read."""


def refused(value: Any) -> str | None:
    """Why the codec refused `value`'s payload, or None if it opened it."""
    if isinstance(value, dict) and isinstance(value.get(REFUSED), str):
        return str(value[REFUSED])
    return None


_LIMITS: dict[str, tuple[bool, float, float]] = {
    # name: (a whole number only, lowest, highest)
    "max_steps": (True, 1, 100_000),
    "heartbeat_timeout_s": (False, 0.1, 86_400),
    "step_timeout_s": (False, 1, 7 * 86_400),
    "steps_per_history": (True, 1, 10_000),
}


def parse_run_request(data: Any, workflow_id: str, continued: bool) -> RunRequest:
    """The run `data` describes, checked field by field: anyone who reaches the task queue can
    start a workflow with any input. Only a run continued as new carries a checkpoint (a client
    cannot hand a worker one)."""
    why = refused(data)
    if why is not None:
        raise PayloadRefusedError(f"the run's input was refused: {why}")
    if not isinstance(data, dict):
        raise BadRunInput(f"a run's input is an object, not a {type(data).__name__}")
    known = {"run_id", "task", "agent", "checkpoint", "decision", *_LIMITS}
    unknown = sorted(str(key)[:40] for key in set(data) - known)
    if unknown:
        raise BadRunInput(
            f"a run's input has unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    run_id, task, agent = data.get("run_id"), data.get("task"), data.get("agent")
    if run_id != workflow_id:
        raise BadRunInput(
            f"run_id {str(run_id)[:MAX_RUN_ID_CHARS]!r} is not the workflow's id {workflow_id!r}"
        )
    if not isinstance(task, str) or not task or len(task) > MAX_TASK_CHARS:
        raise BadRunInput(f"task: text of 1 to {MAX_TASK_CHARS:,} characters, not {_shown(task)}")
    if not isinstance(agent, str) or not agent:
        raise BadRunInput(f"agent: the name of an agent the workers serve, not {_shown(agent)}")
    checkpoint = data.get("checkpoint")
    if checkpoint is not None and (not continued or not isinstance(checkpoint, str)):
        raise BadRunInput("checkpoint: a run starts with none (only a run continued as new carries one)")
    limits = {name: _limit(name, data[name]) for name in _LIMITS if data.get(name) is not None}
    decision = _decision(data.get("decision"))
    return RunRequest(run_id, task, agent, checkpoint, decision=decision, **limits)


def _limit(name: str, value: Any) -> Any:
    whole, low, high = _LIMITS[name]
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (whole and not isinstance(value, int))
        or not low <= value <= high
    ):
        raise BadRunInput(f"{name}: a number from {low:g} to {high:g}, not {_shown(value)}")
    return value


def confirmed_execution(value: Any) -> str | None:
    """The execution a `confirm_start` signal names, or None if it is not one (or was refused)."""
    execution = value.get("execution") if isinstance(value, dict) else None
    return execution if isinstance(execution, str) and 0 < len(execution) <= 64 else None


def parse_decision(value: Any) -> Decision:
    """The decision a `decide` signal carries; `BadRunInput` if it is not one (or was refused)."""
    decision = _decision(value)
    if decision is None:
        raise BadRunInput("decision: none given")
    return decision


def _decision(value: Any) -> Decision | None:
    if value is None:
        return None
    if isinstance(value, Decision):
        value = {"approval": value.approval, "note": value.note, "pause": value.pause, "key": value.key}
    note = value.get("note") if isinstance(value, dict) else None
    pause = value.get("pause") if isinstance(value, dict) else None
    key = value.get("key") if isinstance(value, dict) else None
    if (
        not isinstance(value, dict)
        or value.get("approval") not in ("approved", "denied")
        or not (note is None or (isinstance(note, str) and len(note) <= MAX_NOTE_CHARS))
        or not (pause is None or (isinstance(pause, str) and len(pause) <= 64))
        or not (key is None or (isinstance(key, str) and _APPROVAL_KEY.fullmatch(key) is not None))
    ):
        raise BadRunInput(
            "decision: {'approval': 'approved' or 'denied', 'note': text, 'pause': id, 'key': hex}, "
            f"not {_shown(value)}"
        )
    return Decision(value["approval"], note, pause, key)


_APPROVAL_KEY = re.compile(r"[0-9a-f]{1,64}")


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {str(value)[:40]!r}"
