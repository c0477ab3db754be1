"""smol agents as Temporal workflows: one activity per step, resumed from the last checkpoint.

`run_on_temporal(factory, task, client=..., task_queue=..., workflow_id=...)` runs a task; workers
(`smol-temporal-worker`, or `create_worker`) run its steps. See docs/plugins/durable-temporal.md.
"""

from smol_durable_temporal.client import TemporalRunError, run_on_temporal, run_result, start_on_temporal
from smol_durable_temporal.spec import AgentSpec, AgentSpecError
from smol_durable_temporal.worker import create_worker
from smol_durable_temporal.workflow import AgentRunWorkflow

__all__ = [
    "AgentRunWorkflow",
    "AgentSpec",
    "AgentSpecError",
    "TemporalRunError",
    "create_worker",
    "run_on_temporal",
    "run_result",
    "start_on_temporal",
]
