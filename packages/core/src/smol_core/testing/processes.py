"""What a process is doing, read from /proc: for tests that must act once a worker is busy.

Why not a fixed sleep: "wait 0.5 s, then send Ctrl-C" assumes the worker is running the action by
then, which a loaded machine breaks. A process that has used CPU time is provably running; tests
poll for that instead (Linux only, where the sandbox's process tests run).
"""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time process `pid` has used so far (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
