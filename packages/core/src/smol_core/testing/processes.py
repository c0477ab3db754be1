"""Real processes, read from /proc: for tests that stop a command and check that nothing is left.

Why not a fixed sleep: "wait 0.5 s, then send Ctrl-C" assumes the worker is running the action by
then, which a loaded machine breaks. A process that has used CPU time is provably running; tests
poll for that instead. And why /proc rather than the child handles a test holds: what must be gone
includes processes the command started and that re-parented themselves to PID 1 (Linux only, where
the sandbox's process tests run).

The signal tests share these: what is alive, what descends from what, which processes carry a
marker in their environment, ports, a plugin made on the fly, a launcher that forwards nothing, and
a redis-server of the test's own.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

ProcessTable = Mapping[int, tuple[int, str]]
"""pid -> (parent pid, state letter as in /proc/PID/stat: R, S, Z...)."""

# Stands for `hatch run`, an IDE, a CI step: starts the command as its child and waits, forwarding
# no signal. (Ctrl-C ends it at once, as it ends most launchers, instead of Python's KeyboardInterrupt.)
_SILENT_LAUNCHER = (
    "import signal, subprocess, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "sys.exit(subprocess.call(sys.argv[1:]))"
)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time process `pid` has used so far (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_table() -> dict[int, tuple[int, str]]:
    """Every process on the machine: pid -> (parent pid, state)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            table[int(entry)] = (int(fields[1]), fields[0])
    return table


def descendants(root: int, table: ProcessTable | None = None) -> set[int]:
    """Every process below `root` now (children, their children...)."""
    table = process_table() if table is None else table
    found: set[int] = set()
    frontier = {root}
    while frontier:
        children = {pid for pid, (parent, _) in table.items() if parent in frontier} - found
        found |= children
        frontier = children
    return found


def alive(pids: Iterable[int], table: ProcessTable | None = None) -> set[int]:
    """Those of `pids` that still run (a zombie has ended: only its parent's wait is missing).

    A process's state is its main thread's: a main thread that has exited shows the process as a
    zombie while its other threads still run, holding its descriptors (a server's listening port).
    Such a process still runs."""
    table = process_table() if table is None else table
    return {
        pid for pid in pids if pid in table and (table[pid][1] not in ("Z", "X") or _other_threads_run(pid))
    }


def _other_threads_run(pid: int) -> bool:
    try:
        return len(os.listdir(f"/proc/{pid}/task")) > 1
    except OSError:
        return False


def carrying(variable: str, value: str) -> set[int]:
    """Every process whose environment holds `variable=value`: a marker a test gives the command it
    starts finds all of that command's processes, re-parented ones included."""
    needle = f"{variable}={value}".encode()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found.add(int(entry))
    return found


def command_line(pid: int) -> str:
    """What `pid` runs, as one line ('?' once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"


def describe(pids: Iterable[int]) -> str:
    """One line per process, for an assertion message: pid and command line."""
    return "\n".join(f"{pid}: {command_line(pid)[:200]}" for pid in sorted(pids))


def is_sandbox_worker(pid: int) -> bool:
    """A local executor's worker (its command line imports the worker from smol_core.executors)."""
    return "smol_core.executors." in command_line(pid)


def as_from_a_terminal() -> None:
    """`preexec_fn` for a command a test starts as a person's terminal would: the stop signals at
    their default dispositions. A test run started under `nohup` or as a background job (a CI step,
    `nohup bash scripts/test &`) has SIGHUP or SIGINT ignored, and its children inherit that: a
    command rightly keeps ignoring what it was started ignoring, so a test of how it stops on those
    signals must start it without."""
    import signal

    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)


def silent_launcher(command: list[str]) -> list[str]:
    """`command` under a parent process that forwards no signal (see `_SILENT_LAUNCHER`)."""
    return [sys.executable, "-c", _SILENT_LAUNCHER, *command]


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_open(port: int) -> bool:
    """Something accepts connections on 127.0.0.1:`port`."""
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def entry_point_plugin(site: Path, module: str, source: str) -> Path:
    """Write a `smol` plugin (`module`.py and a dist-info with its entry point) into `site`, a folder
    a test puts on PYTHONPATH of the commands it starts; the plugin exists for those commands only."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    name = module.replace("_", "-")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[smol]\n{name} = {module}\n")
    return site


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"*1\r\n$4\r\nPING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server(binary: str, folder: Path, timeout: float = 30.0) -> Iterator[str]:
    """A redis-server of the caller's own on a free port of 127.0.0.1, nothing persisted, stopped on
    exit; yields its URL once it answers PING. RuntimeError if it exits or stays silent."""
    port = free_port()
    options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(folder)]
    server = subprocess.Popen(
        [binary, "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while not _answers_ping(port):
            if server.poll() is not None:
                raise RuntimeError(f"redis-server exited with status {server.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not answer within {timeout:.0f} s")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
