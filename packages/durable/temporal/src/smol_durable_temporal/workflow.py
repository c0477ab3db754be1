"""The workflow: a smol run as a loop of one-step activities, holding the last step's checkpoint.

Why the checkpoint lives here: a workflow's state is what Temporal keeps whatever happens to the
processes, so the run needs no store of its own; each activity resumes the agent from the checkpoint
on whichever worker polls, runs one step and returns the next checkpoint (`step.py`). The workflow
never reads a checkpoint (it imports nothing of smol: Temporal replays it in a deterministic
sandbox); the activity's result says where the run stands. After `steps_per_history` steps, or
sooner once its history nears the server's limits or passes `HISTORY_BYTES` (a big checkpoint
each step), it continues as new with the checkpoint, so the event history, which holds every
step's checkpoint, stays bounded.

A run started by a client waits first for that client's confirmation of the execution it started
(`confirm_start`): a start copied from a finished run's history, and sent again by someone without
the key, is never confirmed, and ends having run nothing.

A step that stops at a call needing a person's approval returns the checkpoint with the call waiting
(status `awaiting_approval`), and the workflow waits, holding no worker, for the `decide` signal
(`approve_on_temporal` / `deny_on_temporal`, from any process that reaches the server, whether or
not a worker runs). The call waited on is in the run's memo meanwhile, where a client reads it with
no worker. The next step applies the decision and goes on, making the call or telling the model it
was denied. The first decision stands; a later one finds no call waiting. Each pause has an id,
in the memo beside the call, and a decision is taken only for the pause it names: a decision signal
copied from the history and sent again at a later pause decides nothing.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue, RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from smol_durable_temporal.messages import (
        AWAITING_APPROVAL,
        CONFIRM_SIGNAL,
        CONFIRM_WAIT_S,
        DECIDE_SIGNAL,
        NON_RETRYABLE,
        PAUSE_FIELD,
        PENDING_MEMO,
        START_CHECK,
        STEP_ACTIVITY,
        WORKFLOW_NAME,
        BadRunInput,
        Decision,
        Progress,
        StepRequest,
        StepResult,
        confirmed_execution,
        parse_decision,
        parse_run_request,
    )


HISTORY_BYTES = 10 * 1024 * 1024
"""The history a run keeps before it continues as new, whatever its steps: each step writes its
checkpoint into the history twice (the step's input and its result), and a server ends a workflow
whose history passes its limit (50 MB by default), so big checkpoints must not wait for
`steps_per_history` steps."""
HISTORY_CHECK = "smol-history-bounded"


def _history_full() -> bool:
    """Whether the run should continue as new now: the server suggests it (its history nears the
    server's limits), or the history passed `HISTORY_BYTES`."""
    if not workflow.patched(HISTORY_CHECK):
        return False  # a run started before this check continues as new as it did then
    info = workflow.info()
    return info.is_continue_as_new_suggested() or info.get_current_history_size() > HISTORY_BYTES


def _decoded(raw: RawValue, what: str) -> Any:
    """`raw`'s value, or `BadRunInput` if it cannot be decoded (JSON nested thousands deep, not
    JSON): whoever reaches the server chooses these bytes."""
    try:
        return workflow.payload_converter().from_payload(raw.payload)
    except Exception as error:
        raise BadRunInput(
            f"{what} cannot be read ({type(error).__name__}): send it with smol's client"
        ) from None


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWorkflow:
    def __init__(self) -> None:
        self._progress = Progress()
        self._pause: str | None = None
        self._decision: Decision | None = None
        self._confirmed = False

    @workflow.run
    async def run(self, raw: RawValue) -> str:
        """The finished run's last checkpoint (base64): its answer, memory and variables.

        The input is read as plain data and checked here (`parse_run_request`): one that does not
        convert would otherwise fail the workflow's task, retried forever, instead of the run. It
        arrives undecoded (`RawValue`) and is decoded here: JSON nested too deep to decode would
        otherwise fail the task the same way."""
        info = workflow.info()
        try:
            request = parse_run_request(
                _decoded(raw, "the run's input"),
                info.workflow_id,
                continued=info.continued_run_id is not None,
            )
        except BadRunInput as error:
            raise ApplicationError(str(error), type="BadRunInputError", non_retryable=True) from None
        if info.continued_run_id is None and workflow.patched(START_CHECK):
            await self._start_confirmed()
        checkpoint, decision = request.checkpoint, request.decision
        for _ in range(max(1, request.steps_per_history)):
            step = StepRequest(
                request.run_id, request.task, request.agent, checkpoint, request.max_steps, decision
            )
            result: StepResult = await workflow.execute_activity(
                STEP_ACTIVITY,
                step,
                result_type=StepResult,
                start_to_close_timeout=timedelta(seconds=request.step_timeout_s),
                heartbeat_timeout=timedelta(seconds=request.heartbeat_timeout_s),
                retry_policy=RetryPolicy(
                    maximum_interval=timedelta(seconds=30), non_retryable_error_types=list(NON_RETRYABLE)
                ),
            )
            checkpoint, decision = result.checkpoint, None
            self._progress = Progress(result.step, result.status, result.pending)
            if result.status == "finished":
                return checkpoint
            if result.status == AWAITING_APPROVAL:
                self._pause = str(workflow.uuid4())  # deterministic: the same on replay
                workflow.upsert_memo({PENDING_MEMO: {**(result.pending or {}), PAUSE_FIELD: self._pause}})
                await workflow.wait_condition(lambda: self._decision is not None)
                decision, self._decision, self._pause = self._decision, None, None
                self._progress = Progress(result.step, "running")
                workflow.upsert_memo({PENDING_MEMO: None})
            if _history_full():
                break
        workflow.continue_as_new(replace(request, checkpoint=checkpoint, decision=decision))

    async def _start_confirmed(self) -> None:
        """Wait for the starting client's confirmation of this very execution (`confirm_start`); a
        start copied from an earlier run's history gets none, and ends here, having run nothing."""
        try:
            await workflow.wait_condition(lambda: self._confirmed, timeout=timedelta(seconds=CONFIRM_WAIT_S))
        except TimeoutError:
            raise ApplicationError(
                f"the run's start was not confirmed within {CONFIRM_WAIT_S:g} s by the client that started "
                "it (a start copied from another run's history is never confirmed): nothing ran; "
                "start it with start_on_temporal (a client of this version)",
                type="BadRunInputError",
                non_retryable=True,
            ) from None

    @workflow.signal(name=CONFIRM_SIGNAL)
    def confirm_start(self, raw: RawValue) -> None:
        """The starting client names the execution it started: this one, or the signal is a copy.
        Compared with the first execution's id, which a reset keeps (its history, this signal
        among it, is replayed), and which a start copied into a new workflow does not have."""
        try:
            data = _decoded(raw, "a start's confirmation")
        except BadRunInput:
            return
        if confirmed_execution(data) == workflow.info().first_execution_run_id:
            self._confirmed = True

    @workflow.query(name="progress")
    def progress(self) -> Progress:
        """The last step saved, whether the run finished, and the call it waits on a decision for."""
        return self._progress

    @workflow.signal(name=DECIDE_SIGNAL)
    def decide(self, raw: RawValue) -> None:
        """A person's decision on the call the run waits for; ignored unless it waits for one.
        Anyone who reaches the server can signal: only a well-formed decision is taken, and with a
        payload key, only one encrypted with it (codec.py: others arrive refused)."""
        try:
            decision = parse_decision(_decoded(raw, "a decision"))
        except BadRunInput as error:
            workflow.logger.warning(
                "a decision on run %s was ignored: %s", workflow.info().workflow_id, error
            )
            return
        if decision.pause is None or decision.pause != self._pause:
            workflow.logger.warning(
                "a decision on run %s for another pause was ignored", workflow.info().workflow_id
            )
            return
        if self._progress.status == AWAITING_APPROVAL and self._decision is None:
            self._decision = decision
