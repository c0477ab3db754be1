"""The local sandbox as a plugin: the `local` executor and the `python_interpreter` tool that runs in it.

Registered through the same hooks as any executor plugin, so that the kernel names the sandbox only
as `executor_type="local"`, never by import.
"""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import ExecutorSpec, ToolSpec, lazy


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
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "python_interpreter",
            lazy("smol_core.tools.base_tools:PythonInterpreterTool"),
            "Runs Python code in the local sandbox.",
        )
    ]
