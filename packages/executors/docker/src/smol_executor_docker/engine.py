"""Reaching the Docker engine: the SDK imported lazily, clear errors, and the labels that prevent leaks.

Why labels: a host process that crashes (SIGKILL, power loss) cannot remove its containers. Each
container carries the owner's host name, process id and process start time; whenever an executor
starts, containers whose owner on this host is gone are removed. A container whose host link closes
also exits on its own (stdin_once), so an orphan holds no CPU while it waits to be reaped.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from typing import Any

from smol_core.plugin_api import ExecutorUnavailableError, install_hint

LABEL = "smol.executor"
LABEL_VALUE = "docker"
LABEL_HOST = "smol.owner.host"
LABEL_PID = "smol.owner.pid"
LABEL_STARTED = "smol.owner.started"

DEFAULT_IMAGE = "smol-executor:1"
"""The image `smol executor docker build` makes: Debian or python-slim with python3 >= 3.11, nothing else."""

BUILD_HINT = (
    "Build it with `smol executor docker build` (pulls python:3.11-slim from a registry) or, on a "
    "machine without a registry, `sudo smol executor docker build --from-rootfs` (debootstrap); or pass "
    "image= any image that has python3 >= 3.11."
)

_reaped: set[str] = set()
_reap_lock = threading.Lock()


def import_docker() -> Any:
    """The `docker` SDK, or an error that says how to install it."""
    try:
        import docker
    except ImportError:
        raise ExecutorUnavailableError(
            f"The Docker executor needs the `docker` Python SDK, a dependency of smol-executor-docker: "
            f"{install_hint('docker')}"
        ) from None
    return docker


def connect(base_url: str | None = None, timeout: float = 60) -> Any:
    """A client for the engine at `base_url` (default: DOCKER_HOST or the local socket), checked alive."""
    docker = import_docker()
    where = base_url or os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
    try:
        client = (
            docker.DockerClient(base_url=base_url, timeout=timeout)
            if base_url
            else docker.from_env(timeout=timeout)
        )
        client.ping()
    except docker.errors.DockerException as exc:
        raise ExecutorUnavailableError(
            f"The Docker engine is not reachable at {where} ({_short(exc)}). Start it (`sudo systemctl "
            "start docker`, Docker Desktop, or `sudo dockerd &`), or point DOCKER_HOST at a running engine."
        ) from None
    return client


def require_image(client: Any, image: str) -> None:
    """Fail early, with the fix, when `image` is not on the engine (we never pull implicitly)."""
    docker = import_docker()
    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        raise ExecutorUnavailableError(
            f"The Docker image {image!r} is not on this engine. {BUILD_HINT}"
        ) from None
    except docker.errors.APIError as exc:
        raise ExecutorUnavailableError(
            f"The Docker engine failed to inspect {image!r}: {_short(exc)}"
        ) from None


def owner_labels() -> dict[str, str]:
    """Labels naming this process as the owner of a container."""
    return {
        LABEL: LABEL_VALUE,
        LABEL_HOST: socket.gethostname(),
        LABEL_PID: str(os.getpid()),
        LABEL_STARTED: _process_started(os.getpid()) or "",
    }


def reap_orphans(client: Any, force: bool = False) -> int:
    """Remove smol containers whose owning process (on this host) is gone. Once per engine per process.

    Returns how many were removed. Containers of other hosts sharing the engine are left alone.
    """
    key = str(getattr(client.api, "base_url", ""))
    with _reap_lock:
        if key in _reaped and not force:
            return 0
        _reaped.add(key)
    docker = import_docker()
    removed = 0
    host = socket.gethostname()
    try:
        containers = client.api.containers(all=True, filters={"label": f"{LABEL}={LABEL_VALUE}"})
    except docker.errors.APIError:
        return 0
    for info in containers:
        labels = info.get("Labels") or {}
        if labels.get(LABEL_HOST) != host or _owner_alive(labels):
            continue
        with contextlib.suppress(docker.errors.APIError):
            client.api.remove_container(info["Id"], force=True)
            removed += 1
    return removed


def _owner_alive(labels: dict[str, str]) -> bool:
    try:
        pid = int(labels.get(LABEL_PID, ""))
    except ValueError:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, someone else's
    started = labels.get(LABEL_STARTED)
    return not started or _process_started(pid) in (None, started)  # a reused pid is not the owner


def _process_started(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid from the owner."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."
