"""The hostile-worker kit through Node.js + Pyodide: the stand-in is the boot script inside WebAssembly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from smol_executor_wasm import WasmExecutor
from smol_executor_wasm.process import NodeWorkerProcess

from smol_core.executors.host.link import WorkerLink
from smol_core.testing import HostileWorkerConformance
from smol_core.testing.hostile_worker import STANDIN_SOURCE


class _StandInWasmExecutor(WasmExecutor):
    """The WebAssembly executor booting the hostile stand-in instead of the worker."""

    def open_link(self) -> WorkerLink:
        return NodeWorkerProcess(self.runtime, {"op": "boot", "files": {}, "main": STANDIN_SOURCE, "env": {}})


class TestWasmExecutorSurvivesAHostileWorker(HostileWorkerConformance):
    timeout_seconds = 15.0  # Pyodide boots in seconds, and a replaced worker boots again

    @pytest.fixture(scope="class")
    @classmethod
    def hostile_environment(cls, wasm_runtime: None) -> Iterator[None]:
        yield

    def make_hostile_executor(self, timeout_seconds: float) -> WasmExecutor:
        return _StandInWasmExecutor(timeout_seconds=timeout_seconds)
