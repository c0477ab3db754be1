"""The shared executor conformance suite (smol_core.testing), run on E2BExecutor + the stand-in E2B."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2b_standin import StandInE2B

from smol_core.testing.executor_conformance import ExecutorConformance


@pytest.fixture(scope="module", autouse=True)
def standin_for_module() -> Iterator[StandInE2B]:
    with StandInE2B() as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("E2B_API_URL", server.url)
        patch.setenv("E2B_SANDBOX_URL", server.url)
        patch.setenv("E2B_API_KEY", server.api_key)
        patch.delenv("E2B_DEBUG", raising=False)
        yield server


class TestE2BConformance(ExecutorConformance):
    escapes_dir = Path(__file__).parents[2] / "security" / "escapes"

    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> Any:
        from smol_executor_e2b import E2BExecutor

        return E2BExecutor(additional_authorized_imports, **options)

    def kill_worker(self, executor: Any) -> None:
        executor.wait_until_ready()
        link = executor._proc
        executor.sandbox.commands.kill(link.pid)  # from outside, as E2B's OOM killer would
        deadline = time.monotonic() + 10
        while link.alive() and not link._ended and time.monotonic() < deadline:
            time.sleep(0.02)
