"""Who holds a run: owner strings that say whether their process still lives.

Why the process's start time is in the owner: a pid is reused after its process dies, so "pid 4242
is alive" does not mean the run's process is; the pid with its start time (Linux: field 22 of
/proc/PID/stat) names one process for good. A process killed with `kill -9` leaves its lease behind;
a later `resume` on the same host sees that its owner is gone and takes the run over. On another
host nothing can be asked, so a lease there counts as live until it has not been renewed (each
checkpoint renews it) for `ttl` seconds.
"""

from __future__ import annotations

import os
import secrets
import socket
import time


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot, or "" where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return ""
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20:
        return ""
    if fields[0] == "Z":  # a zombie: dead, its parent has not reaped it yet
        return "zombie"
    return fields[19]


def new_owner() -> str:
    """This process, as a lease owner: host, pid, start time and a token of its own."""
    pid = os.getpid()
    return f"{socket.gethostname()}|{pid}|{_start_time(pid)}|{secrets.token_hex(6)}"


def describe(owner: str) -> str:
    """The owner as a user reads it: "process 4242 on host-a"."""
    parts = owner.split("|")
    if len(parts) != 4:
        return "another process"
    return f"process {parts[1]} on {parts[0]}"


def owner_alive(owner: str, renewed_at: float, ttl: float) -> bool:
    """Whether the process named by `owner` may still drive its run."""
    parts = owner.split("|")
    if len(parts) != 4 or not parts[1].isdigit():
        return time.time() - renewed_at < ttl
    host, pid, started, _ = parts
    if host != socket.gethostname():
        return time.time() - renewed_at < ttl
    now_started = _start_time(int(pid))
    if not now_started:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        except OSError:
            return False
        return not started  # no /proc now: alive if it had none then either
    return now_started != "zombie" and now_started == started
