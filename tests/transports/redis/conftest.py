"""A real redis-server on a free port of 127.0.0.1, one per test session, stopped after.

Debian's redis-server (scripts/setup.d/50-redis.sh installs it). Without it the tests skip, unless
SMOL_REQUIRE_REDIS=1 (as in scripts/test), where a missing server must fail them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from smol_core.testing.processes import redis_server


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("SMOL_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed: run scripts/setup.d/50-redis.sh")
        pytest.skip("redis-server is not installed (scripts/setup.d/50-redis.sh)")
    try:
        with redis_server(binary, tmp_path_factory.mktemp("redis")) as url:
            yield url
    except RuntimeError as error:
        pytest.fail(str(error))
