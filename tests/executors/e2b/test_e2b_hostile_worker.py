"""The hostile-worker kit through the E2B link: the real SDK, the relay, base64 lines on a stream."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from e2b_standin import StandInE2B
from smol_executor_e2b import E2BExecutor
from smol_executor_e2b.executor import WORKER_ENV
from smol_executor_e2b.link import E2BLink, relay_command

from smol_core.executors.host.bundle import bundle_frame
from smol_core.executors.host.link import WorkerLink
from smol_core.testing import HostileWorkerConformance, standin_argv


class _StandInE2BExecutor(E2BExecutor):
    """The E2B executor with the relayed worker replaced by the hostile stand-in (it drops the bundle)."""

    def open_link(self) -> WorkerLink:
        argv = standin_argv(self.python, skip_first_frame=True)
        return E2BLink(self.sandbox, relay_command(argv, WORKER_ENV, self.python), bundle_frame())


class TestE2BExecutorSurvivesAHostileWorker(HostileWorkerConformance):
    @pytest.fixture(scope="class")
    @classmethod
    def hostile_environment(cls) -> Iterator[None]:
        with StandInE2B() as server, pytest.MonkeyPatch.context() as patch:
            patch.setenv("E2B_API_URL", server.url)
            patch.setenv("E2B_SANDBOX_URL", server.url)
            patch.setenv("E2B_API_KEY", server.api_key)
            patch.delenv("E2B_DEBUG", raising=False)
            yield

    def make_hostile_executor(self, timeout_seconds: float) -> E2BExecutor:
        return _StandInE2BExecutor(timeout_seconds=timeout_seconds)
