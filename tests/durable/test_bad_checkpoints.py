"""Bad input to durable runs: each a one-line error that names the problem, and nothing lost."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import smol_core
from smol_core import CodeAgent, ToolCallingAgent
from smol_core.durable import (
    CheckpointError,
    CheckpointFormatError,
    RunFinishedError,
    RunNotFoundError,
    SQLiteStore,
    StoreUnavailableError,
)
from smol_core.testing import ScriptedModel

REPLIES = [
    "Thought: a\n<code>\nx = 40\n</code>",
    "Thought: b\n<code>\nfinal_answer(x + 2)\n</code>",
]


def _agent(store: SQLiteStore, replies: list[object]) -> CodeAgent:
    return CodeAgent(tools=[], model=ScriptedModel(replies), verbosity_level=0, checkpoint_store=store)


def _unfinished_run(tmp_path: Path) -> SQLiteStore:
    """A run whose second model call failed (a 429 at step 2): step 1 is checkpointed."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with (
        _agent(store, [REPLIES[0], RuntimeError("429 Too Many Requests")]) as agent,
        pytest.raises(Exception),
    ):
        agent.run("add", run_id="r1")
    return store


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and text
    return text


def _overwrite(store: SQLiteStore, data: bytes) -> None:
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET data = ? WHERE run_id = 'r1'", (data,))


def test_a_failed_run_resumes_from_its_last_step(tmp_path: Path) -> None:
    store = _unfinished_run(tmp_path)
    assert store.load("r1").step == 1  # type: ignore[union-attr]
    with _agent(store, [REPLIES[1]]) as agent:
        assert agent.resume("r1") == 42
        assert [type(s).__name__ for s in agent.memory.steps] == ["TaskStep", "ActionStep", "ActionStep"]


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\x00\xffnot json{", "corrupt"),
        (json.dumps({"hello": "world"}).encode(), "not a smol checkpoint"),
        (
            b'{"format": "smol.checkpoint", "format_version": 1, "smol_version": "0.1.0", "steps": 3}',
            "corrupt",
        ),
    ],
    ids=["corrupt", "foreign", "malformed"],
)
def test_unusable_checkpoint_is_one_line_and_kept(tmp_path: Path, data: bytes, says: str) -> None:
    store = _unfinished_run(tmp_path)
    _overwrite(store, data)
    with _agent(store, []) as agent, pytest.raises(CheckpointFormatError) as raised:
        agent.resume("r1")
    assert says in _one_line(raised.value)
    assert store.load("r1").data == data  # type: ignore[union-attr]
    store.release(store.acquire("r1"))  # the failed resume gave its lease back


def test_checkpoint_of_another_smol_version_same_format_resumes(tmp_path: Path) -> None:
    """An upgrade (even a patch release) must not strand the runs in flight: the format version decides."""
    store = _unfinished_run(tmp_path)
    document = json.loads(store.load("r1").data)  # type: ignore[union-attr]
    document["smol_version"] = "0.0.1"
    _overwrite(store, json.dumps(document).encode())
    with _agent(store, [REPLIES[1]]) as agent:
        assert agent.resume("r1") == 42


def test_checkpoint_of_another_format_version_names_both(tmp_path: Path) -> None:
    store = _unfinished_run(tmp_path)
    document = json.loads(store.load("r1").data)  # type: ignore[union-attr]
    document["smol_version"], document["format_version"] = "9.9.9", 99
    _overwrite(store, json.dumps(document).encode())
    with _agent(store, []) as agent, pytest.raises(CheckpointFormatError) as raised:
        agent.resume("r1")
    line = _one_line(raised.value)
    assert "format version 99" in line and "smol 9.9.9" in line and f"smol {smol_core.__version__}" in line
    assert "format version 1" in line


def test_oversized_checkpoint_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _unfinished_run(tmp_path)
    monkeypatch.setattr("smol_core.durable.sqlite_store.MAX_CHECKPOINT_BYTES", 100)
    with _agent(store, []) as agent, pytest.raises(CheckpointFormatError) as raised:
        agent.resume("r1")
    assert "over the 100" in _one_line(raised.value)


def test_resume_with_another_kind_of_agent(tmp_path: Path) -> None:
    store = _unfinished_run(tmp_path)
    agent = ToolCallingAgent(tools=[], model=ScriptedModel([]), verbosity_level=0, checkpoint_store=store)
    with pytest.raises(CheckpointError) as raised:
        agent.resume("r1")
    assert "started by a CodeAgent, not a ToolCallingAgent" in _one_line(raised.value)


def test_unwritable_store_fails_before_the_run_starts(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    store = SQLiteStore(tmp_path / "a-file" / "runs.sqlite3")  # its folder cannot exist
    model = ScriptedModel(REPLIES)
    with CodeAgent(tools=[], model=model, verbosity_level=0, checkpoint_store=store) as agent:
        with pytest.raises(StoreUnavailableError) as raised:
            agent.run("add", run_id="r1")
    assert "a-file" in _one_line(raised.value)
    assert model.position == 0  # no model call was made for a run that could not be saved


def test_finished_run_id_cannot_be_reused_nor_resumed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, REPLIES) as agent:
        assert agent.run("add", run_id="done") == 42
    with _agent(store, REPLIES) as agent:
        with pytest.raises(RunFinishedError) as reused:
            agent.run("add", run_id="done")
        assert "already finished" in _one_line(reused.value)
        with pytest.raises(RunFinishedError) as resumed:
            agent.resume("done")
        assert "already finished" in _one_line(resumed.value)
        with pytest.raises(RunNotFoundError) as missing:
            agent.resume("never-ran")
        _one_line(missing.value)


def test_default_store_lives_under_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = SQLiteStore()
    assert store.path == tmp_path / "data" / "smol" / "runs.sqlite3"
    with CodeAgent(tools=[], model=ScriptedModel(REPLIES), verbosity_level=0) as agent:
        assert agent.run("add", run_id="default") == 42
    assert [record.run_id for record in store.list()] == ["default"]
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_failing_mid_run_stops_it_and_loses_nothing(tmp_path: Path) -> None:
    class FailingStore(SQLiteStore):
        fail = False

        def save(self, *args: Any, **kwargs: Any) -> None:
            if self.fail:
                raise StoreUnavailableError("the run store is full (test)")
            super().save(*args, **kwargs)

    store = FailingStore(tmp_path / "runs.sqlite3")
    seen: list[int] = []

    def step_callback(step: Any) -> None:
        seen.append(step.step_number)
        store.fail = True  # the store breaks during step 1: its checkpoint cannot be written

    agent = CodeAgent(
        tools=[],
        model=ScriptedModel(REPLIES),
        verbosity_level=0,
        checkpoint_store=store,
        step_callbacks=[step_callback],
    )
    with agent, pytest.raises(StoreUnavailableError):
        agent.run("add", run_id="r1")
    store.fail = False
    assert store.load("r1").step == 0  # type: ignore[union-attr]  # the run as saved before step 1
    with _agent(store, REPLIES) as agent:
        assert agent.resume("r1") == 42
