"""Fixtures for the WebAssembly executor: real Node.js + the local Pyodide npm copy (no mocks).

Without Node or Pyodide the tests skip with the reason, except under CI, where
scripts/setup.d/30-wasm.sh must have installed them and a skip would hide a broken set-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from smol_core.executors.base import ExecutorUnavailableError


def _runtime_or_skip() -> None:
    from smol_executor_wasm.runtime import locate

    try:
        locate()
    except ExecutorUnavailableError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def wasm_runtime() -> None:
    _runtime_or_skip()


@pytest.fixture
def make_wasm(wasm_runtime: None) -> Iterator[Callable[..., Any]]:
    from smol_executor_wasm import WasmExecutor

    made: list[Any] = []

    def make(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("timeout_seconds", 30)
        ex = WasmExecutor(*args, **kwargs)
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.close()


@pytest.fixture(scope="module")
def wasm(wasm_runtime: None) -> Iterator[Any]:
    """One executor per test module (Pyodide takes seconds to start); tests must leave it usable."""
    from smol_executor_wasm import WasmExecutor

    ex = WasmExecutor(["json", "dataclasses", "functools", "asyncio", "typing"], timeout_seconds=30)
    yield ex
    ex.close()
