"""Registers the `e2b` executor with smol. Imports nothing: the E2B SDK loads when one is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ExecutorSpec, hookimpl, lazy


@hookimpl
def smol_executors() -> Iterable[ExecutorSpec]:
    return [
        ExecutorSpec(
            "e2b",
            lazy("smol_executor_e2b.executor:E2BExecutor"),
            "E2B cloud sandboxes (microVMs) through the e2b-code-interpreter SDK; needs E2B_API_KEY.",
            isolation="microvm",
        )
    ]
