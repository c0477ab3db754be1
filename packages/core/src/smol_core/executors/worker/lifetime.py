"""Time and lifetime of the worker, enforced by the kernel from inside the worker.

Why here and not only in the host: the host kills a worker that runs past its deadline, but a host that
is itself stuck, killed or gone must not leave a worker running model-written code forever. So:
- each action runs under a POSIX timer that delivers SIGKILL (no handler can catch it, no code can
  cancel it without raw system calls, and it fires even while a C loop holds the GIL), paused while
  the host runs a tool, and under an RLIMIT_CPU soft limit raised before each action by the action's
  budget (SIGXCPU kills without Python's help);
- the worker dies with its host: a thread blocked on a pidfd of the parent (or polling the parent pid
  where pidfds are missing) exits the process the moment the parent is gone, and PR_SET_PDEATHSIG
  where the host asks for it (the kernel sends it when the *thread* that started the worker ends, so
  hosts that start workers from short-lived threads must not ask);
- threads the code started and left running are counted after each action: such a worker cannot be
  trusted with the next one, so it exits and the host starts a fresh one.
Stdlib-only; ctypes is used here before any code runs and never reachable from it.
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import math
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

PR_SET_PDEATHSIG = 1
CLOCK_MONOTONIC = 1
SIGEV_SIGNAL = 0
EXIT_PARENT_GONE = 70
EXIT_TAINTED = 71


class _Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("interval", _Timespec), ("value", _Timespec)]


class _Sigevent(ctypes.Structure):
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("pad", ctypes.c_byte * 48),
    ]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


# --- dying with the host -------------------------------------------------------------------------
def die_with_parent(expected_parent: int | None, pdeathsig: bool) -> str:
    """Arrange for this process to end when its parent does; returns how (for the protection report).

    `expected_parent` (when the host passed its pid) closes the race of a parent that died before
    this ran: a different parent means it is already gone.
    """
    parent = os.getppid()
    if expected_parent is not None and parent != expected_parent:
        os._exit(EXIT_PARENT_GONE)
    how = []
    if pdeathsig and sys.platform.startswith("linux"):
        if _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            how.append("PR_SET_PDEATHSIG")
        if os.getppid() != parent:  # it died between the check and the prctl
            os._exit(EXIT_PARENT_GONE)
    try:
        pidfd = os.pidfd_open(parent)
        _start_thread(_wait_pidfd, pidfd)
        how.append("pidfd watch")
    except (AttributeError, OSError):
        _start_thread(_poll_parent, parent)
        how.append("parent pid poll")
    global WATCH
    WATCH = " + ".join(how)
    return WATCH


WATCH = ""  # how this worker follows its host, for the protection report


def die_with_process(pid: int) -> None:
    """Also end when `pid` ends: the process a shared template forked this worker for, which is
    not its parent (a team's agent process, see template.py)."""
    global WATCH
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:  # already gone
        os._exit(EXIT_PARENT_GONE)
    _start_thread(_wait_pidfd, pidfd)
    WATCH = f"{WATCH} + pidfd watch of the agent process"


def _start_thread(target: Callable[[int], None], arg: int) -> None:
    """Start a watch thread and return once it runs, so that `thread_count()` already counts it."""
    running = _thread.allocate_lock()
    running.acquire()

    def body() -> None:
        running.release()
        target(arg)

    _thread.start_new_thread(body, ())
    running.acquire()


def _wait_pidfd(pidfd: int) -> None:
    import select  # here: not every platform the worker runs on has it (WebAssembly)

    while True:
        with contextlib.suppress(InterruptedError):
            ready, _, _ = select.select([pidfd], [], [])
            if ready:
                os._exit(EXIT_PARENT_GONE)


def _poll_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.1)
    os._exit(EXIT_PARENT_GONE)


