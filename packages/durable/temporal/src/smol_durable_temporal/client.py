"""Starting a run on Temporal and reading its end: `run_on_temporal`, `start_on_temporal`, `run_result`.

The caller needs a Temporal client (`connect`: the workers' payload key and blob folder) and the
name of an agent the workers serve; the agent runs on the workers (`smol-temporal-worker --agent
NAME=module:function`). The run's input is data only: the task, the name, the run id and limits. The workflow id is the run's id (a Temporal workflow id is unique among
running workflows, as a `run_id` is in a store). A run's end comes back as its last checkpoint,
read here: the answer, and the memory and sandbox variables for whoever wants more
(`run_result`). A failed run is one `TemporalRunError` line: the step's own error when a worker
raised one that no retry could fix (an agent no worker serves, a budget reached, a checkpoint the
format refuses), or the workflow's own when its input is not a run's.
"""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from smol_core.plugin_api import ApprovalKeyError, Checkpoint, SmolError, check_run_id, load_checkpoint
from smol_durable_temporal.agents import check_agent_name
from smol_durable_temporal.messages import (
    CONFIRM_SIGNAL,
    DECIDE_SIGNAL,
    MAX_NOTE_CHARS,
    PAUSE_FIELD,
    PENDING_MEMO,
    WORKFLOW_NAME,
    Decision,
    RunRequest,
    refused,
)
from smol_durable_temporal.step import decode_checkpoint


class TemporalRunError(SmolError):
    """A run on Temporal that failed: the cause, in one line."""


async def start_on_temporal(
    agent: str,
    task: str,
    *,
    client: Client,
    task_queue: str,
    workflow_id: str,
    max_steps: int | None = None,
    heartbeat_timeout_s: float = 30.0,
    step_timeout_s: float = 3600.0,
) -> WorkflowHandle[Any, Any]:
    """Start the run `workflow_id` of the agent the workers of `task_queue` serve as `agent`; its
    handle answers `run_result`. A name no worker serves ends the run at once, with the names they do.
    The run goes on once this client confirms the execution it started (a start copied from the
    history is never confirmed, and runs nothing)."""
    try:
        check_agent_name(agent)
    except ValueError as error:
        raise TemporalRunError(str(error)) from None
    check_run_id(workflow_id)
    request = RunRequest(
        run_id=workflow_id,
        task=task,
        agent=agent,
        max_steps=max_steps,
        heartbeat_timeout_s=heartbeat_timeout_s,
        step_timeout_s=step_timeout_s,
    )
    handle = await client.start_workflow(WORKFLOW_NAME, request, id=workflow_id, task_queue=task_queue)
    # the run waits for this before its first step: a copy of its start, sent again by someone
    # without the key, is confirmed by nobody (messages.CONFIRM_SIGNAL)
    await handle.signal(CONFIRM_SIGNAL, {"execution": handle.result_run_id})
    return handle


async def run_result(handle: WorkflowHandle[Any, Any]) -> Checkpoint:
    """The finished run's last checkpoint (`final_answer`, `steps`, `namespace`), once it ends."""
    try:
        encoded = await handle.result()
    except WorkflowFailureError as failure:
        raise TemporalRunError(f"run {handle.id!r} failed: {_cause(failure)}") from None
    if not isinstance(encoded, str):
        why = refused(encoded) or f"a {type(encoded).__name__}, not a checkpoint"
        raise TemporalRunError(f"run {handle.id!r} ended, and its result cannot be read here: {why}")
    return load_checkpoint(decode_checkpoint(encoded), f"the last checkpoint of run {handle.id!r}")


