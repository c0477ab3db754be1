"""Workers forked from the warm template, and ready spares: faster starts that give nothing away.

Each test here would pass against spawned workers too, except where it checks that the fast path
was taken; what matters is that the walls, the settings and the separation between executors are
the same whichever way a worker was made.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from smol_core.executors.host import template as template_module
from smol_core.executors.host.process import TEMPLATE, WorkerProcess, new_worker
from smol_core.executors.host.ready_spares import READY_SPARES
from smol_core.executors.host.template import ForkedProcess
from smol_core.executors.local import LocalPythonExecutor

pytestmark = pytest.mark.skipif(
    not template_module.templates_supported(), reason="the template needs Linux with pidfds"
)


@pytest.fixture
def template() -> Iterator[None]:
    assert TEMPLATE.wait_until_serving(), "the worker template did not start"
    yield


def _wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _ready_spare_count(executor: LocalPythonExecutor) -> int:
    return len(READY_SPARES._ready.get(executor._ready_spare_key(), []))


def test_a_forked_worker_reports_the_same_walls_as_a_spawned_one(template, make_executor, monkeypatch):
    forked = make_executor(["json"])
    forked.wait_until_ready()
    monkeypatch.setattr(READY_SPARES, "enabled", False)
    monkeypatch.setattr(TEMPLATE, "enabled", False)
    monkeypatch.setattr("smol_core.executors.host.process.POOL.take", lambda: WorkerProcess())
    spawned = make_executor(["json"])
    spawned.wait_until_ready()
    assert isinstance(forked._proc.popen, ForkedProcess)
    assert not isinstance(spawned._proc.popen, ForkedProcess)

    def layers(executor: LocalPythonExecutor) -> list[tuple[str, bool]]:
        return [(name, active) for name, active, _ in executor.protections]

    assert layers(forked) == layers(spawned)
    assert forked("import json\njson.dumps([1])").output == "[1]"


def test_workers_forked_from_one_template_share_no_state(template, make_executor):
    """Each child starts from the template's clean memory, and the generators are reseeded."""
    first = make_executor(["random"])
    first("import random\nimport math\nmath.tau = 0\nrandom.seed(7)\nleft_behind = 1")
    second = make_executor(["random"])
    assert isinstance(second._proc.popen, ForkedProcess)
    assert second("import math\nmath.tau").output == pytest.approx(6.283185307179586)
    assert "left_behind" not in second.state
    draws = [make_executor(["random"])("import random\nrandom.random()").output for _ in range(3)]
    assert len(set(draws)) == 3


def test_the_code_cannot_reach_its_template(template, make_executor):
    """The template is the worker's parent: it may not be signalled, traced or read from the code."""
    executor = make_executor(["os"])
    executor.wait_until_ready()
    template_pid = TEMPLATE._process.pid
    attempts = {
        "kill": f"import os\nos.kill({template_pid}, 9)",
        "proc memory": f"open('/proc/{template_pid}/mem', 'rb').read(1)",
        "proc environ": f"open('/proc/{template_pid}/environ', 'rb').read()",
    }
    for name, code in attempts.items():
        with pytest.raises(Exception):  # noqa: B017, PT011 - each is refused, each in its own way
            executor(code)
        assert TEMPLATE._process.poll() is None, f"{name} reached the template"


def test_workers_die_with_their_template_and_a_new_template_takes_over(template, make_executor):
    executor = make_executor()
    executor("x = 1")
    worker = executor._proc.popen
    assert isinstance(worker, ForkedProcess)
    os.kill(TEMPLATE._process.pid, signal.SIGKILL)
    assert worker.wait(timeout=10) == -signal.SIGKILL
    with pytest.raises(Exception, match="died"):
        executor("x")
    assert executor("1 + 1").output == 2  # on a spawned worker while the template restarts
    assert TEMPLATE.wait_until_serving()
    assert isinstance(new_worker().popen, ForkedProcess)


def test_a_worker_forked_from_the_template_reports_how_it_died(template):
    worker = new_worker()
    assert isinstance(worker.popen, ForkedProcess)
    os.kill(worker.pid, signal.SIGKILL)
    worker.popen.wait(timeout=10)
    assert "killed by SIGKILL" in worker.exit_description()
    worker.close()


def test_a_fresh_executor_takes_a_ready_spare_with_its_own_scratch(template, make_executor):
    first = make_executor(["json"])
    first("1")
    _wait_until(lambda: _ready_spare_count(first) >= 1)
    second = make_executor(["json"])
    assert second._awaiting == [], "it took a worker that was already ready"
    assert second._scratch != first._scratch and os.path.isdir(second._scratch)
    assert second("import json\njson.dumps(2)").output == "2"
    assert [layer[:2] for layer in second.protections] == [layer[:2] for layer in first.protections]


def test_a_ready_spare_only_serves_the_exact_same_settings(template, make_executor):
    with_json = make_executor(["json"])
    with_json("1")
    _wait_until(lambda: _ready_spare_count(with_json) >= 1)
    without = make_executor([])
    with pytest.raises(Exception, match="json"):
        without("import json")
    other_limit = make_executor(["json"], memory_limit_mb=2048)
    assert other_limit._ready_spare_key() != with_json._ready_spare_key()
    assert other_limit("import json\njson.dumps(3)").output == "3"


def test_a_ready_spare_that_died_while_waiting_is_not_handed_out(template, make_executor):
    first = make_executor(["json"])
    first("1")
    _wait_until(lambda: _ready_spare_count(first) >= 1)
    spare = READY_SPARES._ready[first._ready_spare_key()][0]
    os.kill(spare.link.pid, signal.SIGKILL)
    spare.link.popen.wait(timeout=10)
    taker = make_executor(["json"])
    assert taker("import json\njson.dumps(4)").output == "4"
    assert not os.path.exists(spare.scratch), "the dead spare's scratch folder was left behind"


