"""The activity: one step of a smol run, resumed from its checkpoint on whichever worker polls.

Each attempt builds a fresh agent from the run's `AgentSpec`, gives it a `StepStore` holding the
checkpoint to start from, and drives the ordinary durable loop (`agent.run(task, run_id=...)` for
the first step, `agent.resume(run_id)` after): the loop saves the step's boundary, where the store
keeps the checkpoint and stops the run (`StepDone`), and the activity returns the checkpoint. So a step
on Temporal is exactly a step of `agent.resume`: the same memory, sandbox variables, planning and
tool ledger (smol_core.durable).

Heartbeats: every save in the middle of a step (a model reply, a tool call starting or ending) is
recorded as the activity's heartbeat details before the step goes on (heartbeats.py), and a retry
resumes from the newest details rather than the step's start: a worker killed mid-step costs at most the model call in flight, and a tool call
recorded as started is reported to the code as interrupted, not made again, unless its tool is
idempotent. A thread repeats the newest details every third of the heartbeat timeout, so a long
model call or tool does not pass for a dead worker.
"""

from __future__ import annotations

import base64
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from smol_core.plugin_api import (
    ApprovalPendingError,
    BudgetExceededError,
    CheckpointError,
    StoredCheckpoint,
    approve,
    deny,
    load_checkpoint,
    pending_approval,
)
from smol_durable_temporal.heartbeats import Heartbeat
from smol_durable_temporal.messages import AWAITING_APPROVAL, STEP_ACTIVITY, Decision, StepRequest, StepResult
from smol_durable_temporal.spec import AgentSpec, AgentSpecError
from smol_durable_temporal.step_store import StepDone, StepStore


def encode_checkpoint(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_checkpoint(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def stored(run_id: str, text: str) -> StoredCheckpoint:
    """A checkpoint the workflow carries, as a store holds it (its step and status read from it)."""
    data = decode_checkpoint(text)
    state = load_checkpoint(data, f"the checkpoint of run {run_id!r}")
    return StoredCheckpoint(run_id, state.step_number - 1, state.status, data)


@activity.defn(name=STEP_ACTIVITY)
def run_one_step(request: StepRequest) -> StepResult:
    """Run the step after `request.checkpoint` (or the newest heartbeat's) and return its checkpoint."""
    try:
        return _run_one_step(request)
    except (AgentSpecError, BudgetExceededError, CheckpointError) as error:
        # a retry cannot fix these: the workflow fails at once, with the error's own line
        raise ApplicationError(str(error), type=type(error).__name__, non_retryable=True) from None


def _run_one_step(request: StepRequest) -> StepResult:
    details = activity.info().heartbeat_details
    resume_from = details[0] if details and isinstance(details[0], str) else request.checkpoint
    seed = stored(request.run_id, resume_from) if resume_from is not None else None
    if seed is not None and seed.status == "finished":
        # an attempt killed after the run's end was saved, before it returned: the end stands
        return StepResult(resume_from, seed.step, seed.status)  # type: ignore[arg-type]
    heartbeat = Heartbeat(resume_from)
    # beating from the start: building the agent (its sandbox) is part of the step's time, and an
    # attempt the server took for dead would be retried while it goes on
    with heartbeat.repeating(activity.info().heartbeat_timeout):
        agent = AgentSpec.from_data(request.agent).build()
        store = StepStore(request.run_id, seed, lambda saved: heartbeat.send(encode_checkpoint(saved.data)))
        if request.decision is not None:
            _apply(request.decision, store, request.run_id)
        agent.checkpoint_store = store
        pending = None
        try:
            if seed is None:
                agent.run(request.task, run_id=request.run_id, max_steps=request.max_steps)
            else:
                agent.resume(request.run_id, max_steps=request.max_steps)
        except StepDone:
            pass  # the step is saved: the run stops before the next one
        except ApprovalPendingError:
            # saved with the call waiting: the workflow holds the run until a person decides
            pending = pending_approval(store, request.run_id)
        finally:
            agent.cleanup()
    latest = store.latest
    assert latest is not None  # a run saves before its first step
    if pending is not None:
        shown: dict[str, Any] = {key: pending[key] for key in ("tool", "call") if key in pending}
        return StepResult(encode_checkpoint(latest.data), latest.step, AWAITING_APPROVAL, shown)
    return StepResult(encode_checkpoint(latest.data), latest.step, latest.status)


def _apply(decision: Decision, store: StepStore, run_id: str) -> None:
    """Write `decision` into the checkpoint's waiting call, as `smol runs approve|deny` writes it into
    a store's; once: a retried attempt resumes from a checkpoint that has it already."""
    waiting = pending_approval(store, run_id) if store.latest is not None else None
    if waiting is None or "approval" in waiting:
        return
    decide = approve if decision.approval == "approved" else deny
    decide(run_id, decision.note, store=store)
