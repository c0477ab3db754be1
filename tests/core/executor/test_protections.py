"""The protection report, and the worker running as a standalone module (as in a container)."""

from __future__ import annotations

import os
import subprocess
import sys

from smol_core.executors.local import protection_report
from smol_core.executors.worker.framing import FrameReader, read_message, write_message


def test_protection_report_shape():
    report = protection_report()
    names = [name for name, _, _ in report]
    assert "language guards" in names and "audit hook" in names and "rlimits" in names
    assert all(isinstance(a, bool) and isinstance(d, str) for _, a, d in report)
    assert dict((n, a) for n, a, _ in report)["language guards"] is True


def test_worker_runs_as_module_over_stdio(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "smol_core.executors.worker.main"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        w, r = proc.stdin.fileno(), proc.stdout.fileno()
        reader, pending = FrameReader(), []
        write_message(
            w, {"op": "config", "authorized_imports": ["math"], "scratch": str(tmp_path), "os_sandbox": False}
        )
        assert read_message(r, reader, pending)["op"] == "ready"
        write_message(w, {"op": "run", "code": "import math\nprint('hi')\nmath.factorial(5)"})
        done = read_message(r, reader, pending)
        assert done == {"op": "done", "output": 120, "logs": "hi\n"}
    finally:
        proc.kill()
        proc.wait()


def test_sandbox_can_be_disabled(make_executor):
    ex = make_executor(os_sandbox=False)
    assert ex("1").output == 1
    names = {n: a for n, a, _ in ex.protections}
    assert "seccomp" not in names and names["audit hook"]
