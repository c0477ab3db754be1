"""The hostile-worker kit through a real container: the attached stream, its demultiplexer and reader."""

from __future__ import annotations

from smol_executor_docker import DockerExecutor
from smol_executor_docker.link import ContainerLink

from smol_core.executors.host.link import WorkerLink
from smol_core.testing import HostileWorkerConformance, standin_argv


class _StandInDockerExecutor(DockerExecutor):
    """The Docker executor with its container's command replaced by the hostile stand-in."""

    def open_link(self) -> WorkerLink:
        container = self.client.api.create_container(**self._create_arguments(standin_argv(self.python)))
        container_id = str(container["Id"])
        attached = self.client.api.attach_socket(
            container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        )
        link = ContainerLink(self.client, container_id, attached)
        self.client.api.start(container_id)
        self.container_id = container_id
        return link


class TestDockerExecutorSurvivesAHostileWorker(HostileWorkerConformance):
    timeout_seconds = 8.0  # a container's kill and a fresh start take longer than a process's

    def make_hostile_executor(self, timeout_seconds: float) -> DockerExecutor:
        return _StandInDockerExecutor(timeout_seconds=timeout_seconds)
