"""Real redis-servers on free ports of 127.0.0.1, one of each kind per test session, stopped after:
an open one (`redis_url`), one that requires a login (`secured_redis_server`), one that also
speaks only TLS (`tls_redis_server`), and one that also asks for client certificates
(`mutual_tls_redis_server`).

Debian's redis-server (scripts/setup.d/50-redis.sh installs it). Without it the tests skip, unless
SMOL_REQUIRE_REDIS=1 (as in scripts/test), where a missing server must fail them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from secured_redis import SecuredRedis, secured_redis

from smol_core.testing.processes import redis_server


def _redis_binary() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("SMOL_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is not installed: run scripts/setup.d/50-redis.sh")
        pytest.skip("redis-server is not installed (scripts/setup.d/50-redis.sh)")
    return binary


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = _redis_binary()
    try:
        with redis_server(binary, tmp_path_factory.mktemp("redis")) as url:
            yield url
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def secured_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredRedis]:
    binary = _redis_binary()
    try:
        with secured_redis(binary, tmp_path_factory.mktemp("redis-acl")) as server:
            yield server
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def tls_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredRedis]:
    binary = _redis_binary()
    try:
        with secured_redis(binary, tmp_path_factory.mktemp("redis-tls"), tls=True) as server:
            yield server
    except RuntimeError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def mutual_tls_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredRedis]:
    binary = _redis_binary()
    try:
        with secured_redis(
            binary, tmp_path_factory.mktemp("redis-mtls"), tls=True, client_certificates=True
        ) as server:
            yield server
    except RuntimeError as error:
        pytest.fail(str(error))
