"""What a run killed outright leaves behind (with its janitor: a SIGKILL of its whole process group)
is removed by a later run's sweep, and nothing alive is: smol's folders whose owner process is gone,
fork-server folders whose socket nobody listens on, named semaphores no process maps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core import leftovers
from smol_core.executors.host import scratch
from smol_core.janitor import private_folder
from smol_core.leftovers import GRACE_SECONDS, OWNED_PREFIXES, owned_prefix, sweep, sweep_semaphores

pytestmark = pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="needs Linux's /proc")


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def make_old(path: Path) -> None:
    """As if made before the sweep's grace period (a semaphore or a fork server's folder is made a
    moment before it is mapped or listened on, so young ones are never swept)."""
    then = time.time() - GRACE_SECONDS - 5
    os.utime(path, (then, then), follow_symlinks=False)


HOLDER = """
import multiprocessing, os, sys, time
from multiprocessing import forkserver, util
sys.stdout.write(os.environ["SMOL_TEST_WHAT"] + " ")
if os.environ["SMOL_TEST_WHAT"] == "semaphore":
    lock = multiprocessing.get_context("spawn").Lock()  # a named semaphore, unlinked only at exit
    print("/dev/shm/sem." + lock._semlock.name.lstrip("/"), flush=True)
else:
    forkserver.ensure_running()  # its listening socket lives in a pymp-* folder of its own
    print(util.get_temp_dir(), flush=True)
time.sleep(600)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[object]:
    """Starts a process (in a session of its own, with its helpers) that holds a semaphore or a
    fork server; returns what it holds and a function that SIGKILLs its whole group."""
    started: list[subprocess.Popen[str]] = []

    def start(what: str) -> tuple[Path, subprocess.Popen[str]]:
        env = {**os.environ, "SMOL_TEST_WHAT": what, "TMPDIR": str(tmp_path)}
        process = subprocess.Popen(
            [sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        started.append(process)
        assert process.stdout is not None
        said = process.stdout.readline().split()
        assert said[0] == what, said
        return Path(said[1]), process

    yield start
    for process in started:
        kill_group(process)


def kill_group(process: subprocess.Popen[str]) -> None:
    """SIGKILL of the whole group (an OOM kill of a cgroup, `docker kill`): the resource tracker and
    any janitor die too, so nothing cleans up."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)
    time.sleep(0.2)  # the group's other members (the resource tracker) are reaped by init


def test_smol_folders_of_dead_owners_go_and_the_others_stay(tmp_path: Path) -> None:
    orphans = [tmp_path / f"{prefix}{dead_pid()}-abc" for prefix in OWNED_PREFIXES]
    for orphan in orphans:
        orphan.mkdir()
        (orphan / "left.txt").write_text("x")
        make_old(orphan)
    mine = tmp_path / f"smol-team-{os.getpid()}-def"
    init = tmp_path / "smol-scratch-1-ghi"  # pid 1 runs: not an orphan
    unrelated = tmp_path / "smol-team-nopid"  # a name without an owner: nobody to ask, left alone
    target = tmp_path / "elsewhere"
    for folder in (mine, init, unrelated, target):
        folder.mkdir()
    link = tmp_path / f"smol-template-{dead_pid()}-link"
    link.symlink_to(target)
    assert sorted(sweep(str(tmp_path), shared_memory=str(tmp_path / "no-shm"))) == sorted(map(str, orphans))
    assert all(path.exists() for path in (mine, init, unrelated, target, link))


def test_a_semaphore_nobody_maps_goes_and_a_mapped_one_stays(holder) -> None:
    dead, process = holder("semaphore")
    live, _ = holder("semaphore")
    assert dead.exists() and live.exists()
    kill_group(process)
    assert dead.exists(), "the killed group's resource tracker unlinked it: nothing left to test"
    for path in (dead, live):
        make_old(path)
    assert str(dead) in sweep_semaphores()
    assert not dead.exists() and live.exists()


def test_a_young_semaphore_is_left_for_later(holder) -> None:
    """Made a moment ago: its maker may not have mapped it yet."""
    dead, process = holder("semaphore")
    kill_group(process)
    assert str(dead) not in sweep_semaphores() and dead.exists()
    dead.unlink()


def test_a_fork_server_folder_nobody_listens_in_goes_and_a_live_one_stays(holder, tmp_path: Path) -> None:
    dead, process = holder("fork-server")
    live, _ = holder("fork-server")
    kill_group(process)
    assert any(path.is_socket() for path in dead.iterdir()), "the fork server left no socket"
    for path in (dead, live):
        make_old(path)
    removed = sweep(str(tmp_path), shared_memory=str(tmp_path / "no-shm"))
    assert removed == [str(dead)]
    assert live.exists()


def test_a_folder_without_a_socket_is_never_taken_for_a_dead_fork_server(tmp_path: Path) -> None:
    """multiprocessing makes its pymp-* folder before it knows what goes in it: nothing proves it dead."""
    empty = tmp_path / "pymp-empty"
    empty.mkdir()
    make_old(empty)
    assert sweep(str(tmp_path), shared_memory=str(tmp_path / "no-shm")) == [] and empty.exists()


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(leftovers, "_last_sweep", None)
    return tmp_path


def test_every_folder_smol_makes_names_its_owner(private_tmp: Path) -> None:
    made = Path(scratch.make_scratch())
    assert made.parent == private_tmp and made.name.startswith(f"smol-scratch-{os.getpid()}-")
    with private_folder("smol-team-") as folder:
        assert Path(folder).name.startswith(f"smol-team-{os.getpid()}-")
    with pytest.raises(ValueError, match="not one of the prefixes"):
        owned_prefix("smol-other-")


def test_runs_sweep_at_most_once_a_minute(private_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every executor makes a scratch folder and every team a private one; listing a busy /tmp and
    every process's memory map for each would be their slowest part."""
    sweeps: list[str | None] = []
    monkeypatch.setattr(leftovers, "sweep", lambda temporary=None: sweeps.append(temporary) or [])
    for _ in range(3):
        scratch.make_scratch()
        with private_folder("smol-team-"):
            pass
    assert len(sweeps) == 1
    monkeypatch.setattr(leftovers, "_last_sweep", time.monotonic() - leftovers.SWEEP_INTERVAL_SECONDS - 1)
    scratch.make_scratch()
    assert len(sweeps) == 2
