"""What runs killed outright leave behind, swept by the runs that come after them.

A run cleans up after itself when it ends, and its janitor (`smol_core.janitor`) when it is killed.
A SIGKILL of a whole process group (an OOM kill of a cgroup, `docker kill`, a CI runner's timeout)
kills the janitor too, and then four kinds of things stay behind:

- smol's own folders in the temporary directory (`smol-scratch-`, `smol-team-`, `smol-template-`):
  each is named after the process that made it (`smol-team-<pid>-...`), so a later run can tell
  that its owner is gone and remove it;
- multiprocessing's fork-server folders (`pymp-*`, holding the server's listening socket), which
  name no owner: one whose sockets nobody listens on any more (`/proc/net/unix`) is dead;
- multiprocessing's named semaphores (`/dev/shm/sem.mp-*`), which name no owner either: one that no
  process maps any more (`/proc/<pid>/maps`, by inode) can never be used again.

Only things of this user are touched, and only things older than `GRACE_SECONDS` (a semaphore or a
fork server's folder is made a moment before it is mapped or listened on). What cannot be decided
(a folder without a socket, a name without an owner) is left alone: a sweep may leave
garbage, never remove something alive. The limits: processes in another PID namespace and sockets
in another network namespace are not visible from here, so a sweep run inside a container that
shares `/dev/shm` or the temporary directory with its host must not be trusted to see their owners;
such setups rarely share those folders, and the sweep never touches a folder whose name has no
owner unless the proof above holds.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

OWNED_PREFIXES = ("smol-scratch-", "smol-team-", "smol-template-")
"""Folders smol makes in the temporary directory, each named `<prefix><owner pid>-<random>`."""

GRACE_SECONDS = 60.0
"""How old an unowned-looking semaphore or fork-server folder must be before it is swept."""

SWEEP_INTERVAL_SECONDS = 60.0
"""A sweep lists the temporary directory and every process's memory map (tens of milliseconds on a
busy machine): done by the first run of a process that needs it, then at most once a minute."""

SHARED_MEMORY = "/dev/shm"

_OWNED = re.compile(rf"^(?:{'|'.join(re.escape(prefix) for prefix in OWNED_PREFIXES)})(\d+)-")
_last_sweep: float | None = None
_sweeping = threading.Lock()


def owned_prefix(prefix: str) -> str:
    """The name prefix for a folder this process makes with `tempfile.mkdtemp`: `prefix` (one of
    `OWNED_PREFIXES`) followed by this process's id, so a later sweep can tell whether it is gone."""
    if prefix not in OWNED_PREFIXES:
        raise ValueError(f"{prefix!r} is not one of the prefixes a sweep knows: {OWNED_PREFIXES}")
    return f"{prefix}{os.getpid()}-"


def sweep_now_and_then(temporary: str | None = None) -> list[str]:
    """`sweep` at most once every `SWEEP_INTERVAL_SECONDS` per process; what it removed."""
    global _last_sweep
    now = time.monotonic()
    with _sweeping:
        if _last_sweep is not None and now - _last_sweep <= SWEEP_INTERVAL_SECONDS:
            return []
        _last_sweep = now
    return sweep(temporary)


def sweep(temporary: str | None = None, shared_memory: str = SHARED_MEMORY) -> list[str]:
    """Remove what dead runs left in `temporary` (the temporary directory) and `shared_memory`;
    returns the paths removed. Never raises: a sweep is housekeeping, not part of anyone's run."""
    root = temporary or tempfile.gettempdir()
    removed = sweep_owned_folders(root)
    removed += sweep_fork_server_folders(root)
    removed += sweep_semaphores(shared_memory)
    return removed


