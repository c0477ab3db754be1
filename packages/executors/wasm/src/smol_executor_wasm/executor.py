"""`WasmExecutor`: the code runs in CPython compiled to WebAssembly (Pyodide) under Node.js.

Why a `WorkerExecutor`: the worker inside Pyodide is the local worker, speaking the same protocol,
so everything on the host side (tool calls that cross back to the host, deadlines that kill the
worker, restarts that replay tools and variables, values that are never unpickled here) is the shared
driver of executors/host/driver.py. Only how the worker is started differs.

What the code gets: pure Python and the standard library Pyodide ships, an in-memory scratch folder,
no network and none of the host's files. Compiled packages (numpy...) are not in Pyodide's npm
package; they would have to be installed beside it, which this executor does not do.
"""

from __future__ import annotations

import os
from typing import Any

from smol_core.plugin_api import ExecutorUnavailableError, WorkerExecutor, WorkerLink
from smol_executor_wasm.process import POOL, WASM_ENV, boot_frame
from smol_executor_wasm.runtime import locate

SCRATCH = "/scratch"
# os.environ inside Pyodide: what we pass plus Emscripten's defaults.
EXPECTED_ENV = [*WASM_ENV, "USER", "LOGNAME", "PATH", "PWD", "_", "HOME", "LD_LIBRARY_PATH", "PYTHONINSPECT"]


class WasmExecutor(WorkerExecutor):
    """Runs code in Pyodide (CPython on WebAssembly) inside a Node.js process that keeps state between calls.

    additional_authorized_imports: as for the local executor ("pkg.*", "*"); the JavaScript bridges
        (`js`, `pyodide`) are never granted by "*".
    timeout_seconds: wall-clock limit of one action; past it the Node process is killed.
    logger: smolagents' second argument (an `AgentLogger`, or anything with `log(text)`): told when
        the executor starts. `additional_imports=` is smolagents' name for the authorized imports.
    node_path: the Node.js binary (default `$SMOL_NODE` or `node` on PATH).
    pyodide_dir: the Pyodide npm package or an npm prefix holding it (default `$SMOL_PYODIDE_DIR`,
        else ~/.cache/smol/pyodide; `python -m smol_executor_wasm install` fills it).
    isolate_network: start Node in network and PID namespaces of its own (no interfaces, no host
        processes in sight) where the OS allows.
    """

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        logger: Any = None,
        *,
        additional_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        timeout_seconds: float | None = 30,
        node_path: str | None = None,
        pyodide_dir: str | os.PathLike[str] | None = None,
        isolate_network: bool = True,
    ) -> None:
        self.runtime = locate(node_path, pyodide_dir, isolate_network)
        self._boot = boot_frame()
        authorized = [*(additional_authorized_imports or []), *(additional_imports or [])]
        super().__init__(authorized, max_print_outputs_length, timeout_seconds)
        self.logger = logger
        if logger is not None:
            logger.log("Initializing executor, hold on...")
        self._start()  # Node boots while the agent calls its model; the first action waits for `ready`

    def open_link(self) -> WorkerLink:
        try:
            return POOL.take(self.runtime, self._boot)
        except EOFError as exc:
            raise ExecutorUnavailableError(f"Node.js exited before the worker booted: {exc}") from None
        except OSError as exc:
            raise ExecutorUnavailableError(f"Node.js could not be started: {exc}") from None

    def worker_config(self) -> dict[str, Any]:
        return {
            **self.common_worker_config(),
            # the host kills Node at the deadline; Pyodide has no kernel timer or CPU limit to arm
            "timeout_seconds": None,
            "memory_limit_mb": None,
            "scratch": SCRATCH,
            "os_sandbox": False,
            "expected_env": EXPECTED_ENV,
        }

    def describe_protections(self, reported: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
        """The worker's language-level walls hold inside Pyodide; its OS layers do not exist there,
        and Node's own (permission model, isolated network) take their place."""
        inside = [p for p in reported if p[0] not in {"rlimits", "network namespace", "landlock", "seccomp"}]
        return inside + self.runtime.protections()
