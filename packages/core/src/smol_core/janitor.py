"""Scratch folders that go when the process that made them goes, however it goes.

A process that cleans up after itself in `finally` or at exit cannot do so when it is killed
outright (SIGKILL, the OOM killer): its temporary folders stayed behind. The janitor is a small
helper process, started the first time a folder is handed to it, that holds the read end of a pipe
from its owner. When the owner ends, in any way, the kernel closes the pipe; the janitor reads EOF,
removes the folders it was given (those still there) and exits. It ignores the signals that reach a
whole terminal's process group (Ctrl-C, a closed terminal) and SIGTERM, as multiprocessing's
resource tracker does, so that it outlives its owner only for the moment the clean-up takes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import IO

JANITOR_MARK = "# smol-janitor"
"""The first line of the janitor's program, so that its command line says what it is."""

_JANITOR = (
    JANITOR_MARK
    + r"""
import os, shutil, signal, sys, time
for name in ("SIGINT", "SIGTERM", "SIGHUP"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)
paths = []
for line in sys.stdin.buffer:
    paths.append(os.fsdecode(line.rstrip(b"\n")))
for attempt in range(20):  # a process that dies with the owner may still write into a folder
    paths = [p for p in paths if os.path.isdir(p) and not os.path.islink(p)]
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
    if not any(os.path.isdir(p) and not os.path.islink(p) for p in paths):
        break
    time.sleep(0.05)
"""
)

_lock = threading.Lock()
_pipe: IO[bytes] | None = None
_owner: int | None = None


def remove_when_gone(path: str) -> bool:
    """Remove the folder `path` once this process has ended; True when a janitor will.

    Best effort: where no helper process can be started, the owner's own clean-up is all there is."""
    global _pipe, _owner
    encoded = os.fsencode(os.path.abspath(path))
    if b"\n" in encoded:
        return False
    with _lock:
        if _pipe is None or _owner != os.getpid():  # a forked child gets a janitor of its own
            try:
                process = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _JANITOR],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                )
            except OSError:
                return False
            _pipe, _owner = process.stdin, os.getpid()
            # the janitor is not waited for: it outlives its owner by design, and is reaped by init
            process.returncode = 0
        try:
            assert _pipe is not None
            _pipe.write(encoded + b"\n")
            _pipe.flush()
        except (OSError, ValueError):
            _pipe = None
            return False
    return True


REMOVAL_PATIENCE_SECONDS = 1.0
"""How long a removal keeps trying while something still writes into the folder."""


def remove_tree(path: str, patience: float = REMOVAL_PATIENCE_SECONDS) -> bool:
    """Remove the folder `path`, trying again for up to `patience` seconds while something still
    writes into it (a process stopped a moment ago: a sandbox worker ends after its agent, by its
    own watch). True when it is gone."""
    deadline = time.monotonic() + patience
    while True:
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path) or time.monotonic() >= deadline:
            return not os.path.lexists(path)
        time.sleep(0.02)


@contextlib.contextmanager
def private_folder(prefix: str) -> Iterator[str]:
    """A new private (0700) folder in the temporary directory for the `with` block; removed after
    it (`remove_tree`), by this process's janitor if the process is killed outright, and by a later
    run's sweep if the janitor was killed with it (`prefix` is one of `leftovers.OWNED_PREFIXES`;
    the folder's name carries this process's id, so a sweep can tell when it is gone)."""
    from smol_core.leftovers import owned_prefix, sweep_now_and_then

    sweep_now_and_then()
    folder = tempfile.mkdtemp(prefix=owned_prefix(prefix))
    try:
        remove_when_gone(folder)
        yield folder
    finally:
        remove_tree(folder)
