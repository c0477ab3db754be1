"""The workflow: a smol run as a loop of one-step activities, holding the last step's checkpoint.

Why the checkpoint lives here: a workflow's state is what Temporal keeps whatever happens to the
processes, so the run needs no store of its own; each activity resumes the agent from the checkpoint
on whichever worker polls, runs one step and returns the next checkpoint (`step.py`). The workflow
never reads a checkpoint (it imports nothing of smol: Temporal replays it in a deterministic
sandbox); the activity's result says where the run stands. After `steps_per_history` steps it
continues as new with the checkpoint, so the event history, which holds every step's checkpoint,
stays bounded.

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
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from smol_durable_temporal.messages import (
        AWAITING_APPROVAL,
        DECIDE_SIGNAL,
        NON_RETRYABLE,
        PAUSE_FIELD,
        PENDING_MEMO,
        STEP_ACTIVITY,
        WORKFLOW_NAME,
        BadRunInput,
        Decision,
        Progress,
        StepRequest,
        StepResult,
        parse_decision,
        parse_run_request,
    )


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWorkflow:
    def __init__(self) -> None:
        self._progress = Progress()
        self._pause: str | None = None
        self._decision: Decision | None = None

    @workflow.run
    async def run(self, data: Any) -> str:
        """The finished run's last checkpoint (base64): its answer, memory and variables.

        The input is read as plain data and checked here (`parse_run_request`): one that does not
        convert would otherwise fail the workflow's task, retried forever, instead of the run."""
        info = workflow.info()
        try:
            request = parse_run_request(data, info.workflow_id, continued=info.continued_run_id is not None)
        except BadRunInput as error:
            raise ApplicationError(str(error), type="BadRunInputError", non_retryable=True) from None
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
        workflow.continue_as_new(replace(request, checkpoint=checkpoint, decision=decision))

    @workflow.query(name="progress")
    def progress(self) -> Progress:
        """The last step saved, whether the run finished, and the call it waits on a decision for."""
        return self._progress

    @workflow.signal(name=DECIDE_SIGNAL)
    def decide(self, data: Any) -> None:
        """A person's decision on the call the run waits for; ignored unless it waits for one.
        Anyone who reaches the server can signal: only a well-formed decision is taken, and with a
        payload key, only one encrypted with it (codec.py: others arrive refused)."""
        try:
            decision = parse_decision(data)
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
