"""Fixtures: the real E2B SDK pointed at a stand-in E2B on 127.0.0.1 (see e2b_standin.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from e2b_standin import StandInE2B


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInE2B]:
    with StandInE2B() as server:
        monkeypatch.setenv("E2B_API_URL", server.url)
        monkeypatch.setenv("E2B_SANDBOX_URL", server.url)
        monkeypatch.setenv("E2B_API_KEY", server.api_key)
        monkeypatch.delenv("E2B_DEBUG", raising=False)
        yield server


@pytest.fixture
def make_e2b(standin: StandInE2B) -> Iterator[Callable[..., Any]]:
    from smol_executor_e2b import E2BExecutor

    made: list[Any] = []

    def make(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout_seconds", 20)
        ex = E2BExecutor(*args, **kwargs)
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.close()


@pytest.fixture
def e2b(make_e2b: Callable[..., Any]) -> Any:
    return make_e2b(["json", "asyncio", "dataclasses"])
