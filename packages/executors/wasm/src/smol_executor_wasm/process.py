"""One WebAssembly worker: a Node.js process running Pyodide, spoken to over its stdin/stdout.

It is the local executor's `WorkerProcess` with another command line (and a boot frame), so the
shared driver's exchange loop, tool calls, deadlines and kills drive it unchanged. The first frame it
receives is the boot frame: the worker's Python files (the modules smol_core.executors.host.bundle ships
to containers, read from the installed smol-core) and `boot.py`, so the code inside runs under
exactly the guards the local executor uses.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any

from smol_core.plugin_api import WorkerProcess, worker_sources
from smol_executor_wasm.runtime import BOOT_SCRIPT, Runtime

# Node's whole environment: nothing of the host's (API keys, tokens) crosses.
NODE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
# What the Python inside sees as os.environ (Emscripten adds USER, LOGNAME, PWD, _ ...).
WASM_ENV = {"HOME": "/home/pyodide", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}


def worker_files() -> dict[str, str]:
    """The worker's modules (smol_core.executors.host.bundle's list, sources as installed here) as files."""
    files = {}
    for name, (is_package, source) in worker_sources().items():
        path = name.replace(".", "/")
        files[f"{path}/__init__.py" if is_package else f"{path}.py"] = source
    return files


def boot_frame() -> dict[str, Any]:
    return {"op": "boot", "files": worker_files(), "main": BOOT_SCRIPT.read_text(), "env": WASM_ENV}


class NodeWorkerProcess(WorkerProcess):
    """A Node.js + Pyodide worker process; reading, limits, deadlines and killing are the local
    worker's own: only the command, its environment and the boot frame differ."""

    def __init__(self, runtime: Runtime, boot: dict[str, Any]) -> None:
        super().__init__(runtime.command(), env=dict(NODE_ENV))
        self.send(boot)


class SparePool:
    """At most one booted, idle Node worker per runtime, refilled in the background after each take.

    Why: Pyodide takes seconds to start (compiling its WebAssembly, initialising CPython); a worker
    that is already waiting for its `config` makes the next executor, or the restart after a
    time-out, ready at once. Spares hold no settings and no sandbox configuration yet (both come with
    `config`), so any executor with the same runtime can take one. `SMOL_EXECUTOR_PREWARM=0` turns
    it off, as for the local executor.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spares: dict[Runtime, NodeWorkerProcess] = {}
        self._filling: set[Runtime] = set()
        self.enabled = os.environ.get("SMOL_EXECUTOR_PREWARM", "1") != "0"

    def take(self, runtime: Runtime, boot: dict[str, Any]) -> NodeWorkerProcess:
        with self._lock:
            spare = self._spares.pop(runtime, None)
        if spare is None or not spare.alive():
            if spare is not None:
                spare.close()
            spare = NodeWorkerProcess(runtime, boot)
        self._refill(runtime, boot)
        return spare

    def _refill(self, runtime: Runtime, boot: dict[str, Any]) -> None:
        with self._lock:
            if not self.enabled or runtime in self._filling or runtime in self._spares:
                return
            self._filling.add(runtime)
        threading.Thread(target=self._fill, args=(runtime, boot), name="smol-wasm-spare", daemon=True).start()

    def _fill(self, runtime: Runtime, boot: dict[str, Any]) -> None:
        try:
            worker: NodeWorkerProcess | None = NodeWorkerProcess(runtime, boot)
        except Exception:  # the next take starts one itself and reports the error
            worker = None
        with self._lock:
            self._filling.discard(runtime)
            if worker is not None and self.enabled and runtime not in self._spares:
                self._spares[runtime], worker = worker, None
        if worker is not None:
            worker.close()

    def shutdown(self) -> None:
        with self._lock:
            spares, self._spares = list(self._spares.values()), {}
            self.enabled = False
        for spare in spares:
            spare.close()


POOL = SparePool()
atexit.register(POOL.shutdown)
