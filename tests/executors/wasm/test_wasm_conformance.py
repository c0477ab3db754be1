"""The shared executor conformance suite (smol_core.testing), run on WasmExecutor (Node.js + Pyodide)."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from smol_core.testing.executor_conformance import ExecutorConformance


@pytest.fixture(scope="module", autouse=True)
def _needs_runtime(wasm_runtime: None) -> None:
    """Skip (or, under CI, fail) the whole class when Node.js or Pyodide is missing."""


class TestWasmConformance(ExecutorConformance):
    escapes_dir = Path(__file__).parents[2] / "security" / "escapes"

    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> Any:
        from smol_executor_wasm import WasmExecutor

        return WasmExecutor(additional_authorized_imports, **options)

    def kill_worker(self, executor: Any) -> None:
        executor.wait_until_ready()
        os.kill(executor._proc.pid, signal.SIGKILL)  # as the OOM killer would
        executor._proc.popen.wait()
