"""`smolagent --run-id/--resume` and `smol runs list|show|resume|delete`, run in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smol_core import hookimpl
from smol_core.cli import smol, smolagent
from smol_core.plugins.specs import ModelSpec

# what the model plugin replies next: the test sets it before each command
REPLIES: list[Any] = []


class ScriptedModelPlugin:
    @hookimpl
    def smol_models(self) -> list[ModelSpec]:
        from smol_core.testing import ScriptedModel

        def factory(model_id: str | None = None, **kwargs: Any) -> ScriptedModel:
            return ScriptedModel(list(REPLIES))

        return [ModelSpec("durable-script", factory, "Scripted replies.")]


@pytest.fixture
def store(registry: Any, tmp_path: Path) -> str:
    registry.register(ScriptedModelPlugin())
    return str(tmp_path / "runs.sqlite3")


def test_smolagent_run_fails_then_resumes(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    REPLIES[:] = ["Thought: a\n<code>\nx = 20\nname = 'answer'\n</code>", RuntimeError("model server down")]
    options = ["--model-type", "durable-script", "--store", store]
    assert smolagent.main(["add", "--run-id", "job", *options]) == 2
    assert "model server down" in capsys.readouterr().err

    assert smol.main(["runs", "--store", store, "list"]) == 0
    listed = capsys.readouterr().out
    header, row = listed.splitlines()
    assert header.split() == ["RUN", "STATUS", "STEP", "UPDATED", "SIZE", "AGENT", "TASK"]
    assert row.split()[:3] == ["job", "running", "1"]

    assert smol.main(["runs", "--store", store, "show", "job", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["next_step"] == 2 and shown["variables"] == {"x": "int", "name": "str"}
    assert shown["steps"][0] == "task: add"

    REPLIES[:] = ["Thought: b\n<code>\nfinal_answer(f'{name}={x * 2 + 2}')\n</code>"]
    assert smol.main(["runs", "--store", store, "resume", "job", "--model-type", "durable-script"]) == 0
    assert capsys.readouterr().out.strip() == "answer=42"

    assert smolagent.main(["--resume", "job", *options]) == 2
    assert "already finished" in capsys.readouterr().err

    assert smol.main(["runs", "--store", store, "delete", "job"]) == 0
    capsys.readouterr()
    assert smol.main(["runs", "--store", store, "show", "job"]) == 2
    assert "no run 'job'" in capsys.readouterr().err


def test_resume_takes_no_task(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        smolagent.main(["a task", "--resume", "job", "--model-type", "durable-script", "--store", store])
    assert "--resume continues a run" in capsys.readouterr().err


def test_a_store_without_a_durable_run_is_a_usage_error(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--store alone would run the task without checkpoints and keep nothing: say so instead."""
    with pytest.raises(SystemExit) as ended:
        smolagent.main(["a task", "--model-type", "durable-script", "--store", store])
    assert ended.value.code == 2
    assert "--store keeps durable runs: use it with --run-id" in capsys.readouterr().err
