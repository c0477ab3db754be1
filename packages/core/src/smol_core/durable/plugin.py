"""Durable runs as a plugin: what `agent.run(..., run_id=...)` joins the run with, the `sqlite`
checkpoint store, and the `smolagent` flags (`--run-id`, `--resume`, `--store`)."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import CheckpointStoreSpec, RunExtensionSpec, RunOptionSpec, lazy


@hookimpl
def smol_run_extensions() -> Iterable[RunExtensionSpec]:
    return [
        RunExtensionSpec(
            "run_id",
            lazy("smol_core.durable.runner:durable_run"),
            "A durable run: checkpointed after every step, resumed with `agent.resume(run_id)`.",
        )
    ]


@hookimpl
def smol_checkpoint_stores() -> Iterable[CheckpointStoreSpec]:
    return [
        CheckpointStoreSpec(
            "sqlite",
            lazy("smol_core.durable.sqlite_store:SQLiteStore"),
            "One SQLite file (WAL), no server: by default under the user's data folder (path=...).",
        )
    ]


@hookimpl
def smol_run_options() -> Iterable[RunOptionSpec]:
    return [
        RunOptionSpec(
            "durable runs",
            lazy("smol_core.durable.run_options:configure"),
            lazy("smol_core.durable.run_options:apply"),
        )
    ]
