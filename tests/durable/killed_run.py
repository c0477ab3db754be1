"""A durable run in its own process, SIGKILLed where it waits mid-step, then resumed in a new one.

The scripts it drives (ledger_run.py, member_run.py) take `STORE LOG run|resume OPTION RESULT`,
write `LOG.waiting` once the first process blocks where the test wants it killed, and write the
resumed run's answer to RESULT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _start(script: Path, tmp_path: Path, mode: str, option: str) -> subprocess.Popen[bytes]:
    args = [
        str(tmp_path / "runs.sqlite3"),
        str(tmp_path / "calls.log"),
        mode,
        option,
        str(tmp_path / f"{mode}.json"),
    ]
    return subprocess.Popen([sys.executable, str(script), *args], stderr=subprocess.PIPE)


def killed_while_waiting_then_resumed(script: Path, tmp_path: Path, option: str) -> dict[str, Any]:
    """Run `script`, SIGKILL it where it waits, resume it; the resumed run's result."""
    first = _start(script, tmp_path, "run", option)
    waiting = tmp_path / "calls.log.waiting"
    deadline = time.monotonic() + 240
    while not waiting.exists():
        assert first.poll() is None, first.stderr.read().decode()[-3000:]  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the run never reached the place where it waits"
        time.sleep(0.05)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    second = _start(script, tmp_path, "resume", option)
    _, stderr = second.communicate(timeout=240)
    assert second.returncode == 0, stderr.decode()[-3000:]
    return dict(json.loads((tmp_path / "resume.json").read_text()))
