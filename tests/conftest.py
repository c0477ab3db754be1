"""Fixtures every test folder shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from smol_core.plugins.registry import PluginRegistry, reset_registry


@pytest.fixture
def registry() -> Iterator[PluginRegistry]:
    """A fresh plugin registry for the test, installed as the process's registry."""
    fresh = PluginRegistry()
    previous = reset_registry(fresh)
    yield fresh
    reset_registry(previous)