def _dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ", 1)[1].startswith(("Z", "X")):
                    return True
        except (FileNotFoundError, ProcessLookupError):  # gone between the open and the read: ESRCH
            return True
        time.sleep(0.01)
    return False


def test_a_shared_template_serves_other_processes_of_the_user(template, tmp_path):
    """A team's agents fork their workers from the launcher's template: those workers are sandboxed
    like any other, and end with the agent process that asked for them."""
    path = TEMPLATE.share()
    assert path is not None and os.stat(os.path.dirname(path)).st_mode & 0o077 == 0
    agent = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from smol_core.executors.host.process import TEMPLATE\n"
            "from smol_core.executors.local import LocalPythonExecutor\n"
            "from smol_core.executors.host.template import ForkedProcess\n"
            "assert TEMPLATE.join(sys.argv[1])\n"
            "ex = LocalPythonExecutor([])\n"
            "assert ex('1 + 1').output == 2\n"
            "assert isinstance(ex._proc.popen, ForkedProcess)\n"
            "print(ex._proc.pid, flush=True)\n"
            "import os; os._exit(0)\n",  # no clean-up: the worker must end with this process anyway
            path,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SMOL_EXECUTOR_PREWARM": "0"},
    )
    assert agent.returncode == 0, agent.stderr
    worker_pid = int(agent.stdout.split()[-1])
    assert _dead(worker_pid), "a worker outlived the agent process it was forked for"


def test_workers_of_a_peer_that_leaves_at_once_are_killed_too(template):
    """A peer that ends right after asking for workers: each was forked a moment before and may not
    have made its own process group yet; killing the group alone missed it, and it ran on."""
    from smol_core.executors.host.process import _SRC_ROOT, WORKER_ENV
    from smol_core.executors.host.template import WorkerTemplate

    path = TEMPLATE.share()
    assert path is not None
    forked = []
    for _ in range(3):
        peer = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
        assert peer.join(path)
        forked += [WorkerProcess(template=peer).pid for _ in range(4)]
        peer._forget()  # at once
    assert [pid for pid in forked if not _dead(pid)] == []


def test_a_joined_connection_forks_and_reaps_only_its_own_workers(template):
    from smol_core.executors.host.process import _SRC_ROOT, WORKER_ENV
    from smol_core.executors.host.template import WorkerTemplate

    path = TEMPLATE.share()
    assert path is not None
    peer = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
    assert peer.join(path)
    own = WorkerProcess(template=peer)
    other = WorkerProcess(template=TEMPLATE)
    assert peer.reap(other.pid) is None, "a peer reaped a worker it did not ask for"
    peer._forget()  # the peer's connection closes: its workers are killed
    assert _dead(own.pid)
    assert other.alive()
    other.close()


def test_a_template_is_shared_even_from_a_deep_temporary_directory(monkeypatch, tmp_path):
    """A Unix socket's address holds 108 bytes: a TMPDIR deep in a job's folder must not stop sharing."""
    from smol_core.executors.host import template as template_module
    from smol_core.executors.host.process import _SRC_ROOT, WORKER_ENV
    from smol_core.executors.host.template import WorkerTemplate

    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    monkeypatch.setattr(template_module.tempfile, "tempdir", str(deep))
    sharing = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
    try:
        path = sharing.share()
        assert path is not None and len(path.encode()) < 108
        peer = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
        assert peer.join(path)
        worker = WorkerProcess(template=peer)
        assert worker.alive()
        worker.close()
        peer.shutdown()
    finally:
        sharing.shutdown()


def test_a_sharing_process_may_hold_only_a_few_workers(template):
    """A peer cannot fill the machine through the template: past its share it is refused (and
    would start its own workers), while the host's own forks go on."""
    from smol_core.executors.host.process import _SRC_ROOT, WORKER_ENV
    from smol_core.executors.host.template import WorkerTemplate
    from smol_core.executors.worker.template import MAX_WORKERS_PER_PEER

    path = TEMPLATE.share()
    assert path is not None
    peer = WorkerTemplate(_SRC_ROOT, WORKER_ENV)
    assert peer.join(path)
    held = [WorkerProcess(template=peer) for _ in range(MAX_WORKERS_PER_PEER)]
    try:
        with pytest.raises(OSError, match="answered"):
            WorkerProcess(template=peer)
        own = WorkerProcess(template=TEMPLATE)
        assert own.alive()
        own.close()
    finally:
        for worker in held:
            worker.close()
        peer.shutdown()


def test_whether_others_can_read_a_root_is_asked_once_per_process_and_forks_inherit_it(tmp_path, monkeypatch):
    """Every worker asks it of the same read roots (a realpath and a stat per parent folder); the
    template asks at warm-up, and what it found is its forks' answer."""
    from smol_core.executors.worker import sandbox

    monkeypatch.setattr(sandbox, "_READABLE_BY_OTHERS", {})
    asked: list[str] = []
    real = sandbox._check_others_can_read
    monkeypatch.setattr(sandbox, "_check_others_can_read", lambda path: asked.append(path) or real(path))
    open_root, closed_root = tmp_path / "open", tmp_path / "closed"
    open_root.mkdir(mode=0o755)
    closed_root.mkdir(mode=0o700)
    roots = [str(open_root), str(closed_root)]
    first = sandbox.all_readable_by_others(roots)
    assert asked == roots  # both asked, though the answer was known after one: each is kept
    assert sandbox.all_readable_by_others(roots) is first
    assert [sandbox._others_can_read(root) for root in roots] == [real(str(open_root)), False]
    assert asked == roots  # kept: not asked again
