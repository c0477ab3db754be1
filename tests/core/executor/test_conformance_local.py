"""The shared executor conformance suite, run against the local executor (the reference)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from smol_core.executors.local import LocalPythonExecutor
from smol_core.testing.executor_conformance import ExecutorConformance


class TestLocalConformance(ExecutorConformance):
    escapes_dir = Path(__file__).parents[2] / "security" / "escapes"

    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> LocalPythonExecutor:
        return LocalPythonExecutor(additional_authorized_imports, **options)

    def kill_worker(self, executor: Any) -> None:
        executor.wait_until_ready()
        os.kill(executor._proc.pid, 9)
        executor._proc.popen.wait()
