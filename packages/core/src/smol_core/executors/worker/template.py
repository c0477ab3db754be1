"""The warm template sandbox workers are forked from: started once per host, it never runs code.

Why: a worker started as a new CPython process spends tens of milliseconds on the interpreter's
start and its imports before it can take its `config`; a fork of a process that has done all of
that (and nothing else) is ready in about a millisecond. What a worker must not share with another
is applied after the fork, in the child, exactly as in a spawned worker (`main.serve`: its own
scratch folder, rlimits, namespaces, Landlock, the uid change, seccomp, the audit hook), because
the template has received no `config` and holds none of it.

What keeps one run from reaching the next through the template: the template never runs model
code and never receives a worker's bytes (its only input is the host's control socket, which each
child closes first thing), so every child starts from the same clean memory; a child cannot write
back into its parent's memory (a fork is copy-on-write; ptrace and /proc are refused by seccomp,
Landlock and the audit hook); and the generators seeded at import (`random`) reseed in each child.

The control protocol, on a Unix socket pair the host made (requests one at a time, each answered):
- `F` with three descriptors (the worker's stdin, stdout and stderr): fork a worker on them;
  answered `P<pid>`.
- `S<pid>`: that child (one this connection asked for) is dead or being killed; reap it. Answered
  `R<status>` (a `subprocess` returncode: negative for a signal) or `U` when it has not ended
  within five seconds.
- `L<path>` (the host only): also accept connections on a Unix socket at `path`, in a folder only
  the host's user may enter, from processes of that user (checked again with SO_PEERCRED): a
  team's agent processes then fork their workers here too. Their workers also die with the agent
  process that asked for them, and are killed when its connection closes.
The template ends when the host closes the socket or is gone (checked every second).
Stdlib-only, like the rest of the worker folder.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import struct
import sys
import time

from . import lifetime
from .warm import warm_up

REAP_PATIENCE_SECONDS = 5.0
MAX_WORKERS_PER_PEER = 8
"""Live workers one sharing process (an agent, which needs one) may hold: a peer that asks for
more is refused (it then starts its own), so no process can fill the machine through the template."""
PEER_SEND_SECONDS = 1.0
"""How long an answer to a sharing process may wait for it to read: one that stops reading is
dropped, not waited on by everyone else's forks."""


def serve_template(control_fd: int) -> None:
    """Warm up, then fork workers on request until the host goes away."""
    Template(_expected_host(), socket.socket(fileno=control_fd)).serve()


class Template:
    """The serving loop: the host's connection, and those of the host's other processes (a team's
    agents) once the host has asked it to `share` (L<path>), each served one request at a time."""

    def __init__(self, host: int, host_connection: socket.socket) -> None:
        self.host = host
        self.host_connection = host_connection
        self.peers: dict[socket.socket, int | None] = {host_connection: None}  # -> the pid to die with
        self.listener: socket.socket | None = None
        self.owners: dict[int, socket.socket] = {}  # worker pid -> the connection that asked for it
        self.orphans: set[int] = set()  # workers whose asker left: killed, reaped when they end

    def serve(self) -> None:
        warm_up()
        while True:
            waiting = [*self.peers, *([self.listener] if self.listener is not None else [])]
            ready, _, _ = select.select(waiting, [], [], 1.0)
            if os.getppid() != self.host:
                os._exit(lifetime.EXIT_PARENT_GONE)
            for sock in ready:
                if sock is self.listener:
                    self._accept()
                elif not self._serve_one(sock):
                    if sock is self.host_connection:
                        return  # the host closed its end
                    self._drop(sock)
            self._reap_orphans()

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        pid, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid != os.getuid():  # the folder is the user's alone; this is the second lock
            conn.close()
            return
        conn.settimeout(PEER_SEND_SECONDS)  # readable when served (select), so only sends can wait
        self.peers[conn] = pid

    def _serve_one(self, sock: socket.socket) -> bool:
        """One request answered; False when the peer has gone."""
        try:
            request, fds, _, _ = socket.recv_fds(sock, 4096, 3)
        except OSError:
            return False
        if not request:
            return False
        try:
            answer = self._answer(sock, request, fds)
        finally:
            for fd in fds:
                os.close(fd)
        try:
            sock.sendall(answer)
        except OSError:
            return False
        return True

    def _answer(self, sock: socket.socket, request: bytes, fds: list[int]) -> bytes:
        if request == b"F" and len(fds) == 3:
            held = sum(1 for owner in self.owners.values() if owner is sock)
            if sock is not self.host_connection and held >= MAX_WORKERS_PER_PEER:
                return b"E"
            pid = self._fork_worker(fds, self.peers[sock])
            self.owners[pid] = sock
            return b"P%d" % pid
        if request[:1] == b"S" and request[1:].isdigit() and self.owners.get(int(request[1:])) is sock:
            pid = int(request[1:])
            del self.owners[pid]
            return _reap(pid)
        if request[:1] == b"L" and sock is self.host_connection and self.listener is None:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(request[1:].decode())
            self.listener.listen(64)
            return b"K"
        return b"E"

    def _drop(self, sock: socket.socket) -> None:
        """A peer left (its process ended): its workers end too, and are reaped when they have."""
        del self.peers[sock]
        sock.close()
        for pid in [pid for pid, owner in self.owners.items() if owner is sock]:
            del self.owners[pid]
            # the worker itself first: one forked a moment ago may not have made its own process
            # group yet (setsid), and killing that group alone then missed it; then the group, for
            # what the worker started
            for kill in (os.kill, os.killpg):
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
            self.orphans.add(pid)

    def _reap_orphans(self) -> None:
        for pid in list(self.orphans):
            with contextlib.suppress(ChildProcessError):
                if not os.waitpid(pid, os.WNOHANG)[0]:
                    continue
            self.orphans.discard(pid)

    def _fork_worker(self, fds: list[int], die_with: int | None) -> int:
        pid = os.fork()
        if pid:
            return pid
        try:  # the child: from here on, exactly a spawned worker after its imports
            for sock in [*self.peers, *([self.listener] if self.listener is not None else [])]:
                sock.close()
            os.setsid()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            from .main import main

            main([], parent=os.getppid(), die_with=die_with)
        except BaseException:  # a child must never return into the template's loop
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        os._exit(0)


def _expected_host() -> int:
    """The host's pid (`SMOL_WORKER_PARENT`, removed from the environment the children inherit)."""
    expected = os.environ.pop("SMOL_WORKER_PARENT", "")
    host = int(expected) if expected.isdigit() else os.getppid()
    if os.getppid() != host:
        os._exit(lifetime.EXIT_PARENT_GONE)
    return host


def _reap(pid: int) -> bytes:
    deadline = time.monotonic() + REAP_PATIENCE_SECONDS
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return b"U"
        if done:
            return b"R%d" % os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            return b"U"
        time.sleep(0.002)
