"""`Sessions`: an agent and an upload folder per browser session, released when the session ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, LocalPythonExecutor
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402
from smol_ui_gradio.sessions import Sessions, TooManySessions  # noqa: E402


class Closable:
    def __init__(self) -> None:
        self.closed = False

    def cleanup(self) -> None:
        self.closed = True


def test_each_session_has_its_agent_and_folder_until_it_ends(tmp_path: Path) -> None:
    sessions = Sessions(Closable, tmp_path, limit=2)
    first, second = sessions.get("a"), sessions.get("b")
    assert sessions.get("a") is first and first.agent is not second.agent
    assert first.folder is not None and second.folder is not None and first.folder != second.folder
    (first.folder / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(TooManySessions, match="2 sessions"):
        sessions.get("c")
    sessions.close("a")
    assert first.agent.closed and not first.folder.exists() and "a" not in sessions
    assert sessions.get("c").agent is not first.agent  # a slot came free
    sessions.close_all()
    assert second.agent.closed and not second.folder.exists() and len(sessions) == 0


def test_a_full_page_ends_sessions_left_idle_but_never_one_that_runs(tmp_path: Path) -> None:
    sessions = Sessions(Closable, tmp_path, limit=2, idle_seconds=0.0)
    idle, busy = sessions.get("idle"), sessions.get("busy")
    busy.run_lock.acquire()  # its task is running
    fresh = sessions.get("new")  # the page is full: the idle session makes room
    assert idle.agent.closed and "idle" not in sessions and not busy.agent.closed
    fresh.run_lock.acquire()
    with pytest.raises(TooManySessions):
        sessions.get("another")  # running sessions keep their places, however long they run
    busy.run_lock.release()
    fresh.run_lock.release()
    sessions.close_all()


def test_the_page_copies_the_agent_or_calls_the_function_it_was_given(tmp_path: Path) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), name="helper", verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path)
    copy = ui.sessions.get("tab").agent
    assert copy is not agent and copy.model is agent.model
    made: list[Any] = []

    def make_agent() -> CodeAgent:
        made.append(CodeAgent(tools=[], model=ScriptedModel([]), name="made", verbosity_level=-1))
        return made[-1]

    built = GradioUI(make_agent)
    assert built.agent is made[0] and built.name == "made"
    assert built.sessions.get("tab").agent is made[1]
    ui.sessions.close_all()
    built.sessions.close_all()


def test_an_agent_that_would_share_its_sandbox_is_refused_when_the_page_is_built() -> None:
    executor = LocalPythonExecutor()
    try:
        agent = CodeAgent(tools=[], model=ScriptedModel([]), executor=executor, verbosity_level=-1)
        with pytest.raises(ValueError, match="one agent per user"):
            GradioUI(agent).create_app()
    finally:
        executor.close()
