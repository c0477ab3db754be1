"""Scratch folders on the host: one per executor, named after the host process that made it.

Why the process id in the name: a folder is removed when its executor closes or the host exits, but
a host killed outright (`kill -9`, the OOM killer) runs no clean-up and leaves it behind (empty: the
files live in the worker's own tmpfs), unless its janitor (smol_core.janitor) removes it. The next host to make a scratch folder removes those whose
host is gone, so they do not pile up in the temporary directory.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time

PREFIX = "smol-scratch-"
_OWNED = re.compile(rf"^{re.escape(PREFIX)}(\d+)-")


SWEEP_INTERVAL_SECONDS = 60.0
"""Sweeping lists the whole temporary directory (thousands of entries on a busy machine, tens of
milliseconds): done by the first scratch folder a process makes, then at most once a minute, not
on every executor's start."""
_last_sweep: float | None = None

_kept_in: str | None = None


def keep_scratch_in(folder: str) -> None:
    """Make this process's scratch folders inside `folder`, a private folder that whoever started
    this process removes once it has ended, however it ended (a team's agent: the team's folder,
    which the host removes, or its janitor if the host is killed). Such a process needs no janitor
    of its own and has nothing to sweep: a janitor is a new interpreter, about 7 ms of CPU that each
    agent of a team paid as it started, and a sweep lists the whole temporary directory."""
    global _kept_in
    _kept_in = folder


def make_scratch() -> str:
    """A new scratch folder for this process; first (now and then), those left by hosts that no
    longer run go."""
    from smol_core.janitor import remove_when_gone

    global _last_sweep
    if _kept_in is not None and os.path.isdir(_kept_in):
        return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=_kept_in)
    now = time.monotonic()
    if _last_sweep is None or now - _last_sweep > SWEEP_INTERVAL_SECONDS:
        _last_sweep = now
        sweep_orphans()
    folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    remove_when_gone(folder)  # even if this host is killed outright
    return folder


def sweep_orphans(folder: str | None = None) -> list[str]:
    """Remove the scratch folders in `folder` (the temporary directory) whose host process is gone.

    Only folders named by this module are touched, only when the process that made them no longer
    exists, and only when they are ours to remove (owned by this user). Returns what was removed."""
    root = folder or tempfile.gettempdir()
    removed: list[str] = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        match = _OWNED.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        path = os.path.join(root, name)
        try:
            if os.lstat(path).st_uid != os.getuid() or os.path.islink(path):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # someone else's process, or not a pid at all: leave it be
    return True
