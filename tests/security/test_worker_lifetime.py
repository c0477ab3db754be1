"""Time and lifetime belong to the kernel: the worker stops itself past its action's limit, dies with
its host, cannot keep threads past an action, and a reset leaves nothing of one run to the next."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from security_helpers import assert_host_untouched

from smol_core.executors.base import InterpreterError
from smol_core.executors.local import LocalPythonExecutor
from smol_core.executors.worker.framing import FrameReader, read_message, write_message
from smol_core.executors.worker.protocol import encode
from smol_core.testing.processes import cpu_seconds


def _gone(pid: int) -> bool:
    """Exited (a zombie waiting for a reaper counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


# --- a raw worker, driven as the host would, but a host that never kills it ----------------------
class RawWorker:
    def __init__(self, scratch: Path, **config: object) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smol_core.executors.worker.main"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.w, self.r = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.reader: FrameReader = FrameReader()
        self.pending: list[dict] = []
        self.send({"op": "config", "authorized_imports": [], "scratch": str(scratch), **config})
        assert self.recv(60)["op"] == "ready"

    def send(self, message: dict) -> None:
        write_message(self.w, message)

    def recv(self, within: float) -> dict:
        ready, _, _ = select.select([self.r], [], [], within)
        assert ready, "the worker said nothing in time"
        return read_message(self.r, self.reader, self.pending)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def raw_worker(tmp_path) -> Iterator[type[RawWorker]]:
    made: list[RawWorker] = []

    def make(**config: object) -> RawWorker:
        worker = RawWorker(tmp_path, **config)
        made.append(worker)
        return worker

    yield make  # type: ignore[misc]
    for worker in made:
        worker.close()


RUNAWAYS = [
    ("python_loop", [], "while True:\n    pass"),
    ("c_loop_holding_the_gil", [], "sum(range(10 ** 14))"),
    ("sleep_forever", ["time"], "import time\ntime.sleep(10 ** 6)"),
    (
        "ignores_sigxcpu_and_alarm",
        ["signal"],
        "import signal\nfor s in (signal.SIGXCPU, signal.SIGALRM, signal.SIGTERM):\n"
        "    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass",
    ),
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux kernel timers")
@pytest.mark.parametrize(("authorized", "code"), [c[1:] for c in RUNAWAYS], ids=[c[0] for c in RUNAWAYS])
def test_worker_stops_itself_past_the_time_limit(raw_worker, authorized, code):
    worker = raw_worker(timeout_seconds=1, authorized_imports=authorized)
    worker.send({"op": "run", "code": code})
    # the host never kills it: the worker's own clock must (budget: 1s + 2s of grace)
    assert _wait_gone(worker.proc.pid, 30), "the worker ran past its time limit with nobody to kill it"
    assert worker.proc.wait() in (-signal.SIGKILL, -signal.SIGXCPU)


def test_time_in_host_tools_does_not_count(raw_worker):
    worker = raw_worker(timeout_seconds=1)
    worker.send({"op": "tools", "tools": [{"name": "slow", "is_async": False, "doc": ""}]})
    assert worker.recv(10)["op"] == "done"
    worker.send({"op": "run", "code": "slow()\n'finished'"})
    call = worker.recv(10)
    assert call["op"] == "tool_call"
    time.sleep(4)  # longer than the worker's whole budget
    worker.send({"op": "tool_result", "id": call["id"], "ok": True, "value": encode(None)})
    done = worker.recv(10)
    assert done["op"] == "done" and done["output"] == "finished"


# --- dying with the host -----------------------------------------------------------------------------
HOST = """
import sys, threading, time
from smol_core.executors.local import LocalPythonExecutor
ex = LocalPythonExecutor(["os"], timeout_seconds=None)
pid = ex("import os\\nos.getpid()").output
threading.Thread(target=lambda: ex("while True:\\n    pass"), daemon=True).start()
print(pid, ex._scratch, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux")
def test_kill_9_of_the_host_kills_the_worker():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    host = subprocess.Popen([sys.executable, "-c", HOST], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert host.stdout is not None
        pid_text, scratch = host.stdout.readline().split()
        worker_pid = int(pid_text)
        idle = cpu_seconds(worker_pid)
        end = time.monotonic() + 60
        while cpu_seconds(worker_pid) - idle < 0.3 and time.monotonic() < end:
            time.sleep(0.02)  # until the worker is busy in its endless loop, not reading its channel
        assert not _gone(worker_pid)
        assert cpu_seconds(worker_pid) - idle >= 0.3, "the worker never started its loop"
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        assert _wait_gone(worker_pid, 30), "the worker outlived its host"  # at once; the bound is on a hang
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    shutil.rmtree(scratch, ignore_errors=True)  # a host killed outright cannot remove it itself


# --- threads the code leaves behind ------------------------------------------------------------------
THREAD_LEFTOVERS = [
    (
        "sleeping_thread",
        "import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n'ok'",
    ),
    (
        "spinning_daemon_thread",
        "import threading\nthreading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()\n'ok'",
    ),
]


@pytest.mark.parametrize("code", [c[1] for c in THREAD_LEFTOVERS], ids=[c[0] for c in THREAD_LEFTOVERS])
def test_threads_left_running_end_the_worker(executors, host_canary, code):
    ex = LocalPythonExecutor(["threading"], timeout_seconds=10, memory_limit_mb=1024)
    try:
        ex("kept = 1")
        with pytest.raises(InterpreterError) as info:
            out = ex(code)
            pytest.fail(f"a thread outlived its action: output={out.output!r}")
        assert "thread" in str(info.value)
        assert_host_untouched(host_canary)
        assert ex("sum(range(4))").output == 6  # a fresh worker
        assert ex("'kept' in dir()").output is False
    finally:
        ex.close()


# --- reset: nothing of one run reaches the next ------------------------------------------------------
def test_reset_forgets_changed_module_views(host_canary):
    ex = LocalPythonExecutor(["math"], timeout_seconds=10, memory_limit_mb=1024)
    try:
        assert ex("import math\nmath.pi = 3\nmath.pi").output == 3
        ex.reset()
        assert ex("import math\nmath.pi").output == pytest.approx(3.14159, abs=1e-4)
    finally:
        ex.close()


def test_reset_restores_the_builtins(host_canary):
    ex = LocalPythonExecutor(["builtins"], timeout_seconds=10, memory_limit_mb=1024)
    try:
        ex("import builtins\nbuiltins.leak = 1\nbuiltins.len = lambda x: -1\nx = 5")
        ex.reset()
        out = ex("import builtins\n(hasattr(builtins, 'leak'), builtins.len is len, len([1]), 'x' in dir())")
        assert out.output == (False, True, 1, False)
    finally:
        ex.close()
