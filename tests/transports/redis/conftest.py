"""A real redis-server on a free port of 127.0.0.1, one per test session, stopped after.

Debian's redis-server (scripts/setup.d/50-redis.sh installs it). Without it the tests skip, unless
SMOL_REQUIRE_REDIS=1 (as in scripts/test), where a missing server must fail them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("SMOL_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed: run scripts/setup.d/50-redis.sh")
        pytest.skip("redis-server is not installed (scripts/setup.d/50-redis.sh)")
    import redis

    port = _free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None:
                    pytest.fail(f"redis-server exited with status {server.returncode}")
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not answer within 10 s")
        yield url
    finally:
        client.close()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