def sweep_owned_folders(root: str) -> list[str]:
    """smol's folders in `root` whose owner process no longer runs, over `GRACE_SECONDS` old: a run
    whose owner just died is its janitor's to remove, and a sweep never races it."""
    removed: list[str] = []
    for name in _names(root):
        match = _OWNED.match(name)
        if match is None or process_alive(int(match.group(1))):
            continue
        path = os.path.join(root, name)
        if _ours(path, want=stat.S_ISDIR) and _old(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def sweep_fork_server_folders(root: str) -> list[str]:
    """multiprocessing's `pymp-*` folders in `root` that hold sockets nobody listens on."""
    listening = _listening_socket_paths()
    if listening is None:
        return []
    removed: list[str] = []
    for name in _names(root):
        path = os.path.join(root, name)
        if not name.startswith("pymp-") or not _ours(path, want=stat.S_ISDIR) or not _old(path):
            continue
        sockets = _sockets_in(path)
        if sockets and not any(socket in listening for socket in sockets):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def sweep_semaphores(shared_memory: str = SHARED_MEMORY) -> list[str]:
    """multiprocessing's named semaphores in `shared_memory` that no process maps."""
    candidates = [
        os.path.join(shared_memory, name) for name in _names(shared_memory) if name.startswith("sem.mp-")
    ]
    candidates = [path for path in candidates if _ours(path, want=stat.S_ISREG) and _old(path)]
    if not candidates:
        return []
    mapped = _mapped_shared_memory_files()
    removed: list[str] = []
    for path in candidates:
        if _identity(path) not in mapped:
            try:
                os.unlink(path)
            except OSError:
                continue
            removed.append(path)
    return removed


def process_alive(pid: int) -> bool:
    """Whether process `pid` runs (or may: another user's process, or not a pid at all)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _ours(path: str, want: Callable[[int], bool]) -> bool:
    """A real file or folder (not a link) of the kind `want` tests for, owned by this user."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    return want(status.st_mode) and status.st_uid == os.getuid()


def _old(path: str) -> bool:
    try:
        return time.time() - os.lstat(path).st_mtime > GRACE_SECONDS
    except OSError:
        return False


def _identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.lstat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _sockets_in(folder: str) -> list[str]:
    found: list[str] = []
    for name in _names(folder):
        path = os.path.join(folder, name)
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                found.append(path)
        except OSError:
            continue
    return found


def _listening_socket_paths() -> set[str] | None:
    """The paths of the Unix sockets bound in this network namespace; None where unreadable.

    The path is the rest of the line, as the kernel prints it (unescaped): a temporary directory
    with a space in its name must not cut a live socket's path short and make it look unbound."""
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return None
    return {fields[7] for fields in (line.split(maxsplit=7) for line in lines) if len(fields) == 8}


def _mapped_shared_memory_files() -> set[tuple[int, int]]:
    """The (device, inode) of every `/dev/shm` file some process this user can read maps. By inode,
    not name: glibc makes a semaphore under a temporary name, maps it, then links it to its real
    name, so a map names the temporary one ("(deleted)").

    A process that cannot be read (another user's, one that made itself undumpable, an init outside
    this user namespace) cannot map this user's semaphores, made 0600, unless it is this user's and
    undumpable: a Python program that does that and keeps a named semaphore for over a minute is
    not a case a sweep can see; removing the name only stops new openers, the holders keep it."""
    mapped: set[tuple[int, int]] = set()
    for pid in _process_ids():
        mapped.update(_shared_memory_files(_read_maps(pid)))
    return mapped


def _process_ids() -> Iterable[int]:
    return (int(name) for name in _names("/proc") if name.isdigit())


def _read_maps(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/maps").read_text(errors="replace")
    except OSError:
        return ""  # ended while we looked, or not ours to read (see `_mapped_shared_memory_files`)


def _shared_memory_files(maps: str) -> Iterable[tuple[int, int]]:
    """(device, inode) of each mapping in `maps` (a /proc/<pid>/maps text) of a /dev/shm file."""
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith(SHARED_MEMORY + "/"):
            major, _, minor = fields[3].partition(":")
            try:
                yield os.makedev(int(major, 16), int(minor, 16)), int(fields[4])
            except ValueError:
                continue
