"""smol agents as Temporal workflows: one activity per step, resumed from the last checkpoint.

`run_on_temporal(factory, task, client=..., task_queue=..., workflow_id=...)` runs a task; workers
(`smol-temporal-worker`, or `create_worker`) run its steps. See docs/plugins/durable-temporal.md.

Names are imported on first use (PEP 562): the plugin module that registers `smol temporal-worker`
lives in this package, and listing plugins must not load temporalio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "AgentRunWorkflow": "smol_durable_temporal.workflow",
    "AgentSpec": "smol_durable_temporal.spec",
    "AgentSpecError": "smol_durable_temporal.spec",
    "TemporalRunError": "smol_durable_temporal.client",
    "approve_on_temporal": "smol_durable_temporal.client",
    "deny_on_temporal": "smol_durable_temporal.client",
    "pending_on_temporal": "smol_durable_temporal.client",
    "create_worker": "smol_durable_temporal.worker",
    "run_on_temporal": "smol_durable_temporal.client",
    "run_result": "smol_durable_temporal.client",
    "start_on_temporal": "smol_durable_temporal.client",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)


if TYPE_CHECKING:
    from smol_durable_temporal.client import (
        TemporalRunError,
        approve_on_temporal,
        deny_on_temporal,
        pending_on_temporal,
        run_on_temporal,
        run_result,
        start_on_temporal,
    )
    from smol_durable_temporal.spec import AgentSpec, AgentSpecError
    from smol_durable_temporal.worker import create_worker
    from smol_durable_temporal.workflow import AgentRunWorkflow
