"""`python -m smol_transport_ray.agent_template`: a warm agent process that a supervisor forks its
agents from, on its node.

Why: a fresh interpreter per agent imports the agent loop, the plugin registry, the model's module
and the relay again: about 0.67 s of CPU each, so a team of 64 took half a minute to start on a
two-node cluster. This process imports all of that once (what the host's local fork server imports,
`FORKSERVER_PRELOAD`, and the modules its supervisor names: the agents' body and models), then
forks one agent per request, each ready in milliseconds. The supervisor (a Ray worker, full of
threads) cannot fork itself safely; this process has one thread and never joins the cluster, so
an agent forked from it imports no Ray, as before.

The protocol, on the Unix socket pair the supervisor passed at start (nothing else can reach it:
it has no name on the file system):
- at start the template writes one byte once it is warm;
- each request is one byte with two descriptors: a socket for that agent, and the write end of the
  pipe that carries the agent's stderr to the supervisor;
- the template forks; on the agent's socket it sends the child's pid with a pidfd of it (so the
  supervisor signals that process and no other, even once the pid is reused), and, once it has
  reaped the child, its exit code (negative: the signal that ended it);
- the child reads its work from its socket: `(target, args, report_path, worker_template)`,
  pickled by the supervisor, which alone can write there. The template never reads an agent's work,
  so no agent's data is in the memory the next agent is forked from.
The template ends when its end of the pair reads as closed: its supervisor closed it, or died (the
kernel closes a dead process's descriptors; PDEATHSIG would not serve, as it follows the thread that
started the template, one of the actor's many). Each agent takes SIGTERM when the template ends (its
own PDEATHSIG: the template has one thread) and stops as it would at the host's request.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pickle
import selectors
import signal
import socket
import struct
import sys
import traceback

PR_SET_PDEATHSIG = 1
CODE = struct.Struct("!q")
"""A pid, an exit code, or the length of a child's work, on the wire."""
MAX_WORK_BYTES = 256 * 1024 * 1024


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    modules = json.loads(sys.argv[2])
    for name in modules:
        with contextlib.suppress(Exception):  # an import that fails here fails again in the agent, said there
            importlib.import_module(name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control.sendall(b"R")
    _serve(control)


def _serve(control: socket.socket) -> None:
    """Fork an agent for each request, and tell each agent's socket how its child ended."""
    wake_read, wake_write = socket.socketpair()
    wake_read.setblocking(False)
    wake_write.setblocking(False)
    signal.set_wakeup_fd(wake_write.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake the loop: reaped below
    children: dict[int, socket.socket] = {}
    with selectors.DefaultSelector() as selector:
        selector.register(control, selectors.EVENT_READ)
        selector.register(wake_read, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj is wake_read:
                    with contextlib.suppress(BlockingIOError):
                        wake_read.recv(4096)
                    _reap(children)
                elif not _fork_one(control, children, (wake_read, wake_write)):
                    return  # the supervisor closed its end: its agents are ending with it


def _fork_one(
    control: socket.socket, children: dict[int, socket.socket], own: tuple[socket.socket, ...]
) -> bool:
    """Serve one request; False when the supervisor has gone."""
    try:
        message, fds, _, _ = socket.recv_fds(control, 1, 2)
    except OSError:
        return False
    if not message:
        return False
    if len(fds) != 2:
        for fd in fds:
            os.close(fd)
        return True
    agent_socket, stderr_fd = socket.socket(fileno=fds[0]), fds[1]
    template = os.getpid()
    pid = os.fork()
    if pid == 0:
        for each in (control, *own, *children.values()):
            each.close()  # another agent's socket, or the template's, is none of this agent's business
        _child(agent_socket, stderr_fd, template)
    os.close(stderr_fd)
    try:
        pidfd = os.pidfd_open(pid)
        socket.send_fds(agent_socket, [CODE.pack(pid)], [pidfd])
        os.close(pidfd)
    except OSError:  # the supervisor gave up on this agent: it will read nothing more from it
        pass
    children[pid] = agent_socket
    return True


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        agent_socket = children.pop(pid, None)
        if agent_socket is not None:
            with contextlib.suppress(OSError):
                agent_socket.sendall(CODE.pack(os.waitstatus_to_exitcode(status)))
            agent_socket.close()


def _child(agent_socket: socket.socket, stderr_fd: int, template: int) -> None:
    """In the forked agent: take its stderr and its work, run it, and end (never returns)."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _die_with(signal.SIGTERM, template)
        os.dup2(stderr_fd, 2)
        os.close(stderr_fd)
        target, args, report_path, worker_template = pickle.loads(_read_work(agent_socket))
        agent_socket.close()
        from smol_transport_ray.child import run_agent

        run_agent(target, args, report_path, worker_template)
        code = 0
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _read_work(agent_socket: socket.socket) -> bytes:
    size = CODE.unpack(_read_exactly(agent_socket, CODE.size))[0]
    if not 0 < size <= MAX_WORK_BYTES:
        raise ValueError(f"an agent's work of {size} bytes")
    return _read_exactly(agent_socket, size)


def _read_exactly(connection: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = connection.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            raise EOFError("the supervisor closed the agent's socket")
        chunks += chunk
    return bytes(chunks)


def _die_with(sig: int, parent: int) -> None:
    """`sig` to this process when its parent dies (Linux); at once if it has died already."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


if __name__ == "__main__":
    main()
