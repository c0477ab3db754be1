"""smol-executor-wasm: agents' code runs in CPython compiled to WebAssembly (Pyodide) under Node.js.

`CodeAgent(executor_type="wasm")`, or `WasmExecutor(...)` directly. The worker inside is the local
executor's, so semantics, error messages and the security corpus are the same as with the local one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smol_executor_wasm.runtime import PYODIDE_VERSION

if TYPE_CHECKING:
    from smol_executor_wasm.executor import WasmExecutor

__all__ = ["PYODIDE_VERSION", "WasmExecutor"]


def __getattr__(name: str) -> Any:
    if name == "WasmExecutor":
        from smol_executor_wasm.executor import WasmExecutor

        return WasmExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
