"""smol-core's own parts, registered through the same hooks as any third-party plugin."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import (
    CheckpointStoreSpec,
    ExecutorSpec,
    ModelSpec,
    ToolSpec,
    TransportSpec,
    lazy,
)


@hookimpl
def smol_executors() -> Iterable[ExecutorSpec]:
    return [
        ExecutorSpec(
            "local",
            lazy("smol_core.executors.local:LocalPythonExecutor"),
            "CPython in a guarded worker process: language-level guards, rlimits, OS sandboxing where available.",
            isolation="process",
        )
    ]


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "scripted",
            lazy("smol_core.testing.models:ScriptedModel"),
            "Replies from a list (tests).",
            test_double=True,
        ),
        ModelSpec(
            "function",
            lazy("smol_core.testing.models:FunctionModel"),
            "Replies from a function (tests).",
            test_double=True,
        ),
    ]


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "final_answer", lazy("smol_core.tools.base_tools:FinalAnswerTool"), "Ends the run with an answer."
        ),
        ToolSpec(
            "python_interpreter",
            lazy("smol_core.tools.base_tools:PythonInterpreterTool"),
            "Runs Python code in the local sandbox.",
        ),
        ToolSpec("user_input", lazy("smol_core.tools.base_tools:UserInputTool"), "Asks the user a question."),
    ]


@hookimpl
def smol_transports() -> Iterable[TransportSpec]:
    return [
        TransportSpec(
            "local",
            lazy("smol_core.teams.local:LocalTransport"),
            "named pipes between agent processes on this machine (no server).",
            aliases=("multiprocessing",),
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
