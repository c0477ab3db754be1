"""The chat page keeps few of the durable runs it starts: each session's newest `keep_per_session`,
none older than `max_age_seconds` (by default 5 and a day). Before, every task of a page whose agent
could pause for approval was a run kept forever (six tasks of one visitor: 78 MB)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore
from smol_core.testing import FunctionModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402

DEFAULT_KEEP_PER_SESSION = 5  # the documented default


@tool
def page(to: str) -> str:
    """Pages someone on call.

    Args:
        to: who.
    """
    return f"sent to {to}"


page.requires_approval = True  # so the page runs every task durably


def answer(messages: list[Any], **_: Any) -> str:
    return "Thought: done.\n<code>\nfinal_answer('ok')\n</code>"


def _agent(store: SQLiteStore) -> CodeAgent:
    return CodeAgent(tools=[page], model=FunctionModel(answer), checkpoint_store=store, verbosity_level=-1)


def _drain(stream: Iterator[Any]) -> None:
    for _ in stream:
        pass


def _page_runs(store: SQLiteStore) -> list[str]:
    return [record.run_id for record in store.list() if record.run_id.startswith("ui-")]


def test_a_session_keeps_its_newest_runs_by_default(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    ui = GradioUI(_agent(store))
    session = ui.sessions.get("visitor")
    try:
        for n in range(DEFAULT_KEEP_PER_SESSION + 3):
            _drain(ui.stream_run(f"Task {n}.", session=session))
        assert len(_page_runs(store)) == DEFAULT_KEEP_PER_SESSION
        from smol_ui_gradio.run_retention import DEFAULT_KEEP_PER_SESSION as documented

        assert documented == DEFAULT_KEEP_PER_SESSION
        assert session.runs == _page_runs(store)[::-1]  # the newest, oldest first
    finally:
        ui.sessions.close_all()


def test_runs_older_than_the_age_limit_go_whoever_started_them(tmp_path: Path) -> None:
    from smol_ui_gradio.run_retention import RunRetention

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    ui = GradioUI(_agent(store), run_retention=RunRetention(keep_per_session=2, max_age_seconds=3600))
    first, second = ui.sessions.get("one"), ui.sessions.get("two")
    other = store.acquire("not-the-pages")  # a run of another program in the same store stays
    store.save(other, 1, b"{}")
    store.release(other)
    try:
        _drain(ui.stream_run("Old task.", session=first))
        with sqlite3.connect(store.path) as db:  # two hours pass
            db.execute("UPDATE runs SET updated_at = ?", (time.time() - 7200,))
        _drain(ui.stream_run("New task.", session=second))
        assert len(_page_runs(store)) == 1 and _page_runs(store) == second.runs
        assert "not-the-pages" in {record.run_id for record in store.list()}
    finally:
        ui.sessions.close_all()


def test_retention_can_be_turned_off(tmp_path: Path) -> None:
    from smol_ui_gradio.run_retention import RunRetention

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    ui = GradioUI(_agent(store), run_retention=RunRetention(None, None))
    session = ui.sessions.get("visitor")
    try:
        for n in range(DEFAULT_KEEP_PER_SESSION + 1):
            _drain(ui.stream_run(f"Task {n}.", session=session))
        assert len(_page_runs(store)) == DEFAULT_KEEP_PER_SESSION + 1
    finally:
        ui.sessions.close_all()
