"""smol agents as Temporal workflows: one activity per step, resumed from the last checkpoint.

Workers run the agents registered on them by name (`smol-temporal-worker --agent
NAME=module:function`, or `create_worker(client, queue, agents={...})`); a client starts a run of
one of them by name (`run_on_temporal("support", task, client=await connect(...), ...)`). Payloads
are encrypted with a key both sides hold, and those too big for the history go to a blob folder
both share (`connect`, `data_converter`). See docs/plugins/durable-temporal.md.

Names are imported on first use (PEP 562): the plugin module that registers `smol temporal-worker`
lives in this package, and listing plugins must not load temporalio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "AgentFactoryError": "smol_durable_temporal.agents",
    "AgentRegistry": "smol_durable_temporal.agents",
    "AgentRunWorkflow": "smol_durable_temporal.workflow",
    "CheckpointTooLargeError": "smol_durable_temporal.step",
    "EncryptionCodec": "smol_durable_temporal.codec",
    "FolderStorage": "smol_durable_temporal.blobs",
    "PayloadKeyError": "smol_durable_temporal.codec",
    "TemporalRunError": "smol_durable_temporal.client",
    "UnknownAgentError": "smol_durable_temporal.agents",
    "approve_on_temporal": "smol_durable_temporal.client",
    "connect": "smol_durable_temporal.connection",
    "create_worker": "smol_durable_temporal.worker",
    "data_converter": "smol_durable_temporal.connection",
    "deny_on_temporal": "smol_durable_temporal.client",
    "key_from_environment": "smol_durable_temporal.codec",
    "pending_on_temporal": "smol_durable_temporal.client",
    "run_on_temporal": "smol_durable_temporal.client",
    "run_result": "smol_durable_temporal.client",
    "settings_agent": "smol_durable_temporal.agents",
    "start_on_temporal": "smol_durable_temporal.client",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)


if TYPE_CHECKING:
    from smol_durable_temporal.agents import (
        AgentFactoryError,
        AgentRegistry,
        UnknownAgentError,
        settings_agent,
    )
    from smol_durable_temporal.blobs import FolderStorage
    from smol_durable_temporal.client import (
        TemporalRunError,
        approve_on_temporal,
        deny_on_temporal,
        pending_on_temporal,
        run_on_temporal,
        run_result,
        start_on_temporal,
    )
    from smol_durable_temporal.codec import EncryptionCodec, PayloadKeyError, key_from_environment
    from smol_durable_temporal.connection import connect, data_converter
    from smol_durable_temporal.step import CheckpointTooLargeError
    from smol_durable_temporal.worker import create_worker
    from smol_durable_temporal.workflow import AgentRunWorkflow
