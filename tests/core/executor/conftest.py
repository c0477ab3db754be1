from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from smol_core.executors.local import LocalPythonExecutor


@pytest.fixture
def make_executor() -> Iterator[Callable[..., LocalPythonExecutor]]:
    """Build executors that are closed after the test."""
    made: list[LocalPythonExecutor] = []

    def make(*args: Any, **kwargs: Any) -> LocalPythonExecutor:
        kwargs.setdefault("timeout_seconds", 20)
        ex = LocalPythonExecutor(*args, **kwargs)
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.close()


@pytest.fixture
def executor(make_executor: Callable[..., LocalPythonExecutor]) -> LocalPythonExecutor:
    return make_executor(["dataclasses", "functools", "typing", "asyncio", "json", "enum", "abc"])
