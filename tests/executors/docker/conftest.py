"""Docker tests run against a real engine and the real image (scripts/setup.d/20-docker.sh makes both).

Without an engine or image they are skipped with the reason, unless SMOL_REQUIRE_DOCKER=1: then they
run and fail, so a machine that should have Docker cannot pass by skipping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from smol_core.executors.base import ExecutorUnavailableError


def _engine_problem() -> str | None:
    try:
        from smol_executor_docker import DEFAULT_IMAGE, engine

        client = engine.connect(timeout=10)
        engine.require_image(client, DEFAULT_IMAGE)
    except ExecutorUnavailableError as error:
        return str(error)
    return None


PROBLEM = _engine_problem()


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.docker)
            required = os.environ.get("SMOL_REQUIRE_DOCKER") == "1"  # then they run, and fail
            if PROBLEM and not required and not item.get_closest_marker("no_engine_needed"):
                item.add_marker(pytest.mark.skip(reason=f"Docker not ready: {PROBLEM}"))


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "no_engine_needed: a Docker test that runs without an engine")


@pytest.fixture
def make_docker() -> Iterator[Callable[..., Any]]:
    from smol_executor_docker import DockerExecutor

    made: list[DockerExecutor] = []

    def make(*args: Any, **kwargs: Any) -> DockerExecutor:
        kwargs.setdefault("timeout_seconds", 20)
        executor = DockerExecutor(*args, **kwargs)
        made.append(executor)
        return executor

    yield make
    for executor in made:
        executor.close()
