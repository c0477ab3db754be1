"""Who holds a run: owner strings that say where their process runs, and whether it still lives.

An owner is `host|pid|start time|token|boot id|pid namespace`. Why each part:
- a pid is reused after its process dies, so the pid with its start time (Linux: field 22 of
  /proc/PID/stat) names one process for good;
- a pid means something only in its own pid namespace, and a container may carry the host's name:
  pid 7 in a container is not pid 7 here. The boot id (/proc/sys/kernel/random/boot_id) and the pid
  namespace (the link /proc/self/ns/pid) say whether the owner's pids are this process's pids.

So /proc is asked about an owner only when its host name, boot id and pid namespace are all this
process's: then an owner killed with `kill -9` is provably gone, and a later `resume` takes the run
over at once. Anywhere else (another host, a container with the same host name, another boot, an
owner string of an older smol that did not say) nothing can be asked, and the lease counts as live
until it has not been renewed (each checkpoint renews it) for `ttl` seconds.
"""

from __future__ import annotations

import math
import os
import secrets
import socket
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Owner:
    """A lease owner, parsed: where its process runs, and which process it is."""

    host: str
    pid: str
    started: str
    token: str
    boot_id: str = ""
    pid_namespace: str = ""
    """Both "" in an owner string of an older smol (4 fields): then where it ran is not known."""


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


def boot_id() -> str:
    """This boot of this machine's kernel ("" where there is no /proc to say)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read(64).strip()
    except (OSError, ValueError):
        return ""


def pid_namespace() -> str:
    """This process's pid namespace, as "pid:[4026531836]" ("" where there is no /proc to say)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def new_owner() -> str:
    """This process, as a lease owner: where it runs, which process it is, and a token of its own."""
    pid = os.getpid()
    parts = (
        socket.gethostname(),
        str(pid),
        _start_time(pid),
        secrets.token_hex(6),
        boot_id(),
        pid_namespace(),
    )
    return "|".join(part.replace("|", "_") for part in parts)


def parse_owner(owner: object) -> Owner | None:
    """The owner string's parts (6 fields, or the 4 of an older smol); None if it is neither."""
    if type(owner) is not str:
        return None
    parts = owner.split("|")
    if len(parts) not in (4, 6) or not parts[1].isdigit():
        return None
    return Owner(*parts)


def describe(owner: object) -> str:
    """The owner as a user reads it: "process 4242 on host-a"."""
    parsed = parse_owner(owner)
    if parsed is None:
        return "another process"
    return f"process {parsed.pid} on {parsed.host}"


def owner_alive(owner: object, renewed_at: object, ttl: float) -> bool:
    """Whether the process named by `owner` may still drive its run: False only when it is provably
    gone, or its lease was not renewed for `ttl` seconds."""
    parsed = parse_owner(owner)
    if parsed is None or not _runs_here(parsed):
        return _fresh(renewed_at, ttl)
    alive = _process_alive(parsed)
    return _fresh(renewed_at, ttl) if alive is None else alive


def _fresh(renewed_at: object, ttl: float) -> bool:
    """Renewed less than `ttl` seconds ago (a time no smol wrote, NaN or text, counts as expired)."""
    if (
        not isinstance(renewed_at, int | float)
        or isinstance(renewed_at, bool)
        or not math.isfinite(renewed_at)
    ):
        return False
    return time.time() - renewed_at < ttl


def _runs_here(owner: Owner) -> bool:
    """Whether the owner's pid is a pid of this process's: same host, same boot, same pid namespace.
    Where there is no /proc (not Linux: no pid namespaces either), the same host name must do."""
    if owner.host != socket.gethostname():
        return False
    here = (boot_id(), pid_namespace())
    if sys.platform.startswith("linux") and not all(here):
        return False  # /proc cannot say where this process runs: nothing is proven
    return (owner.boot_id, owner.pid_namespace) == here


def _process_alive(owner: Owner) -> bool | None:
    """Whether the owner's process still runs; None where this process cannot tell."""
    pid = int(owner.pid)
    now_started = _start_time(pid)
    if now_started:
        return now_started != "zombie" and now_started == owner.started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return None
    # the pid runs, but /proc cannot say since when: the same process only if it had no /proc either
    return True if not owner.started else None
