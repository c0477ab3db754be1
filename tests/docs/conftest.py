"""Fixtures of the README tests: one workspace per README, the OpenAI stand-in's folder on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# `blocks` and `workspace` beside this file; `openai_stub` from the model plugins' tests.
for folder in (HERE, HERE.parent / "models"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from workspace import Workspace  # noqa: E402


@pytest.fixture(scope="session")
def workspaces(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Workspace]:
    """README path -> its workspace, made on first use and shared by that README's blocks."""
    return {}


@pytest.fixture
def workspace_for(workspaces: dict[Path, Workspace], tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    def get(document: Path) -> Workspace:
        if document not in workspaces:
            workspaces[document] = Workspace(tmp_path_factory.mktemp(document.parent.name or "root"))
        return workspaces[document]

    return get
