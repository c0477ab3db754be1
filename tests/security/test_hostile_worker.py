"""The hostile-worker kit against the local executor: its pipe link and the shared host driver."""

from __future__ import annotations

import pytest

from smol_core.executors.base import ProtocolViolationError
from smol_core.executors.host.link import WorkerLink
from smol_core.executors.host.process import WorkerProcess
from smol_core.executors.local import LocalPythonExecutor
from smol_core.testing import HostileWorkerConformance, standin_argv


class _StandInLocalExecutor(LocalPythonExecutor):
    """The local executor exactly, except that each worker it starts is the hostile stand-in."""

    def open_link(self) -> WorkerLink:
        return WorkerProcess(standin_argv())


class TestLocalExecutorSurvivesAHostileWorker(HostileWorkerConformance):
    def make_hostile_executor(self, timeout_seconds: float) -> LocalPythonExecutor:
        return _StandInLocalExecutor(timeout_seconds=timeout_seconds)

    def test_a_namespace_that_is_not_names_is_a_violation(self, hostile: LocalPythonExecutor) -> None:
        """`namespace()` (smolagents' evaluate_python_code state) reads the worker's answer as hostile too:
        the stand-in answers it with `None`, not a dict of names."""
        with pytest.raises(ProtocolViolationError, match="other than a dict of names"):
            hostile.namespace()
        self.assert_works(hostile)
