"""`LocalPythonExecutor`: the host side of the local sandbox.

The driving (deadlines, tool calls, crash and time-out handling) lives in `executors/host.py` and is
shared with the container and remote executors; this module only says how a local worker is obtained
(a warm spare process from `process.POOL`) and configured (its own scratch folder, rlimits, OS sandbox).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from smol_core.executors.host import WorkerExecutor, WorkerLink
from smol_core.executors.local.process import POOL, WORKER_ENV

__all__ = ["LocalPythonExecutor", "protection_report"]


class LocalPythonExecutor(WorkerExecutor):
    """Runs code in a sandboxed CPython worker process that keeps state between calls.

    additional_authorized_imports: modules beyond BASE_BUILTIN_MODULES; "pkg.*" for submodules, "*"
        for every module except the dangerous ones (os, sys, subprocess, ...), which must be named.
        An authorized module the code uses without importing it (`math.sqrt(2)` alone) is imported
        for it, through the same guarded import; any other undefined name still raises NameError.
    max_print_outputs_length: logs longer than this are cut, with a note.
    timeout_seconds: wall-clock limit of one action (time spent in host tools not counted); None: none.
    memory_limit_mb: the worker's address-space limit.
    os_sandbox: apply network namespace, Landlock and seccomp where the OS allows (on by default).
    """

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        timeout_seconds: float | None = 30,
        memory_limit_mb: int | None = 4096,
        os_sandbox: bool = True,
        **_ignored: Any,
    ) -> None:
        super().__init__(additional_authorized_imports, max_print_outputs_length, timeout_seconds)
        self.memory_limit_mb = memory_limit_mb
        self.os_sandbox = os_sandbox
        self._scratch: str | None = None
        self._start()

    def _open_link(self) -> WorkerLink:
        return POOL.take()

    def _worker_config(self) -> dict[str, Any]:
        if self._scratch is None or not os.path.isdir(self._scratch):
            self._scratch = tempfile.mkdtemp(prefix="smol-scratch-")
        return {
            "authorized_imports": self.authorized_imports,
            "memory_limit_mb": self.memory_limit_mb,
            "scratch": self._scratch,
            "os_sandbox": self.os_sandbox,
            "expected_env": [*WORKER_ENV, "HOME", "TMPDIR"],
            "log_cap": max(4_000_000, 2 * (self.max_print_outputs_length or 0)),
        }

    def close(self) -> None:
        with self._lock:
            super().close()
            if self._scratch:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None


def protection_report(timeout: float = 30.0) -> list[tuple[str, bool, str]]:
    """Which protections a local worker gets on this machine: (name, active, detail) per layer.

    Starts a throwaway worker, lets it sandbox itself, and returns what it reported.
    """
    executor = LocalPythonExecutor()
    try:
        executor._drain()
        return list(executor.protections)
    finally:
        executor.close()
