"""Registers the `wasm` executor with smol. Imports nothing: Node.js is looked for when one is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ExecutorSpec, hookimpl, lazy


@hookimpl
def smol_executors() -> Iterable[ExecutorSpec]:
    return [
        ExecutorSpec(
            "wasm",
            lazy("smol_executor_wasm.executor:WasmExecutor"),
            "CPython compiled to WebAssembly (Pyodide) under Node.js: no host files, no network.",
            isolation="wasm",
            aliases=("pyodide",),
        )
    ]
