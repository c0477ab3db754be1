"""Host side of the warm worker template (`worker/template.py`): start it, ask it for workers.

One template per host process, started on first need in the background; until it answers, and
wherever it cannot work (no `fork`, no pidfds, a template that died), workers are spawned as new
processes as before, so the template is only ever a faster path, never a new way to fail.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO

from smol_core.executors.host.bootstrap import worker_program
from smol_core.executors.host.switches import EnvSwitch
from smol_core.leftovers import owned_prefix

__all__ = ["ForkedProcess", "WorkerTemplate", "templates_supported"]

_BOOTSTRAP = worker_program(
    "from smol_core.executors.worker.template import serve_template\nserve_template(int(sys.argv[2]))"
)


def templates_supported() -> bool:
    """Linux with pidfds (5.3+): a forked worker is not the host's child, so its end is watched
    through a pidfd and its status asked of the template. (`SMOL_WORKER_TEMPLATE=0` turns it off.)"""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


class WorkerTemplate:
    """The template process and its control socket; requests are serialized by a lock."""

    enabled = EnvSwitch("SMOL_WORKER_TEMPLATE", templates_supported)

    def __init__(self, src_root: str, env: dict[str, str]) -> None:
        """`src_root`: the folder holding `smol_core`; `env`: the workers' whole environment."""
        self._src_root = src_root
        self._env = env
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._starting = False
        self._joined: str | None = None  # the shared template's socket, in a process that joined one
        self._shared: str | None = None  # the socket this process's template also serves

    def ready(self, start: bool = True) -> bool:
        """Whether a fork can be asked now; starts the template in the background if none runs
        (unless `start` is False)."""
        if not self.enabled:
            return False
        with self._lock:
            if self._joined is not None:
                return self._control is not None
            if self._process is not None and self._process.poll() is None:
                return self._control is not None
            if self._starting or not start:
                return False
            self._forget()
            self._starting = True
        threading.Thread(target=self._start, name="smol-worker-template", daemon=True).start()
        return False

    def wait_until_serving(self, timeout: float = 10.0) -> bool:
        """Start the template if needed and wait until it serves forks (tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if not self.enabled or time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def share(self) -> str | None:
        """Let this user's other processes fork workers from this template: returns the path of a
        socket (in a folder only this user may enter) to pass to them for `join`; None when no
        template serves. Made for a team's launcher: its agents then start their workers in a
        millisecond instead of each starting an interpreter (and a template) of its own."""
        if not self.wait_until_serving():
            return None
        with self._lock:
            if self._shared is not None or self._control is None:
                return self._shared
            # mode 0700, named after this host, whose death ends the template (a later sweep removes it)
            folder = tempfile.mkdtemp(prefix=owned_prefix("smol-template-"), dir=_socket_folder_root())
            path = os.path.join(folder, "socket")
            try:
                self._control.sendall(b"L" + path.encode())
                if self._read_answer(self._control) != b"K":
                    raise OSError("the worker template refused to share")
            except OSError:
                shutil.rmtree(folder, ignore_errors=True)
                return None
            self._shared = path
            return path

    def join(self, path: str) -> bool:
        """Fork this process's workers from the template another process shares at `path` (see
        `share`) instead of starting one; False (and workers are spawned) when it cannot be reached."""
        with self._lock:
            self._forget()
            self._joined = path
            if not self.enabled:
                return False
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                conn.connect(path)
            except OSError:
                conn.close()
                self.enabled = False
                return False
            self._control = conn
            return True

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOTSTRAP, self._src_root, str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**self._env, "SMOL_WORKER_PARENT": str(os.getpid())},
                cwd=tempfile.gettempdir(),
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        except OSError:
            ours.close()
            with self._lock:
                self._starting, self.enabled = False, False
            return
        finally:
            theirs.close()
        with self._lock:
            self._process, self._control, self._starting = process, ours, False

    def fork(self, stdin: int, stdout: int, stderr: int) -> ForkedProcess:
        """A new worker on these descriptors (the caller closes its copies). OSError when the
        template cannot (it died, or never started): the caller spawns one instead."""
        with self._lock:
            control = self._control
            if control is None:
                raise OSError("the worker template is not running")
            try:
                socket.send_fds(control, [b"F"], [stdin, stdout, stderr])
                answer = self._read_answer(control)
            except OSError:
                self._forget()
                raise
        if answer[:1] != b"P" or not answer[1:].isdigit():
            raise OSError(f"the worker template answered {answer[:20]!r} to a fork")
        return ForkedProcess(int(answer[1:]), self)

    def reap(self, pid: int) -> int | None:
        """The dead child's returncode (negative for a signal); None when unknown."""
        with self._lock:
            control = self._control
            if control is None:
                return None
            try:
                control.sendall(b"S%d" % pid)
                answer = self._read_answer(control)
            except OSError:
                self._forget()
                return None
        if answer[:1] == b"R":
            with contextlib.suppress(ValueError):
                return int(answer[1:])
        return None

    def _read_answer(self, control: socket.socket) -> bytes:
        """One answer (they are short and sent whole); a template silent for 10 s is gone."""
        ready, _, _ = select.select([control], [], [], 10.0)
        answer = control.recv(64) if ready else b""
        if not answer:
            raise OSError("the worker template did not answer")
        return answer

    def _forget(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._shared is not None:
            shutil.rmtree(os.path.dirname(self._shared), ignore_errors=True)
            self._shared = None
        if self._process is not None:
            with contextlib.suppress(OSError):
                self._process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
            self._process = None

    def shutdown(self) -> None:
        """Close the control socket: the template exits, and its idle children with it."""
        with self._lock:
            self.enabled = False
            self._forget()


_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux; the folder's name and "/socket" follow
_PID_DIGITS = 7  # Linux's largest pid_max, 4194304


def _socket_folder_root() -> str | None:
    """The temporary directory, unless its path is too long for a Unix socket's address (a TMPDIR
    deep in a test's or a job's folder): then /tmp."""
    root = tempfile.gettempdir()
    longest_name = len("/smol-template-") + _PID_DIGITS + len("-XXXXXXXX/socket")
    return root if len(root) + longest_name <= _MAX_SOCKET_PATH else "/tmp"


class ForkedProcess:
    """The part of `subprocess.Popen` a `WorkerProcess` uses, for a worker the template forked.

    Its end is seen through a pidfd (the host is not its parent, so it cannot `waitpid`), and its
    status is asked of the template, which keeps the zombie until then, so that its pid cannot be
    reused before the host has killed and forgotten it.
    """

    def __init__(self, pid: int, template: WorkerTemplate) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._reaping = threading.Lock()  # alive() may be asked from two threads at once
        self._template = template
        self._pidfd: int | None = os.pidfd_open(pid)
        self.stdin: IO[bytes] | None = None
        self.stdout: IO[bytes] | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._pidfd is not None:
            ready, _, _ = select.select([self._pidfd], [], [], 0)
            if ready:
                self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and self._pidfd is not None:
            ready, _, _ = select.select([self._pidfd], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired("sandbox worker", timeout or 0)
            self._ended()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None and self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _ended(self) -> None:
        with self._reaping:
            if self._pidfd is None:
                return
            status = self._template.reap(self.pid)
            # Unknown only when the template is gone, and its children die with it by SIGKILL.
            self.returncode = status if status is not None else -signal.SIGKILL
            os.close(self._pidfd)
            self._pidfd = None

    def __del__(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
