"""smol-executor-wasm: agents' code runs in CPython compiled to WebAssembly (Pyodide) under Node.js.

`CodeAgent(executor_type="wasm")`, or `WasmExecutor(...)` directly. The worker inside is the local
executor's, so semantics, error messages and the security corpus are the same as with the local one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use: plugin discovery imports this package, and must not load the executor
_EXPORTS = {
    "PYODIDE_VERSION": "smol_executor_wasm.runtime",
    "WasmExecutor": "smol_executor_wasm.executor",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_executor_wasm.executor import WasmExecutor
    from smol_executor_wasm.runtime import PYODIDE_VERSION
