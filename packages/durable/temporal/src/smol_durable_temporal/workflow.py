"""The workflow: a smol run as a loop of one-step activities, holding the last step's checkpoint.

Why the checkpoint lives here: a workflow's state is what Temporal keeps whatever happens to the
processes, so the run needs no store of its own; each activity resumes the agent from the checkpoint
on whichever worker polls, runs one step and returns the next checkpoint (`step.py`). The workflow
never reads a checkpoint (it imports nothing of smol: Temporal replays it in a deterministic
sandbox); the activity's result says where the run stands. After `steps_per_history` steps it
continues as new with the checkpoint, so the event history, which holds every step's checkpoint,
stays bounded.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from smol_durable_temporal.messages import (
        NON_RETRYABLE,
        STEP_ACTIVITY,
        WORKFLOW_NAME,
        Progress,
        RunRequest,
        StepRequest,
        StepResult,
    )


@workflow.defn(name=WORKFLOW_NAME)
class AgentRunWorkflow:
    def __init__(self) -> None:
        self._progress = Progress()

    @workflow.run
    async def run(self, request: RunRequest) -> str:
        """The finished run's last checkpoint (base64): its answer, memory and variables."""
        checkpoint = request.checkpoint
        for _ in range(max(1, request.steps_per_history)):
            result: StepResult = await workflow.execute_activity(
                STEP_ACTIVITY,
                StepRequest(request.run_id, request.task, request.agent, checkpoint, request.max_steps),
                result_type=StepResult,
                start_to_close_timeout=timedelta(seconds=request.step_timeout_s),
                heartbeat_timeout=timedelta(seconds=request.heartbeat_timeout_s),
                retry_policy=RetryPolicy(
                    maximum_interval=timedelta(seconds=30), non_retryable_error_types=list(NON_RETRYABLE)
                ),
            )
            checkpoint = result.checkpoint
            self._progress = Progress(result.step, result.status)
            if result.status == "finished":
                return checkpoint
        workflow.continue_as_new(replace(request, checkpoint=checkpoint))

    @workflow.query(name="progress")
    def progress(self) -> Progress:
        """The last step saved, and whether the run finished."""
        return self._progress
