"""The shared executor conformance suite and the whole escape corpus, inside the container."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smol_core.testing.executor_conformance import ExecutorConformance


class TestDockerConformance(ExecutorConformance):
    escapes_dir = Path(__file__).parents[2] / "security" / "escapes"

    def make_executor(self, additional_authorized_imports: list[str], **options: Any) -> Any:
        from smol_executor_docker import DockerExecutor

        return DockerExecutor(additional_authorized_imports, **options)

    def kill_worker(self, executor: Any) -> None:
        executor.wait_until_ready()
        executor.client.api.kill(executor.container_id)
        executor.client.api.wait(executor.container_id, timeout=10)
