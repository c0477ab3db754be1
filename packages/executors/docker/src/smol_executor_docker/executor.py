"""`DockerExecutor`: the local executor's worker, guards and host driver, inside a hardened container.

Why the same worker: semantics, error messages and the security corpus must not depend on where code
runs. The container adds walls the language layer does not need to be right about: no network, a
read-only root, a small scratch tmpfs, memory/CPU/pids limits, an unprivileged user, no capabilities,
no-new-privileges. Tools stay on the host (a tool call is a message on the attached stream); the
container gets a fixed environment, so the host's secrets never enter it; nothing it sends is
unpickled here.

Lifecycle: the engine and image are checked when the executor is built (a configuration error is
the host's, so it raises); the container starts on first use and serves every step and run after;
it is removed on `close()`, at interpreter exit, and, after a crash, by the next executor's start
(engine.reap_orphans). It does not wait for that to stop running: its first process
(`container_init`) ends the container within a fraction of a second of its host's end (the host's
attached stream hangs up), and keeps the worker from being PID 1, so that the worker's own action
timer and its hard CPU limit kill it even when the host is stuck. A time-out removes the container (the running code with it); the next call
starts a fresh one with the agent's tools and variables replayed.
"""

from __future__ import annotations

import atexit
import contextlib
import weakref
from typing import Any

from smol_core.plugin_api import (
    WORKER_ENV,
    ExecutorUnavailableError,
    WorkerExecutor,
    WorkerLink,
    bundle_digest,
    bundle_frame,
    loader_command,
)
from smol_executor_docker import container_init, engine, image as image_module, smolagents_options
from smol_executor_docker.link import ContainerLink
from smol_executor_docker.raw_worker import RAW_WORKER

SCRATCH = "/tmp/scratch"
_LIVE: weakref.WeakSet[DockerExecutor] = weakref.WeakSet()


