"""A real Arize Phoenix server on a free port of 127.0.0.1, one per test session, stopped after.

Phoenix is heavy (a database, a web app): it is installed only in the `plugin-phoenix` hatch env
(`hatch run plugin-phoenix:test tests/telemetry/phoenix`). Elsewhere these tests skip, unless
SMOL_REQUIRE_PHOENIX=1 (as in scripts/test), where a missing server must fail them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _phoenix_command() -> str | None:
    beside = Path(sys.executable).parent / "phoenix"
    return str(beside) if beside.exists() else shutil.which("phoenix")


class Phoenix:
    """The server's base URL and its span API."""

    def __init__(self, url: str) -> None:
        self.url = url

    def spans(self, project: str, expected: int, timeout: float = 60.0) -> list[dict[str, Any]]:
        """The project's spans, once at least `expected` have arrived (export is asynchronous)."""
        end = time.monotonic() + timeout
        found: list[dict[str, Any]] = []
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(
                    f"{self.url}/v1/projects/{project}/spans?limit=1000", timeout=10
                ) as reply:
                    found = json.load(reply)["data"]
            except urllib.error.HTTPError as error:
                if error.code != 404:  # the project appears with its first span
                    raise
            if len(found) >= expected:
                return found
            time.sleep(0.5)
        return found


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    command = _phoenix_command()
    if command is None:
        if os.environ.get("SMOL_REQUIRE_PHOENIX") == "1":
            pytest.fail("Arize Phoenix is not installed: run these tests in the plugin-phoenix hatch env")
        pytest.skip("Arize Phoenix is not installed (hatch run plugin-phoenix:test tests/telemetry/phoenix)")
    port = _free_port()
    folder = tmp_path_factory.mktemp("phoenix")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))},
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "DO_NOT_TRACK": "1",
    }
    log = (folder / "phoenix.log").open("wb")
    server = subprocess.Popen([command, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):  # it builds its database on first start: allow two minutes on a busy machine
            if server.poll() is not None:
                pytest.fail(
                    f"phoenix serve exited with status {server.returncode}: see {folder / 'phoenix.log'}"
                )
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("phoenix serve did not answer within two minutes")
        yield Phoenix(url)
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
