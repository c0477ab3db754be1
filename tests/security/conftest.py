"""Shared fixtures: a canary secret and files the host owns, checked after every attack."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from security_helpers import CANARY

from smol_core.executors.local import LocalPythonExecutor


@pytest.fixture(scope="session")
def host_canary(tmp_path_factory) -> Iterator[Path]:
    os.environ["SMOL_TEST_API_KEY"] = CANARY
    secret_dir = tmp_path_factory.mktemp("host-secrets")
    secret = secret_dir / "secret.txt"
    secret.write_text(CANARY)
    yield secret
    os.environ.pop("SMOL_TEST_API_KEY", None)


@pytest.fixture(scope="session")
def executors(host_canary) -> Iterator[dict]:
    """One executor per authorized-imports set, reused across attacks (each attack must leave it usable)."""
    made: dict[tuple[str, ...], LocalPythonExecutor] = {}
    yield made
    for ex in made.values():
        ex.close()
