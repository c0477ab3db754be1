"""A durable run killed with SIGKILL, at a step boundary or in the middle of a step, then resumed in
another process: the same answer and final namespace as a run never interrupted, and every model
call of the script made exactly once across both processes (none repeated for checkpointed steps)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from smol_core.durable import RunLockedError, SQLiteStore

SCRIPT = Path(__file__).with_name("scripted_run.py")
CALLS = 6  # len(scripted_run.SCRIPT)


def _start(tmp_path: Path, mode: str, result: str, pause_at: int = -1) -> subprocess.Popen[bytes]:
    args = [
        str(tmp_path / "runs.sqlite3"),
        "job-1",
        mode,
        str(tmp_path / "calls.log"),
        str(tmp_path / result),
    ]
    return subprocess.Popen([sys.executable, str(SCRIPT), *args, str(pause_at)], stderr=subprocess.PIPE)


def _finish(process: subprocess.Popen[bytes]) -> None:
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 0, stderr.decode()[-3000:]


def _wait_for(path: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 240
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before it paused: {process.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the run never reached its pause"
        time.sleep(0.05)


def _kill(process: subprocess.Popen[bytes]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


def _result(tmp_path: Path, name: str) -> dict[str, Any]:
    return dict(json.loads((tmp_path / name).read_text()))


def _calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "calls.log").read_text().splitlines()


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp_path = tmp_path_factory.mktemp("plain")
    _finish(_start(tmp_path, "plain", "plain.json"))
    assert _calls(tmp_path) == [str(i) for i in range(CALLS)]
    return _result(tmp_path, "plain.json")


@pytest.mark.parametrize(
    ("pause_at", "marker"),
    [
        (3, "calls.log.paused"),  # after step 2 was saved, in step 3's planning call
        (1, "calls.log.paused"),  # after the first plan's reply, before step 1's
        (-2, "calls.log.tool-started"),  # mid-step: step 3's reply saved, its tool call running
    ],
    ids=["step-boundary", "after-planning", "mid-step"],
)
def test_killed_run_resumes_to_the_same_answer_and_namespace(
    tmp_path: Path, uninterrupted: dict[str, Any], pause_at: int, marker: str
) -> None:
    first = _start(tmp_path, "run", "first.json", pause_at)
    _wait_for(tmp_path / marker, first)
    _kill(first)
    assert not (tmp_path / "first.json").exists()

    _finish(_start(tmp_path, "resume", "resumed.json", pause_at if pause_at < 0 else -1))

    assert _result(tmp_path, "resumed.json") == uninterrupted
    assert _calls(tmp_path) == [str(i) for i in range(CALLS)]  # the script consumed exactly once
    stored = SQLiteStore(tmp_path / "runs.sqlite3").load("job-1")
    assert stored is not None and stored.status == "finished"


def test_two_processes_never_drive_one_run(tmp_path: Path, uninterrupted: dict[str, Any]) -> None:
    first = _start(tmp_path, "run", "first.json", 3)
    _wait_for(tmp_path / "calls.log.paused", first)
    _kill(first)
    (tmp_path / "calls.log.paused").unlink()
    # a resume that blocks in its model call (index 4: step 3's action) holds the run...
    holder = _start(tmp_path, "resume", "holder.json", 4)
    try:
        _wait_for(tmp_path / "calls.log.paused", holder)
        # ...so a second one, here, is refused in one line, and changes nothing
        sys.path.insert(0, str(SCRIPT.parent))
        try:
            import scripted_run
        finally:
            sys.path.pop(0)
        with pytest.raises(RunLockedError) as refused:
            scripted_run.main(
                [
                    str(tmp_path / "runs.sqlite3"),
                    "job-1",
                    "resume",
                    str(tmp_path / "c2.log"),
                    str(tmp_path / "x.json"),
                ]
            )
        assert "\n" not in str(refused.value) and "job-1" in str(refused.value)
    finally:
        _kill(holder)
    # the holder died: its lease is stale, and the run resumes and finishes
    _finish(_start(tmp_path, "resume", "resumed.json"))
    assert _result(tmp_path, "resumed.json") == uninterrupted


def test_killed_again_after_replaying_saved_replies(tmp_path: Path, uninterrupted: dict[str, Any]) -> None:
    # killed in step 3's model call: step 3's plan is saved as a reply, not yet as a step
    first = _start(tmp_path, "run", "first.json", 4)
    _wait_for(tmp_path / "calls.log.paused", first)
    _kill(first)
    # resumed: the plan comes from the checkpoint, step 3's reply from the model; killed in its tool
    second = _start(tmp_path, "resume", "second.json", -2)
    _wait_for(tmp_path / "calls.log.tool-started", second)
    _kill(second)
    # resumed again: both replies come from the checkpoint, each once and in order
    _finish(_start(tmp_path, "resume", "resumed.json", -2))
    assert _result(tmp_path, "resumed.json") == uninterrupted
    assert _calls(tmp_path) == [str(i) for i in range(CALLS)]
