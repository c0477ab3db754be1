"""A tool call that needs a person's approval, on the chat page: the run pauses and says which call
waits, Approve makes it and resumes the run, Deny tells the model why; in the browser and without."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import wait_for

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore, approve
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402

sent: list[str] = []


@tool
def page(to: str) -> str:
    """Pages someone on call.

    Args:
        to: who.
    """
    sent.append(to)
    return f"sent to {to}"


page.requires_approval = True


def code(text: str) -> str:
    return f"Thought: next.\n<code>\n{text}\n</code>"


def _agent(tmp_path: Path, replies: list[str]) -> CodeAgent:
    sent.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    return CodeAgent(tools=[page], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=-1)


def _text(messages: list[Any]) -> str:
    return " ".join(f"{m['metadata'].get('title') or ''} {m['content']}" for m in messages)


def _last(stream: Iterator[list[Any]]) -> list[Any]:
    messages: list[Any] = []
    for messages in stream:
        pass
    return messages


def test_a_paused_call_is_shown_then_approved_and_the_run_finishes(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [code("result = page(to='ops')"), code("final_answer(result)")])
    with agent:
        ui = GradioUI(agent)
        paused = _text(_last(ui.stream_run("Page ops.")))
        assert "Waiting for your approval" in paused and "page(to='ops')" in paused
        assert sent == [] and ui.pending is not None
        finished = _text(_last(ui.stream_decision(True, "go ahead")))
        assert "sent to ops" in finished and "Final answer" in finished
        assert sent == ["ops"] and ui.pending is None


def test_a_denied_call_is_not_made_and_the_model_reads_the_note(tmp_path: Path) -> None:
    agent = _agent(
        tmp_path,
        [code("result = page(to='ops')"), code("final_answer('not paged')")],
    )
    with agent:
        ui = GradioUI(agent)
        _last(ui.stream_run("Page ops."))
        _last(ui.stream_decision(False, "not at night"))
        assert sent == []
        observations = " ".join(str(step.observations) for step in agent.memory.steps[1:2])
        assert "not at night" in " ".join(m.text for m in agent.model.calls[-1]["messages"]) or (
            "not at night" in observations
        )


def test_a_call_decided_elsewhere_is_resumed_by_the_page(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [code("result = page(to='ops')"), code("final_answer(result)")])
    with agent:
        ui = GradioUI(agent)
        _last(ui.stream_run("Page ops."))
        assert ui.pending is not None
        approve(ui.pending.run_id, ui.pending.key, store=agent.checkpoint_store)  # `smol runs approve ID KEY`
        assert "sent to ops" in _text(_last(ui.stream_decision(False)))  # the first decision stands
        assert sent == ["ops"]


def test_without_a_waiting_call_a_decision_says_so(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [])
    with agent:
        assert "No call is waiting" in _text(_last(GradioUI(agent).stream_decision(True)))


def test_agents_without_approvals_do_not_write_checkpoints(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    agent = CodeAgent(tools=[], model=ScriptedModel([code("final_answer(1)")]), checkpoint_store=store)
    with agent:
        assert "Final answer" in _text(_last(GradioUI(agent).stream_run("One.")))
    assert store.list() == []


@pytest.mark.slow
def test_approve_on_the_page(browser: Any, serve: Callable[[GradioUI], str], tmp_path: Path) -> None:
    pytest.importorskip("selenium")
    from selenium.webdriver.common.by import By

    def chat() -> str:
        return " ".join(str(browser.find_element(By.ID, "smol-chat").text).split())

    def approval_shown() -> bool:
        found = browser.find_elements(By.ID, "smol-approve")
        return bool(found) and found[0].is_displayed()

    agent = _agent(tmp_path, [code("result = page(to='ops')"), code("final_answer(result)")])
    with agent:
        browser.get(serve(GradioUI(agent)))
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box")
        assert not approval_shown()
        box = browser.find_element(By.CSS_SELECTOR, "#smol-task textarea")
        box.send_keys("Page ops.")
        browser.find_element(By.ID, "smol-run").click()
        wait_for(lambda: "Waiting for your approval" in chat(), what="the paused call")
        wait_for(approval_shown, what="the approve button")
        assert "page(to='ops')" in chat() and sent == []
        browser.find_element(By.CSS_SELECTOR, "#smol-approval-note textarea").send_keys("go ahead")
        browser.find_element(By.ID, "smol-approve").click()
        wait_for(lambda: "Final answer: sent to ops" in chat(), what="the resumed run's answer")
        assert "Approved: go ahead" in chat()
        wait_for(lambda: not approval_shown(), what="the buttons hidden again")
        assert sent == ["ops"]
