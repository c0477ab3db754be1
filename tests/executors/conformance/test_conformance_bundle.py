"""The conformance suite against a worker started from the bundle (smol_core.executors.host.bundle).

Why: container and remote executors send the worker's sources at start-up instead of importing them
from an installed smol. This runs that exact loader as a local process, so the bundle path is tested
on every machine, Docker or not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from smol_core.executors.host.bundle import bundle_frame, local_loader_command
from smol_core.executors.host.link import WorkerLink
from smol_core.executors.host.process import WorkerProcess
from smol_core.executors.local import LocalPythonExecutor
from smol_core.testing.executor_conformance import ExecutorConformance


class BundledLocalExecutor(LocalPythonExecutor):
    """The local executor, but its worker comes from the bundle loader, not from smol's source tree."""

    def open_link(self) -> WorkerLink:
        process = WorkerProcess(local_loader_command())
        os.write(process.in_fd, bundle_frame())
        return process


class TestBundledWorkerConformance(ExecutorConformance):
    escapes_dir = Path(__file__).parents[2] / "security" / "escapes"

    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> BundledLocalExecutor:
        return BundledLocalExecutor(additional_authorized_imports, **options)

    def kill_worker(self, executor: Any) -> None:
        executor.wait_until_ready()
        os.kill(executor._proc.pid, 9)
        executor._proc.popen.wait()


def test_bundle_holds_only_worker_modules():
    from smol_core.executors.host.bundle import worker_sources

    names = set(worker_sources())
    assert "smol_core.executors.worker.main" in names
    assert "smol_core.executors.worker.protocol" in names
    assert not {"smol_core.executors.local", "smol_core.executors.host.process"} & names
    assert worker_sources()["smol_core"] == (True, "")  # no heavy package __init__ in the sandbox
