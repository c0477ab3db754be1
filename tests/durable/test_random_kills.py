"""A durable run killed with SIGKILL at random moments, again and again, each time resumed in a new
process until one finishes: the same answer and namespace as an uninterrupted run, and no model call
repeated except, at most, the one in flight at each kill (its reply was not saved yet)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from smol_core.durable import SQLiteStore, checkpoint as checkpoint_format

SCRIPT = Path(__file__).with_name("scripted_run.py")
CALLS = 6


def _start(tmp_path: Path, mode: str, result: str) -> subprocess.Popen[bytes]:
    args = [str(tmp_path / "runs.sqlite3"), "job", mode, str(tmp_path / "calls.log"), str(tmp_path / result)]
    env = {**os.environ, "SCRIPT_BY": "conversation"}
    return subprocess.Popen([sys.executable, str(SCRIPT), *args], stderr=subprocess.PIPE, env=env)


def _calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def _finished(tmp_path: Path) -> dict[str, object] | None:
    """A finished run's answer and namespace, as the store holds them; None while it is not finished."""
    stored = SQLiteStore(tmp_path / "runs.sqlite3").load("job")
    if stored is None or stored.status != "finished":
        return None
    state = checkpoint_format.load(stored.data)
    return {
        "answer": str(state.final_answer),
        "namespace": {k: repr(v) for k, v in sorted(state.namespace.items())},
        "steps": [type(step).__name__ for step in state.steps],
    }


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_random_kills_then_resume(tmp_path: Path, seed: int) -> None:
    (tmp_path / "plain").mkdir()
    plain = _start(tmp_path / "plain", "plain", "plain.json")
    assert plain.wait(timeout=240) == 0, plain.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
    expected = json.loads((tmp_path / "plain" / "plain.json").read_text())

    chance = random.Random(seed)
    kills, mode = 0, "run"
    for _attempt in range(20):
        if kills and _finished(tmp_path) is not None:
            break  # killed after the run had finished (before it printed): the store has the result
        process = _start(tmp_path, mode, "result.json")
        before = len(_calls(tmp_path))
        deadline = time.monotonic() + 240
        while len(_calls(tmp_path)) == before and process.poll() is None:  # until this one calls the model
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(chance.uniform(0.0, 0.4))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            kills += 1
            mode = "resume"
            continue
        assert process.returncode == 0, process.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        break
    else:
        raise AssertionError("the run never finished")
    result = tmp_path / "result.json"
    assert (json.loads(result.read_text()) if result.exists() else _finished(tmp_path)) == expected
    made = Counter(_calls(tmp_path))
    assert sorted(made) == [str(i) for i in range(CALLS)]
    assert sum(made.values()) - CALLS <= kills  # a call repeated only when killed in flight
