"""`LocalPythonExecutor`: the host side of the local sandbox.

The driving (deadlines, tool calls, crash and time-out handling) lives in `executors/host/driver.py` and is
shared with the container and remote executors; this module only says how a local worker is obtained
(a warm spare process from `process.POOL`) and configured (its own scratch folder, rlimits, OS sandbox).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import weakref
from collections.abc import Callable
from typing import Any

from smol_core.executors.base import InterpreterError
from smol_core.executors.host.driver import WorkerExecutor
from smol_core.executors.host.link import WorkerLink
from smol_core.executors.host.process import POOL, WORKER_ENV
from smol_core.executors.host.ready_spares import READY_SPARES, filling_now
from smol_core.executors.host.scratch import make_scratch

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
    scratch_limit_mb: the scratch folder's total size (a tmpfs of that size where mount namespaces
        work, else a budget the worker checks); its files are gone when the executor closes, and
        with the worker wherever the worker holds them in its own tmpfs.
    os_sandbox: apply namespaces, mounts, Landlock, a uid change and seccomp where the OS allows.
    additional_functions: functions the code may call by name, as smolagents' executor takes them
        (`CodeAgent(executor_kwargs={"additional_functions": {...}})`). Like tools, they run on the
        host, outside the sandbox, with what the code passes them: give only what you would give
        the model as a tool. A builtin among them (`{"open": open}`) is the sandbox's own builtin of
        that name instead (see `send_tools`): the sandbox's `open`, never the host's.
    """

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        timeout_seconds: float | None = 30,
        memory_limit_mb: int | None = 4096,
        os_sandbox: bool = True,
        scratch_limit_mb: int | None = 512,
        additional_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> None:
        super().__init__(additional_authorized_imports, max_print_outputs_length, timeout_seconds)
        self.additional_functions = dict(additional_functions or {})
        self._register_tools(self.additional_functions)  # sent when the worker starts, and after each restart
        self._check_authorized_imports_are_installed()
        self.memory_limit_mb = memory_limit_mb
        self.os_sandbox = os_sandbox
        self.scratch_limit_mb = scratch_limit_mb
        self._scratch: str | None = None
        self._scratch_cleanup: weakref.finalize[..., Any] | None = None
        self._start()

    def _check_authorized_imports_are_installed(self) -> None:
        """Fail now, not at the code's first import, when an authorized module is not installed
        (smolagents' check and wording): a typo in `additional_authorized_imports` is the user's mistake."""
        missing = sorted(
            {
                top
                for name in self.additional_authorized_imports
                if name != "*" and (top := name.split(".")[0]) and importlib.util.find_spec(top) is None
            }
        )
        if missing:
            raise InterpreterError(
                f"Non-installed authorized modules: {', '.join(missing)}. "
                "Please install these modules or remove them from the authorized imports list."
            )

    @property
    def state(self) -> dict[str, Any]:
        """A snapshot of the code's variables, with `__name__` (smolagents' executor holds them in a
        dict). The variables live in the worker: values the protocol carries come back as themselves,
        others (functions, classes, modules) as their repr; changing this dict changes nothing there
        (use `send_variables`)."""
        return {"__name__": "__main__", **self.namespace()}

    def open_link(self) -> WorkerLink:
        return POOL.take()

    def _start(self) -> None:
        """The first start takes a worker already configured with these exact settings where one
        waits (`smol_core.executors.host.ready_spares`): it gives its first result without waiting for its walls."""
        if self._scratch is None and type(self) is LocalPythonExecutor and not filling_now():
            ready = READY_SPARES.take(self._ready_spare_key(), self._ready_spare_vessel)
            if ready is not None:
                self._code_ran = False
                self._proc, protections, self._scratch = ready.adopt()
                self.protections = protections
                self._scratch_cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
                self._awaiting, self._awaiting_xids = [], []
                self._send_owed_state()
                return
        super()._start()

    def _ready_spare_key(self) -> str:
        """Every setting that goes into the worker's `config` or the link, and nothing per executor."""
        settings = {**self.common_worker_config(), **self._sandbox_settings()}
        return repr((sorted(settings.items()), self.protocol_limits, self.worker_start_timeout))

    def _ready_spare_vessel(self) -> LocalPythonExecutor:
        return LocalPythonExecutor(
            self.additional_authorized_imports,
            self.max_print_outputs_length,
            self.timeout_seconds,
            self.memory_limit_mb,
            self.os_sandbox,
            self.scratch_limit_mb,
        )

    def detach_worker(self) -> tuple[WorkerLink, str]:
        """Give up the ready worker and its scratch folder without stopping or removing them (a
        ready spare's vessel, see `smol_core.executors.host.ready_spares`); this executor is left without either."""
        with self._lock:
            link, scratch = self._proc, self._scratch
            if link is None or scratch is None or self._awaiting:
                raise InterpreterError("only a started, idle worker can be detached")
            if self._scratch_cleanup is not None:
                self._scratch_cleanup.detach()
            self._proc, self._scratch, self._scratch_cleanup = None, None, None
            return link, scratch

    def _sandbox_settings(self) -> dict[str, Any]:
        return {
            "memory_limit_mb": self.memory_limit_mb,
            "scratch_limit_mb": self.scratch_limit_mb,
            "os_sandbox": self.os_sandbox,
            "expected_env": [*WORKER_ENV, "HOME", "TMPDIR"],
        }

    def worker_config(self) -> dict[str, Any]:
        if self._scratch is None or not os.path.isdir(self._scratch):
            self._scratch = make_scratch()
            # Removed when the executor is closed, collected, or the host exits normally; a host
            # killed outright leaves at most an empty folder, the files living in the worker's tmpfs.
            self._scratch_cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
        return {**self.common_worker_config(), **self._sandbox_settings(), "scratch": self._scratch}

    def close(self) -> None:
        with self._lock:
            super().close()
            if self._scratch_cleanup is not None:
                self._scratch_cleanup()  # removes the folder, once
                self._scratch_cleanup = None
            self._scratch = None


def protection_report(timeout: float = 30.0) -> list[tuple[str, bool, str]]:
    """Which protections a local worker gets on this machine: (name, active, detail) per layer.

    Starts a throwaway worker, lets it sandbox itself, and returns what it reported.
    """
    executor = LocalPythonExecutor()
    try:
        executor.wait_until_ready()
        return list(executor.protections)
    finally:
        executor.close()