async def run_on_temporal(
    agent: str,
    task: str,
    *,
    client: Client,
    task_queue: str,
    workflow_id: str,
    max_steps: int | None = None,
    heartbeat_timeout_s: float = 30.0,
    step_timeout_s: float = 3600.0,
) -> Any:
    """Run `task` with the agent the workers serve as `agent`, as a Temporal workflow, and return its
    final answer (see `start_on_temporal`)."""
    handle = await start_on_temporal(
        agent,
        task,
        client=client,
        task_queue=task_queue,
        workflow_id=workflow_id,
        max_steps=max_steps,
        heartbeat_timeout_s=heartbeat_timeout_s,
        step_timeout_s=step_timeout_s,
    )
    return (await run_result(handle)).final_answer


async def pending_on_temporal(client: Client, run_id: str) -> dict[str, Any] | None:
    """The call run `run_id` waits on a person's decision for (`tool`, `call`), or None. Read from
    the run's memo: it answers with no worker running."""
    waiting = await _waiting(client, run_id)
    return None if waiting is None else {key: value for key, value in waiting.items() if key != PAUSE_FIELD}


async def approve_on_temporal(
    client: Client, run_id: str, key: str, note: str | None = None
) -> dict[str, Any]:
    """Let the call run `run_id` paused for be made, if `key` is its approval key (the one the person
    was shown, `pending_on_temporal(...)["approval_key"]`): a worker goes on with the run. Returns
    the call; `ApprovalKeyError` if another call waits now."""
    return await _decide(client, run_id, key, "approved", note)


async def deny_on_temporal(client: Client, run_id: str, key: str, note: str | None = None) -> dict[str, Any]:
    """Refuse the call run `run_id` paused for, if `key` is its approval key: the model reads that it
    was denied and why (`note`), and the call is not made. Returns the call."""
    return await _decide(client, run_id, key, "denied", note)


async def _waiting(client: Client, run_id: str) -> dict[str, Any] | None:
    """The memo's call waiting for a decision, with the pause's id."""
    handle = client.get_workflow_handle(check_run_id(run_id))
    try:
        described = await handle.describe()
    except RPCError as error:
        raise _no_run(run_id, error) from None
    if described.status != WorkflowExecutionStatus.RUNNING:
        return None
    pending = await described.memo_value(PENDING_MEMO, None)
    why = refused(pending)
    if why is not None:
        raise TemporalRunError(f"run {run_id!r}: the call it waits on cannot be read here: {why}")
    return dict(pending) if isinstance(pending, dict) else None


async def _decide(client: Client, run_id: str, key: str, approval: str, note: str | None) -> dict[str, Any]:
    waiting = await _waiting(client, run_id)
    if waiting is None:
        raise TemporalRunError(f"run {run_id!r} waits for no decision")
    if key != waiting.get("approval_key"):
        raise ApprovalKeyError(
            f"run {run_id!r} waits on another call than the one with approval key {str(key)[:64]!r}: the call "
            "waiting changed, so nothing was decided; read it again (pending_on_temporal) and decide on that one"
        )
    pause = waiting.get(PAUSE_FIELD)
    decision = Decision(
        approval, note[:MAX_NOTE_CHARS] if note else None, pause if isinstance(pause, str) else None, key
    )
    try:
        await client.get_workflow_handle(run_id).signal(DECIDE_SIGNAL, decision)
    except RPCError as error:
        raise _no_run(run_id, error) from None
    return {key: value for key, value in waiting.items() if key != PAUSE_FIELD}


def _no_run(run_id: str, error: RPCError) -> TemporalRunError:
    if error.status == RPCStatusCode.NOT_FOUND:
        return TemporalRunError(
            f"no run {run_id!r} on this Temporal server (a run's id is its workflow id, given to start_on_temporal)"
        )
    return TemporalRunError(
        f"run {run_id!r}: the Temporal server answered {error.status.name}: {error.message}"
    )


def _cause(failure: BaseException) -> str:
    """The innermost error's line: an activity's own error, under Temporal's wrappers."""
    error: BaseException = failure
    while error.__cause__ is not None:
        error = error.__cause__
    if isinstance(error, ApplicationError) and error.type:
        said = f"{error.type}: {error.message}"
    else:
        said = f"{type(error).__name__}: {error}"
    return " ".join(said.split())[:1000]
