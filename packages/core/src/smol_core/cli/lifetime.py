"""A command-line run ends when whatever started it ends, and says so in one line when stopped.

`hatch run smolagent ...` (or any launcher, an IDE, a CI step) runs the agent as a child. Killing
the launcher used to leave the agent and its executor workers running under PID 1 until the task
ended: a launcher that dies forwards no signal. On Linux the agent asks the kernel for SIGTERM when
its parent dies (PR_SET_PDEATHSIG), and SIGTERM ends it as it ends any run: its workers watch it
and exit with it. hatch runs a command through `/bin/sh -c`, and a shell that does not exec its last
command (dash, Debian's `sh`) stays in between, outliving a killed hatch: when the parent is such a
shell, the launcher above it is followed too (a thread blocked on its pidfd). A run started under
`nohup` (SIGHUP ignored) was asked to outlive its parent, so it is left alone.

SIGTERM (`kill`, `timeout`, systemd, `docker stop`) and SIGHUP (a closed terminal) used to end the
command on the spot, its clean-up unrun: a team's agents, their sandbox workers and the semaphores
of its queues were left to the kernel and multiprocessing's resource tracker ("leaked semaphore
objects"). `stop_on_signals` turns them, like Ctrl-C, into an exception (`Stopped`, a
KeyboardInterrupt) that unwinds through every `finally` and `with`, so everything the command
started is stopped; the command then prints one line and exits with 128 + the signal's number (the
shell's convention): 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import os
import select
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

PR_SET_PDEATHSIG = 1
# `<shell> -c '...'`: what `subprocess.run(..., shell=True)` (hatch, make, many CI runners) puts in between
_SHELLS = frozenset({"sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox"})
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_WHY = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "stopped (SIGTERM)",
    signal.SIGHUP: "stopped: its terminal closed (SIGHUP)",
}


class Stopped(KeyboardInterrupt):
    """The command was asked to stop by a signal; `signum` says which (SIGINT, SIGTERM, SIGHUP)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum


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
    else:
        _follow_launcher_of_shell(parent)
    return True


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _follow_launcher_of_shell(shell: int) -> None:
    """When `shell` is a `<shell> -c` wrapper, SIGTERM this process once the launcher above it ends."""
    try:
        argv = Path(f"/proc/{shell}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return
    if len(argv) < 2 or argv[1] != b"-c" or os.path.basename(argv[0]).decode(errors="replace") not in _SHELLS:
        return
    launcher = _parent_of(shell)
    if launcher is None or launcher <= 1:
        return
    try:
        pidfd = os.pidfd_open(launcher)
    except OSError:  # gone already, or no pidfds (Linux < 5.3): PDEATHSIG on the shell still holds
        return
    if _parent_of(shell) != launcher:  # it ended before the pidfd was taken: the number may be reused
        os.close(pidfd)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    threading.Thread(target=_stop_when_gone, args=(pidfd,), name="smol-launcher-watch", daemon=True).start()


def _stop_when_gone(pidfd: int) -> None:
    select.select([pidfd], [], [])  # a pidfd reads ready when its process has ended
    os.kill(os.getpid(), signal.SIGTERM)


received: int | None = None
"""The stop signal this command received, if any: a command that swallows KeyboardInterrupt (a web
server's loop) still exits with the status of the signal that stopped it."""


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    global received
    if received is None:
        received = signum
    on_term = signal.getsignal(signal.SIGTERM)
    if signum != signal.SIGTERM and callable(on_term) and on_term is not _raise_stopped:
        # a server loop (uvicorn) took SIGTERM as its cue for a graceful shutdown: a closed terminal
        # is the same cue (an exception raised inside its event loop would be logged as a crash)
        signal.raise_signal(signal.SIGTERM)
        return
    # Once: a second signal while the command cleans up would cut the clean-up short (SIGKILL still
    # ends it at once, and its children follow it by PDEATHSIG).
    for other in STOP_SIGNALS:
        if signal.getsignal(other) is _raise_stopped:
            signal.signal(other, _already_stopping)
    raise Stopped(received)


def _raise_again(signum: int, frame: FrameType | None) -> None:
    """The stop, delivered again after Python swallowed it (see `_stop_where_swallowed`)."""
    for other in STOP_SIGNALS:
        if signal.getsignal(other) is _raise_again:
            signal.signal(other, _already_stopping)
    raise Stopped(received if received is not None else signum)


def _stop_where_swallowed(unraisable: Any) -> None:
    """`sys.unraisablehook`: a `Stopped` raised while the main thread ran code whose exceptions
    Python ignores (an object's `__del__`, say an event loop's, or a weakref callback) is printed as
    "Exception ignored" and lost, and the command would go on as if it had never been stopped.
    Deliver it again, at the main thread's next check for signals, and print nothing."""
    stopped = unraisable.exc_value
    if not isinstance(stopped, Stopped):
        _previous_unraisablehook(unraisable)
        return
    signal.signal(stopped.signum, _raise_again)
    # from another thread, a moment later: asked now, the handler would run inside this hook (or the
    # thread's start-up) and be lost too
    again = threading.Timer(0.01, _thread.interrupt_main, args=(signal.Signals(stopped.signum),))
    again.daemon = True
    again.start()


_previous_unraisablehook = sys.unraisablehook


def _already_stopping(signum: int, frame: FrameType | None) -> None:
    """A stop signal during the clean-up: nothing to do. A Python handler, not SIG_IGN: signals
    often come in pairs (a closed terminal's SIGHUP, then the launcher's death's SIGTERM), and one
    that arrived while the first was being handled would find SIG_IGN and be printed as a traceback
    ("Signal 15 ignored due to race condition")."""


def stop_on_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP raise `Stopped` in the main thread, so the command cleans up.

    A signal the command was started with ignored (`nohup`, a background job's SIGINT) stays ignored."""
    sys.unraisablehook = _stop_where_swallowed
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _raise_stopped)


def stopped_status(program: str, error: KeyboardInterrupt) -> int:
    """Print the one line that says why the command stopped; return its exit status (128 + signal)."""
    signum = error.signum if isinstance(error, Stopped) else signal.SIGINT
    with contextlib.suppress(OSError, ValueError):  # a closed terminal: no one to tell
        print(f"{program}: {_WHY.get(signal.Signals(signum), 'stopped')}", file=sys.stderr, flush=True)
    return 128 + int(signum)


def stopped_by_signal(program: str) -> int | None:
    """After a command returned: the status to exit with if a stop signal ended it (its one line
    printed), or None when it ended on its own."""
    if received is None:
        return None
    return stopped_status(program, Stopped(received))


def start_command() -> None:
    """What a real command (not a call from Python) does first: follow its parent, clean up on signals."""
    end_with_parent()
    stop_on_signals()
