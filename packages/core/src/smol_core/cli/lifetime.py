"""A command-line run ends when whatever started it ends.

`hatch run smolagent ...` (or any launcher, an IDE, a CI step) runs the agent as a child. Killing
the launcher used to leave the agent and its executor workers running under PID 1 until the task
ended: a launcher that dies forwards no signal. On Linux the agent asks the kernel for SIGTERM when
its parent dies (PR_SET_PDEATHSIG), and SIGTERM ends it as it ends any run: its workers watch it
and exit with it. A run started under `nohup` (SIGHUP ignored) was asked to outlive its parent, so
it is left alone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def end_with_parent() -> bool:
    """Ask for SIGTERM when the parent process dies; True when that is now in place."""
    if not sys.platform.startswith("linux"):
        return False
    if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:  # nohup: the user wants it to outlive us
        return False
    parent = os.getppid()
    if parent == 1:  # already orphaned (a daemon, a container's entry point): nothing to follow
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)
    return True