# --- the action's time limit ---------------------------------------------------------------------
class ActionClock:
    """The kernel's side of the action's time limit: a SIGKILL timer and an RLIMIT_CPU soft limit.

    The budget is the host's limit plus a grace, so the host (which reports a clean time-out error)
    acts first whenever it is alive; the clock only matters when it is not. Time spent waiting for
    the host's tools does not count, as on the host: `pause()` / `resume()` bracket each tool call.
    """

    def __init__(
        self, timeout: float | None, trusted: Callable[[], contextlib.AbstractContextManager[Any]]
    ) -> None:
        self.trusted = trusted  # the audit hook refuses rlimit and ctypes calls to the code, not to us
        self.budget = None if not timeout or timeout <= 0 else timeout + max(2.0, timeout / 4)
        self.remaining = 0.0
        self.paused = 0
        self._started = 0.0
        self._timer: ctypes.c_void_p | None = None
        self.kernel_timer = False
        self._settime: Any = None
        if self.budget is not None and sys.platform.startswith("linux"):
            libc = _libc()
            event = _Sigevent(None, signal.SIGKILL, SIGEV_SIGNAL)
            timer = ctypes.c_void_p()
            if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) == 0:
                self._timer = timer
                self._settime = libc.timer_settime
                self.kernel_timer = True
        _default_sigxcpu()

    def report(self) -> tuple[str, bool, str]:
        """The protection report's entry for the kernel's side of the time limit."""
        if self.budget is None:
            return ("action time limit (kernel)", False, "no time limit configured")
        parts = [f"CPU rlimit {self.budget:g}s per action"]
        if self.kernel_timer:
            parts.append(f"SIGKILL timer at {self.budget:g}s of wall-clock (tool calls excluded)")
        return ("action time limit (kernel)", True, ", ".join(parts) + "; left-over threads end the worker")

    def start(self) -> None:
        if self.budget is None:
            return
        self.remaining = self.budget
        self.paused = 0
        with self.trusted():
            _set_cpu_soft_limit(_cpu_used() + self.budget)
            self._arm(self.budget)

    def stop(self) -> None:
        if self.budget is None:
            return
        with self.trusted():
            self._arm(0)
            _set_cpu_soft_limit(None)

    def pause(self) -> None:
        """A tool call starts: the host's time is not the code's."""
        if self.budget is None:
            return
        self.paused += 1
        if self.paused == 1:
            self.remaining = max(0.05, self.remaining - (time.monotonic() - self._started))
            with self.trusted():
                self._arm(0)

    def resume(self) -> None:
        if self.budget is None or self.paused == 0:
            return
        self.paused -= 1
        if self.paused == 0:
            with self.trusted():
                self._arm(self.remaining)

    def _arm(self, seconds: float) -> None:
        self._started = time.monotonic()
        if self._timer is None:
            return
        frac, whole = math.modf(max(0.0, seconds))
        spec = _Itimerspec(_Timespec(0, 0), _Timespec(int(whole), int(frac * 1e9)))
        self._settime(self._timer, 0, ctypes.byref(spec), None)


def _default_sigxcpu() -> None:
    """SIGXCPU must kill (its default), whatever handler an earlier start-up step left."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)


def _cpu_used() -> float:
    times = os.times()
    return times.user + times.system


def _set_cpu_soft_limit(seconds: float | None) -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = resource.RLIM_INFINITY if seconds is None else math.ceil(seconds)
        if hard != resource.RLIM_INFINITY and (soft == resource.RLIM_INFINITY or soft > hard):
            soft = hard
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ImportError, ValueError, OSError):
        pass


# --- threads the code leaves behind --------------------------------------------------------------
def thread_count() -> int:
    """Threads started through `_thread` (threading included) that are still running."""
    count = getattr(_thread, "_count", None)
    if count is not None:
        return int(count())
    import threading  # pragma: no cover - an interpreter without _thread._count

    return threading.active_count() - 1


def exit_tainted(reason: str) -> None:
    """Say why on stderr (the host shows its tail with the crash) and end the process now."""
    with contextlib.suppress(OSError):
        os.write(2, f"smol worker: {reason}; the worker exits so that the host starts a fresh one\n".encode())
    os._exit(EXIT_TAINTED)
