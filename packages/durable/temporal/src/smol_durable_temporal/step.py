"""The activity: one step of a smol run, resumed from its checkpoint on whichever worker polls.

Each attempt builds a fresh agent from the factory the worker registered under the run's agent
name (agents.py), gives it a `StepStore` holding the checkpoint to start from, and drives the
ordinary durable loop (`agent.run(task, run_id=...)` for the first step, `agent.resume(run_id)`
after): the loop saves the step's boundary, where the store keeps the checkpoint and stops the run
(`StepDone`), and the activity returns the checkpoint. So a step on Temporal is exactly a step of
`agent.resume`: the same memory, sandbox variables, planning and tool ledger (smol_core.durable).

Heartbeats: every save in the middle of a step (a model reply, a tool call starting or ending) is
recorded as the activity's heartbeat details before the step goes on (heartbeats.py), and a retry
resumes from the newest details rather than the step's start: a worker killed mid-step costs at
most the model call in flight, and a tool call recorded as started is reported to the code as
interrupted, not made again, unless its tool is idempotent. A thread repeats the newest details
every third of the heartbeat timeout, so a long model call or tool does not pass for a dead worker.

A checkpoint over Temporal's payload limit travels by reference when the worker's data converter
stores big payloads in a blob folder (blobs.py); on a worker without one, it ends the run at once
(`CheckpointTooLargeError`) instead of being refused by the server and retried forever.
"""

from __future__ import annotations

import base64
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from smol_core.plugin_api import (
    ApprovalKeyError,
    ApprovalPendingError,
    BudgetExceededError,
    CheckpointError,
    SmolError,
    StoredCheckpoint,
    approve,
    deny,
    load_checkpoint,
    pending_approval,
    short_call,
)
from smol_durable_temporal.agents import AgentFactoryError, AgentRegistry, UnknownAgentError
from smol_durable_temporal.heartbeats import Heartbeat
from smol_durable_temporal.messages import AWAITING_APPROVAL, STEP_ACTIVITY, Decision, StepRequest, StepResult
from smol_durable_temporal.step_store import StepDone, StepStore

PAYLOAD_LIMIT = 2 * 1024 * 1024
"""Temporal's default limit on one payload (`limit.blobSize.error`): a bigger step result is refused
by the server, and the step retried forever."""


class CheckpointTooLargeError(SmolError):
    """A checkpoint over Temporal's payload limit, on a worker with no blob folder (one line)."""


class MemberApprovalError(SmolError):
    """A team member's call waits for a person's approval: its sub-run lives only in its manager's
    step on Temporal, so the run cannot wait for the decision (one line)."""


