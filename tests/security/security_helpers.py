"""Helpers shared by the security tests (importable: pytest puts this folder on sys.path)."""

from __future__ import annotations

import os
from pathlib import Path

from smol_core.executors.local import LocalPythonExecutor

CANARY = "smol-canary-secret-0f1e2d"
WRITE_TARGET = Path("/tmp/smol_pwned_marker")


def get_executor(executors: dict, authorized: list[str], timeout: float = 5) -> LocalPythonExecutor:
    key = (*sorted(authorized), f"t={timeout}")
    if key not in executors:
        executors[key] = LocalPythonExecutor(authorized, timeout_seconds=timeout, memory_limit_mb=1024)
    return executors[key]


def assert_host_untouched(secret: Path) -> None:
    assert os.environ.get("SMOL_TEST_API_KEY") == CANARY
    assert secret.read_text() == CANARY
    assert not WRITE_TARGET.exists(), "the sandbox wrote outside its scratch folder"
