"""The container's life: lazy start, reuse, removal on close/exit/time-out, reaping after a crash."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from smol_core.executors.base import ExecutionTimeoutError


def _exists(client, container_id: str) -> bool:
    return bool(client.api.containers(all=True, filters={"id": container_id}))


def test_starts_on_first_use_and_is_reused(make_docker):
    ex = make_docker()
    assert ex.container_id is None  # nothing started yet
    ex("a = 1")
    first = ex.container_id
    ex.send_tools({"t": lambda: 2})
    ex("a + t()")
    assert ex.container_id == first
    labels = ex.client.api.inspect_container(first)["Config"]["Labels"]
    assert labels["smol.executor"] == "docker"


def test_container_settings(make_docker):
    ex = make_docker(mem_limit="300m", cpus=0.5, pids_limit=50)
    ex("1")
    host = ex.client.api.inspect_container(ex.container_id)["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"]
    assert "no-new-privileges:true" in host["SecurityOpt"]
    assert host["Memory"] == 300 * 1024 * 1024
    assert host["NanoCpus"] == 500_000_000
    assert host["PidsLimit"] == 50
    assert any(name == "container" for name, _, _ in ex.protections)


def test_close_removes_the_container(make_docker):
    ex = make_docker()
    ex("1")
    container_id = ex.container_id
    ex.close()
    assert not _exists(ex.client, container_id)


def test_timeout_replaces_the_container(make_docker):
    ex = make_docker(timeout_seconds=1)
    ex("x = 1")
    old = ex.container_id
    started = time.monotonic()
    with pytest.raises(ExecutionTimeoutError):
        ex("while True:\n    pass")
    assert time.monotonic() - started < 60  # stopped and removed, not left running (a bound on a hang)
    assert not _exists(ex.client, old)
    assert ex("2 + 2").output == 4
    assert ex.container_id != old


def _child(code: str) -> subprocess.Popen:
    script = (
        textwrap.dedent(
            """
        import sys
        from smol_executor_docker import DockerExecutor
        ex = DockerExecutor()
        ex("1")
        print(ex.container_id, flush=True)
        """
        )
        + code
    )
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)


def test_exit_without_close_removes_the_container(make_docker):
    child = _child("")  # interpreter exits normally: atexit removes it
    container_id = child.stdout.readline().strip()
    assert child.wait(timeout=60) == 0
    assert not _exists(make_docker(timeout_seconds=5).client, container_id)


def test_a_crashed_owner_leaks_nothing(make_docker):
    from smol_executor_docker import engine

    child = _child("import time\ntime.sleep(600)\n")
    container_id = child.stdout.readline().strip()
    child.kill()  # SIGKILL: no atexit, no close
    child.wait()
    ex = make_docker()
    engine.reap_orphans(ex.client, force=True)  # what the next start does (once per process)
    assert not _exists(ex.client, container_id)


def test_live_owners_are_not_reaped(make_docker):
    from smol_executor_docker import engine

    ex = make_docker()
    ex("1")
    engine.reap_orphans(ex.client, force=True)
    assert _exists(ex.client, ex.container_id)
    assert ex("2").output == 2
