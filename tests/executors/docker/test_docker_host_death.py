"""A container dies with its host, and never outlives its action's limit.

The attack (seen): a host SIGKILLed mid-action left its container running 32 s and 59 s later, past
the action's limit, until a later executor start reaped it: the worker was PID 1, which ignores its
own timer's SIGKILL and the CPU limit's signals, and its die-with-host watch cannot see a host
outside the container. Here a real host process starts a real container, is SIGKILLed, and the
container must stop running on its own (nothing reaps it in these tests).
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time

import docker.errors
import pytest

from smol_core.executors.base import ExecutionTimeoutError

STOP_BOUND_SECONDS = 20.0
"""A bound on a hang, not a timing: the container is expected to stop within a second or two."""


def _running(client, container_id: str) -> bool:
    found = client.api.containers(all=True, filters={"id": container_id})
    return bool(found) and found[0].get("State") == "running"


def _host(action: str, timeout_seconds: float = 600) -> subprocess.Popen:
    """A host process that starts a container, prints its id, then runs `action` in it (blocking)."""
    script = textwrap.dedent(
        f"""
        from smol_executor_docker import DockerExecutor
        ex = DockerExecutor(timeout_seconds={timeout_seconds!r})
        ex("1")
        print(ex.container_id, flush=True)
        ex({action!r})
        """
    )
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)


def _stops_on_its_own(client, container_id: str) -> bool:
    end = time.monotonic() + STOP_BOUND_SECONDS
    while time.monotonic() < end:
        if not _running(client, container_id):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(
    "action",
    [
        "while True:\n    pass",  # spinning in the action, far from its limit
        "import time\ntime.sleep(500)",  # blocked in a sleep
        "1",  # idle between actions
    ],
    ids=["busy", "sleeping", "idle"],
)
def test_a_sigkilled_host_takes_its_container_with_it(make_docker, action):
    client = make_docker(timeout_seconds=5).client
    host = _host(action if action != "1" else "import time\ntime.sleep(0)")
    container_id = host.stdout.readline().strip()
    assert container_id and _running(client, container_id)
    if action != "1":
        time.sleep(1.0)  # the action is under way inside the container
    os.kill(host.pid, signal.SIGKILL)  # no close, no atexit: the process is simply gone
    host.wait()
    try:
        assert _stops_on_its_own(client, container_id), "the container outlived its host"
    finally:
        with contextlib.suppress(docker.errors.NotFound):  # gone already: removed with its end
            client.api.remove_container(container_id, force=True)


def test_the_worker_is_not_pid_1_and_has_a_hard_cpu_limit(make_docker):
    ex = make_docker(unguarded_for_tests=True, timeout_seconds=30)
    ex("import os, resource\nresult = [os.getpid(), resource.getrlimit(resource.RLIMIT_CPU)]")
    pid, (soft, hard) = ex("result = [os.getpid(), resource.getrlimit(resource.RLIMIT_CPU)]").output
    assert pid != 1
    assert hard != resource.RLIM_INFINITY and hard > 0
    walls = dict((name, detail) for name, _, detail in ex.protections)["container"]
    assert "ends the container with its host" in walls and f"hard limit {hard}s" in walls
    # code that escaped every guard still cannot lift the hard limit
    out = ex(
        "try:\n"
        "    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "    result = 'lifted'\n"
        "except (ValueError, OSError) as e:\n"
        "    result = 'refused'\n"
    ).output
    assert out == "refused"


def test_the_workers_own_sigkill_works_inside_the_container(make_docker):
    """PID 1 ignored signals without a handler, SIGKILL included: the worker's own timer did nothing.
    Now a SIGKILL the worker sends itself ends it at once (the host reports a dead worker, not a
    time-out)."""
    ex = make_docker(unguarded_for_tests=True, timeout_seconds=120)
    ex("x = 1")
    old = ex.container_id
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        ex("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\nwhile True:\n    pass")
    assert not isinstance(caught.value, ExecutionTimeoutError)
    assert time.monotonic() - started < 100  # a bound on a hang: it did not wait for the time-out
    assert ex("result = 2").output == 2
    assert ex.container_id != old


def test_a_stuck_host_does_not_keep_its_container_past_the_action_limit(make_docker):
    """The host is alive but frozen (SIGSTOP): it cannot enforce the limit, so the worker's own
    timer must, and the container ends with its worker."""
    client = make_docker(timeout_seconds=5).client
    host = _host("while True:\n    pass", timeout_seconds=3)
    container_id = host.stdout.readline().strip()
    try:
        time.sleep(0.5)
        os.kill(host.pid, signal.SIGSTOP)
        assert _stops_on_its_own(client, container_id), "the container ran on past its action's limit"
    finally:
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        client.api.remove_container(container_id, force=True)
