"""The sandboxed worker: a CPython process that holds the code's state and runs one action per message.

Run it as `python -m smol_core.executors.worker.main` (protocol on stdin/stdout) or with
`--socket PATH` (protocol on a Unix socket): the Docker, E2B and WebAssembly executors reuse it as is.
Stdlib-only. Lifecycle: wait for `config`, sandbox itself (sandbox.py), answer `ready` with the
protections that took, then serve `run`, `tools`, `vars` and `reset` until the channel closes
(what each does to the code's state is session.py's).
"""

from __future__ import annotations

import os
import sys

from . import audit, lifetime, memory_reserve, sandbox
from .channel import Channel
from .protocol import decode
from .session import Worker
from .warm import warm_up


# --- the loop ------------------------------------------------------------------------------------
def serve(channel: Channel) -> None:
    warm_up()  # before `config`: a spare worker does it while it waits
    config = channel.recv()
    if config.get("op") != "config":
        raise SystemExit("the first message must be 'config'")
    channel.open_exchange(config)  # `ready` answers `config`: under its exchange id
    channel.set_limits(config.get("frame_limits"))
    worker = Worker(channel, config)
    sys.stdout = sys.stderr = worker.logs  # type: ignore[assignment,unused-ignore]
    scratch = config.get("scratch") or os.getcwd()
    os.makedirs(scratch, exist_ok=True)
    os.chdir(scratch)
    read_roots = audit.python_read_roots()
    reports = sandbox.apply_all(
        config.get("memory_limit_mb"), scratch, read_roots, bool(config.get("os_sandbox", True))
    )
    reports.append(sandbox.clean_environment_report(config.get("expected_env", os.environ)))
    worker.policy = audit.AuditPolicy(scratch, read_roots)
    audit.install(worker.policy)
    reports.append(
        (
            "audit hook",
            True,
            "runtime compiles checked, file access limited, process/network/ctypes events refused",
        )
    )
    reports.insert(
        0, ("language guards", True, "AST checks and rewrites, guarded getattr/import, curated builtins")
    )
    channel.send({"op": "ready", "pid": os.getpid(), "protections": [list(r) for r in reports]})
    while True:
        memory_reserve.hold(worker.trusted)  # (again) once the last reply is out, if there is room
        try:
            message = channel.recv()
        except EOFError:
            return
        channel.open_exchange(message)
        op = message.get("op")
        try:
            if op == "run":
                channel.send_reply(worker.run(str(message["code"])))
                continue
            if op == "namespace":
                values = worker.encoded_namespace(channel.max_bytes, channel.max_elements)
                channel.send_reply({"op": "done", "output": values, "logs": ""})
                continue
            if op == "tools":
                worker.set_tools(message["tools"], bool(message.get("replace")))
            elif op == "vars":
                worker.set_variables(decode(message["values"]))
            elif op == "reset":
                worker._new_namespace()
            elif op == "exit":
                return
            else:
                raise ValueError(f"unknown op {op!r}")
            channel.send({"op": "done", "output": None, "logs": ""})
        except Exception as exc:
            if isinstance(exc, MemoryError):
                memory_reserve.release()  # room to say so
            channel.send(
                {"op": "error", "kind": "internal", "message": f"{type(exc).__name__}: {exc}", "logs": ""}
            )


def _open_channel(argv: list[str]) -> Channel:
    if "--socket" in argv:
        import socket

        path = argv[argv.index("--socket") + 1]
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        fd = sock.detach()
        return Channel(fd, fd)
    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # C-level writes to stdout must not corrupt the protocol
    os.close(devnull)
    return Channel(in_fd, out_fd)


def main(argv: list[str] | None = None, parent: int | None = None, die_with: int | None = None) -> None:
    """`parent`: the warm template this worker was forked from (template.py), which it dies with;
    `die_with`: the process it works for, when that is not the template's host (a team's agent).

    The channel's descriptors move first, while this process has one thread: moving them grows
    the descriptor table, and growing it with the watch threads already running makes the kernel
    wait for an RCU grace period (about 6 ms of each worker's start). Microseconds later, the
    watches start (the parent's pid is checked there, so a host gone meanwhile is still seen)."""
    channel = _open_channel(list(sys.argv[1:] if argv is None else argv))
    _hide_channel_fds(channel)
    if parent is None:
        _die_with_host()
    elif sys.platform.startswith("linux"):  # the template is single-threaded: PDEATHSIG is exact
        lifetime.die_with_parent(parent, pdeathsig=True)
        if die_with is not None:
            lifetime.die_with_process(die_with)
    sys.stdin = None  # type: ignore[assignment,unused-ignore]
    sys.dont_write_bytecode = True  # the installation is read-only to the worker
    serve(channel)


# Where the protocol descriptors are moved: away from the well-known 0 and 1, below the worker's
# RLIMIT_NOFILE (256), and above what a few hundred opens would reach first.
_CHANNEL_FD_BASE = 200


def _die_with_host() -> None:
    """End with the host, however it ends (see lifetime.py): the first thing after the channel moves.

    The host may pass its pid (`SMOL_WORKER_PARENT`) to close the race of a parent gone before this
    ran, and ask for PR_SET_PDEATHSIG (`SMOL_WORKER_PDEATHSIG=1`) when it starts workers from a
    thread that lives as long as it does; both are removed from the environment the code sees.
    """
    if not sys.platform.startswith("linux"):
        return
    expected = os.environ.pop("SMOL_WORKER_PARENT", "")
    pdeathsig = os.environ.pop("SMOL_WORKER_PDEATHSIG", "") == "1"
    lifetime.die_with_parent(int(expected) if expected.isdigit() else None, pdeathsig)


def _hide_channel_fds(channel: Channel) -> None:
    """Move the protocol descriptors to high numbers, close-on-exec, and close the originals.

    Why: code never gets a descriptor-based open (audit hook) nor a socket (seccomp), but the
    well-known 0 and 1 are the first numbers any trick would try.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no fcntl (WebAssembly): nothing to move
        return
    moved: dict[int, int] = {}
    for attr in ("in_fd", "out_fd"):
        fd = getattr(channel, attr, None)
        if type(fd) is not int or fd < 0:
            continue
        if fd not in moved:
            try:
                moved[fd] = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _CHANNEL_FD_BASE)
            except OSError:
                continue
        setattr(channel, attr, moved[fd])
    for old in moved:
        os.close(old)
    if moved:
        channel.where = (
            f"descriptors moved to {', '.join(map(str, sorted(set(moved.values()))))}, close-on-exec"
        )


if __name__ == "__main__":
    main()