def encode_checkpoint(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_checkpoint(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


def stored(run_id: str, text: str) -> StoredCheckpoint:
    """A checkpoint the workflow carries, as a store holds it (its step and status read from it)."""
    data = decode_checkpoint(text)
    state = load_checkpoint(data, f"the checkpoint of run {run_id!r}")
    return StoredCheckpoint(run_id, state.step_number - 1, state.status, data)


UNFIXABLE = (
    MemberApprovalError,
    UnknownAgentError,
    AgentFactoryError,
    CheckpointTooLargeError,
    BudgetExceededError,
    CheckpointError,
)
"""What a retry on another worker cannot fix: the workflow fails at once, with the error's own line."""


class StepActivity:
    """The step activity of one worker: the agents it serves, and whether its payloads over
    Temporal's limit go to a blob folder (`offloads`)."""

    def __init__(self, agents: AgentRegistry, *, offloads: bool) -> None:
        self.agents = agents
        self.offloads = offloads

    @activity.defn(name=STEP_ACTIVITY)
    def run_one_step(self, request: StepRequest) -> StepResult:
        """Run the step after `request.checkpoint` (or the newest heartbeat's); return its checkpoint."""
        try:
            return self._run_one_step(request)
        except UNFIXABLE as error:
            line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ApplicationError(line, type=type(error).__name__, non_retryable=True) from None

    def _carried(self, data: bytes) -> str:
        """The checkpoint as the workflow carries it; one line if no payload can carry it."""
        text = encode_checkpoint(data)
        if not self.offloads and len(text) > PAYLOAD_LIMIT - 64 * 1024:
            raise CheckpointTooLargeError(
                f"the run's checkpoint is {len(text) / 2**20:.1f} MiB (base64), over Temporal's payload "
                "limit (2 MiB): give the workers and the client a shared blob folder "
                "(smol-temporal-worker --blob-folder DIR, or SMOL_TEMPORAL_BLOBS=DIR for both)"
            )
        return text

    def _run_one_step(self, request: StepRequest) -> StepResult:
        details = activity.info().heartbeat_details
        resume_from = details[0] if details and isinstance(details[0], str) else request.checkpoint
        seed = stored(request.run_id, resume_from) if resume_from is not None else None
        if seed is not None and seed.status == "finished":
            # an attempt killed after the run's end was saved, before it returned: the end stands
            return StepResult(resume_from, seed.step, seed.status)  # type: ignore[arg-type]
        heartbeat = Heartbeat(resume_from)
        # beating from the start: building the agent (its sandbox) is part of the step's time, and
        # an attempt the server took for dead would be retried while it goes on
        with heartbeat.repeating(activity.info().heartbeat_timeout):
            agent = self.agents.build(request.agent)
            return self._step(request, agent, seed, heartbeat)

    def _step(
        self, request: StepRequest, agent: Any, seed: StoredCheckpoint | None, heartbeat: Heartbeat
    ) -> StepResult:
        def on_save(saved: StoredCheckpoint) -> None:
            text = encode_checkpoint(saved.data)
            if self.offloads or len(text) <= PAYLOAD_LIMIT - 64 * 1024:
                heartbeat.send(text)  # else the step's end says why no payload can carry it

        store = StepStore(request.run_id, seed, on_save)
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
        except ApprovalPendingError as paused:
            # saved with the call waiting: the workflow holds the run until a person decides
            pending = pending_approval(store, request.run_id)
            if pending is None:  # the call that waits is a team member's, in its sub-run
                raise MemberApprovalError(
                    f"run {request.run_id!r}: a team member's call waits for a person's approval, which a run on "
                    "Temporal cannot wait for yet (the member's run lives within its manager's step): ask "
                    "for approval of the call to the member itself, or run the team in one process "
                    f"({' '.join(str(paused).split())[:300]})"
                ) from None
        finally:
            agent.cleanup()
        latest = store.latest
        assert latest is not None  # a run saves before its first step
        if pending is not None:
            shown = _memo_of(pending)
            return StepResult(self._carried(latest.data), latest.step, AWAITING_APPROVAL, shown)
        return StepResult(self._carried(latest.data), latest.step, latest.status)


MEMO_CALL_CHARS = 16_000
"""The longest call the memo shows whole; a longer one is shown with each argument shortened (and
says so), its approval key naming it all the same."""


def _memo_of(pending: dict[str, Any]) -> dict[str, Any]:
    """What the run's memo says of the call it waits on: the tool, the call as a person reads it,
    and its approval key (what `approve_on_temporal` / `deny_on_temporal` take)."""
    call = str(pending.get("call", ""))
    if len(call) > MEMO_CALL_CHARS:
        call, _ = short_call(str(pending.get("tool", "a tool")), pending.get("arguments"))
        call += " (shortened: its arguments are whole in the run's checkpoint)"
    return {"tool": pending.get("tool"), "call": call, "approval_key": pending.get("approval_key")}


def _apply(decision: Decision, store: StepStore, run_id: str) -> None:
    """Write `decision` into the checkpoint's waiting call, as `smol runs approve|deny` writes it into
    a store's; once: a retried attempt resumes from a checkpoint that has it already. A decision on
    another call than the one waiting (its key differs) decides nothing: the run waits on."""
    waiting = pending_approval(store, run_id) if store.latest is not None else None
    if waiting is None or "approval" in waiting or decision.key is None:
        return
    decide = approve if decision.approval == "approved" else deny
    try:
        decide(run_id, decision.key, decision.note, store=store)
    except ApprovalKeyError:
        return
