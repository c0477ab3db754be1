"""The supervisor's side of its warm agent template (`agent_template`): start it once, fork agents.

`AgentTemplate.start_agent` gives a `ForkedAgent`, which the supervisor treats as it treated a
`subprocess.Popen` of a fresh interpreter: a pid, `poll`, `wait`, `terminate`, `kill`, and the
agent's stderr to read. Signals go through a pidfd, so they reach that process and no other even
after it has ended and its pid is reused. Where the template cannot be used (no `fork` or no
pidfds: not Linux; a template that failed to start), `start_agent` answers None and the supervisor
starts the agent as a fresh interpreter, as before: the template is a faster path, never a new way
to fail. A template that died is started again for the next agent.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence

from smol_core.plugin_api import FORKSERVER_PRELOAD
from smol_transport_ray.agent_template import CODE

READY_SECONDS = 120.0
"""How long a template may take to import everything before its agents start without it."""
RELAY_MODULES = ("smol_transport_ray.relay", "smol_transport_ray.child")
"""What an agent on a node imports to reach its supervisor, beyond what a local agent imports."""


def templates_supported() -> bool:
    """Linux with pidfds (5.3+) and descriptor passing: what forking from a template needs."""
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "pidfd_open")
        and hasattr(socket, "send_fds")
        and hasattr(signal, "pidfd_send_signal")
    )


class AgentTemplate:
    """One warm template process, a child of this supervisor; started as the supervisor is made
    (`AgentSupervisor.warm`), or by the first agent that asks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._failed = not templates_supported()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def start_agent(self, work: bytes, modules: Sequence[str]) -> ForkedAgent | None:
        """An agent forked from the template that will run `work` (the pickled `(target, args,
        report_path, worker_template)`); the template is started first, importing `modules` too, if
        it is not running (or has died). None: no template here, start the agent as a fresh
        interpreter."""
        with self._lock:
            asked = self._ask_fork(modules) or self._ask_fork(modules)  # a dead one is replaced once
        if asked is None:
            return None
        ours, stderr_read = asked
        try:
            return ForkedAgent(ours, work, stderr_read)
        except OSError:
            ours.close()
            os.close(stderr_read)
            with self._lock:
                if self._process is not None and self._process.poll() is not None:
                    self.close()  # dead: the next agent gets a new one
            raise

    def _ask_fork(self, modules: Sequence[str]) -> tuple[socket.socket, int] | None:
        """Ask the template for a fork: (the agent's socket, the read end of its stderr), or None
        (no template, or it has died: closed, so that the next ask starts a new one)."""
        control = self._running(modules)
        if control is None:
            return None
        ours, theirs = socket.socketpair()
        stderr_read, stderr_write = os.pipe()
        try:
            socket.send_fds(control, [b"F"], [theirs.fileno(), stderr_write])
        except OSError:
            self.close()
            ours.close()
            os.close(stderr_read)
            return None
        finally:
            theirs.close()
            os.close(stderr_write)
        return ours, stderr_read

    def start(self, modules: Sequence[str]) -> None:
        """Start the template if it does not run yet, importing `modules` beyond what every agent
        imports, and wait until it is warm."""
        with self._lock:
            self._running(modules)

    def _running(self, modules: Sequence[str]) -> socket.socket | None:
        if self._failed:
            return None
        if self._control is None:
            self._start(modules)
        return self._control

    def _start(self, modules: Sequence[str]) -> None:
        ours, theirs = socket.socketpair()
        preload = [*FORKSERVER_PRELOAD, *RELAY_MODULES, *modules]
        try:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "smol_transport_ray.agent_template",
                    str(theirs.fileno()),
                    json.dumps(preload),
                ],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
            )
        except OSError:
            self._failed = True
            ours.close()
            return
        finally:
            theirs.close()
        ours.settimeout(READY_SECONDS)
        try:
            ready = ours.recv(1) == b"R"
        except OSError:
            ready = False
        if not ready:  # it cannot start here: every agent starts as a fresh interpreter
            self._failed = True
            ours.close()
            self.close()
            return
        ours.settimeout(None)
        self._control = ours

    def close(self) -> None:
        """Stop the template (its agents end with it: SIGTERM); the next agent starts a new one."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._process is not None:
            with contextlib.suppress(OSError):
                self._process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(10)
            self._process = None


class ForkedAgent:
    """An agent forked from the template, seen as a `subprocess.Popen`: its pid, its end, signals."""

    def __init__(self, connection: socket.socket, work: bytes, stderr_fd: int) -> None:
        self.connection = connection
        self.stderr_fd = stderr_fd
        self.returncode: int | None = None
        self._ended = threading.Lock()  # held to signal, and to close the pidfd: never a stale one
        try:
            connection.sendall(CODE.pack(len(work)) + work)
            message, fds, _, _ = socket.recv_fds(connection, CODE.size, 1)
        except OSError:
            message, fds = b"", []
        if len(message) != CODE.size or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise OSError("the agent template did not fork the agent")
        self.pid: int = CODE.unpack(message)[0]
        self.pidfd = fds[0]

    def wait(self) -> int:
        """Wait for the agent's end: its exit code as the template reaped it (negative: the signal
        that ended it), or -SIGKILL when the template died first (the agent dies with it)."""
        if self.returncode is None:
            try:
                raw = self._read_code()
                code = CODE.unpack(raw)[0] if len(raw) == CODE.size else -signal.SIGKILL
            except OSError:
                code = -signal.SIGKILL
            with self._ended:
                self.returncode = code
                self.connection.close()
                os.close(self.pidfd)
        return self.returncode

    def _read_code(self) -> bytes:
        raw = b""
        while len(raw) < CODE.size:
            chunk = self.connection.recv(CODE.size - len(raw))
            if not chunk:
                break
            raw += chunk
        return raw

    def poll(self) -> int | None:
        return self.returncode

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        with self._ended:
            if self.returncode is not None:
                return
            with contextlib.suppress(OSError):  # ended meanwhile (the pidfd still names that process)
                signal.pidfd_send_signal(self.pidfd, sig)