class DockerExecutor(WorkerExecutor):
    """Runs code in a hardened Docker container that keeps state between calls.

    image: any image with python3 >= 3.11 (`smol executor docker build` makes the default one).
    timeout_seconds: wall-clock limit of one action; past it the container is removed. None: none.
    logger: smolagents' second argument (an `AgentLogger`, or anything with `log(text)`): told when
        the executor starts. `additional_imports=` is smolagents' name for the authorized imports.
    mem_limit: the container's memory ("2g", "512m" or bytes); also the worker's address-space limit.
    cpus: CPU share (1.0 = one core). pids_limit: processes and threads. tmpfs_size: the scratch size.
    network: False (default) gives the container no network at all; True gives the engine's default
        network (the language layer still refuses sockets unless `socket` is authorized).
    python: the interpreter inside the image. docker_url: the engine (default: DOCKER_HOST or local).
    container_options: extra `containers.create` arguments (they override ours; use with care).
    unguarded_for_tests: runs a bare `exec` loop instead of the guarded worker, to test that the
        container's walls hold on their own. Never for untrusted code.

    smolagents' options (`smolagents_options.py`): `image_name` is `image`; `build_new_image=True`
    builds the image first (from `dockerfile_content`, else smol's Dockerfile), and
    `dockerfile_content` alone builds it when it is missing; `container_run_kwargs` gives the
    limits (`mem_limit`, `pids_limit`, `nano_cpus`, no network) and refuses the rest; `host` and
    `port` are refused (no port is published). Each refusal says what to use instead.
    """

    worker_start_timeout = 120.0  # a cold engine may take a while to create the first container

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        logger: Any = None,
        *,
        additional_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        image: str = engine.DEFAULT_IMAGE,
        timeout_seconds: float | None = 30,
        mem_limit: str | int = "2g",
        cpus: float | None = 1.0,
        pids_limit: int = 128,
        tmpfs_size: str = "256m",
        network: bool = False,
        python: str = "python3",
        docker_url: str | None = None,
        container_options: dict[str, Any] | None = None,
        os_sandbox: bool = True,
        unguarded_for_tests: bool = False,
        image_name: str | None = None,
        build_new_image: bool | None = None,
        dockerfile_content: str | None = None,
        container_run_kwargs: dict[str, Any] | None = None,
        host: str | None = None,
        port: int | None = None,
    ) -> None:
        smolagents_options.refuse_address(host, port)
        limits = smolagents_options.container_limits(container_run_kwargs)
        mem_limit, cpus = limits.get("mem_limit", mem_limit), limits.get("cpus", cpus)
        pids_limit, network = limits.get("pids_limit", pids_limit), limits.get("network", network)
        image, build = smolagents_options.image_choice(
            image, engine.DEFAULT_IMAGE, image_name, build_new_image, dockerfile_content
        )
        authorized = [*(additional_authorized_imports or []), *(additional_imports or [])]
        super().__init__(authorized, max_print_outputs_length, timeout_seconds)
        self.logger = logger
        if logger is not None:
            logger.log("Initializing executor, hold on...")
        self.image = image
        self.mem_limit = mem_limit
        self.cpus = cpus
        self.pids_limit = pids_limit
        self.tmpfs_size = tmpfs_size
        self.network = network
        self.python = python
        self.container_options = dict(container_options or {})
        self.os_sandbox = os_sandbox
        self.unguarded_for_tests = unguarded_for_tests
        self.client = engine.connect(docker_url)
        if build is not None and (build.always or not image_module.image_exists(self.client, image)):
            self._build_image(build)
        engine.require_image(self.client, image)
        engine.reap_orphans(self.client)
        self.container_id: str | None = None
        _LIVE.add(self)

    def _build_image(self, build: smolagents_options.ImageBuild) -> None:
        """smolagents' `build_new_image` / `dockerfile_content`: build the image the container runs
        (its CMD is not used: the container runs smol's worker, hardened as always)."""
        text = build.dockerfile if build.dockerfile is not None else image_module.dockerfile()
        log = self.logger.log if self.logger is not None else (lambda _line: None)
        image_module.build_dockerfile_text(self.client, self.image, text, log)

    # --- WorkerExecutor --------------------------------------------------------------------
    def open_link(self) -> WorkerLink:
        docker = engine.import_docker()
        command = ["python3", "-I", "-c", RAW_WORKER] if self.unguarded_for_tests else None
        try:
            container = self.client.api.create_container(
                **self._create_arguments(
                    container_init.wrap(command or loader_command(self.python), self.python)
                )
            )
            container_id = str(container["Id"])
            attached = self.client.api.attach_socket(
                container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            link = ContainerLink(self.client, container_id, attached)
            self.client.api.start(container_id)
        except docker.errors.DockerException as exc:
            if "container_id" in locals():
                with contextlib.suppress(Exception):
                    self.client.api.remove_container(container_id, force=True)
            raise ExecutorUnavailableError(
                f"Docker could not start a container from {self.image!r}: {engine._short(exc)}"
            ) from None
        self.container_id = container_id
        if not self.unguarded_for_tests:
            link.send_raw(bundle_frame())
        return link

    def describe_protections(self, reported: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
        return [*reported, ("container", True, self.walls())]

    def walls(self) -> str:
        """The container's own protections, in words (shown next to the worker's in `protections`)."""
        network = "engine's default network" if self.network else "no network"
        return (
            f"{network}, read-only root, {self.tmpfs_size} scratch tmpfs, memory {self.mem_limit}, "
            f"cpus {self.cpus}, pids {self.pids_limit}, user 65534, all capabilities dropped, "
            "no-new-privileges, an init that ends the container with its host, worker CPU hard limit "
            f"{container_init.cpu_seconds(self.timeout_seconds)}s"
        )

    def worker_config(self) -> dict[str, Any]:
        return {
            **self.common_worker_config(),
            "memory_limit_mb": _megabytes(self.mem_limit),
            "scratch": SCRATCH,
            "os_sandbox": self.os_sandbox,
            "expected_env": [*WORKER_ENV, "HOME", "TMPDIR", "HOSTNAME"],
        }

    def _create_arguments(self, command: list[str]) -> dict[str, Any]:
        host_config = self.client.api.create_host_config(
            network_mode="bridge" if self.network else "none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,noexec,size={self.tmpfs_size},mode=1777"},
            mem_limit=self.mem_limit,
            memswap_limit=self.mem_limit,  # no swap beyond the limit
            nano_cpus=int(self.cpus * 1e9) if self.cpus else None,
            pids_limit=self.pids_limit,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges:true"],
            ipc_mode="private",
            init=False,  # our own init (container_init): it also ends the container with its host
        )
        arguments: dict[str, Any] = {
            "image": self.image,
            "command": command,
            "user": "65534:65534",
            "working_dir": "/tmp",
            "environment": {
                **WORKER_ENV,
                "TMPDIR": SCRATCH,
                # read (and removed) by the container's init: the worker's hard CPU limit
                container_init.CPU_ENV: str(container_init.cpu_seconds(self.timeout_seconds)),
            },
            "stdin_open": True,  # with detach=False the SDK also sets StdinOnce: when the host's
            "detach": False,  # stream closes, the worker sees EOF and exits; an orphan ends on its own
            "use_config_proxy": False,  # the host's proxy settings are not the sandbox's business
            "tty": False,
            "hostname": "sandbox",
            "network_disabled": not self.network,
            "labels": {**engine.owner_labels(), "smol.worker": bundle_digest()},
            "host_config": host_config,
        }
        arguments.update(self.container_options)
        return arguments

    def close(self) -> None:
        with self._lock:
            super().close()
            self.container_id = None
        _LIVE.discard(self)


def _megabytes(limit: str | int) -> int:
    """`"2g"`, `"512m"`, `"1024k"` or bytes, in MiB (the worker's address-space rlimit)."""
    if isinstance(limit, int):
        return max(1, limit // (1024 * 1024))
    text = limit.strip().lower().removesuffix("b")
    units = {"k": 1 / 1024, "m": 1, "g": 1024}
    if text and text[-1] in units:
        return max(1, int(float(text[:-1]) * units[text[-1]]))
    return max(1, int(text) // (1024 * 1024))


@atexit.register
def _close_all() -> None:
    """Remove every container this process still holds (normal interpreter exit)."""
    for executor in list(_LIVE):
        with contextlib.suppress(Exception):
            executor.close()
