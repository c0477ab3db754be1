"""On the chat page, what a person approves is what runs: the panel shows the whole call and its key,
the chat shows every argument (shortened, and says so), and a decision on a call that no longer
waits (decided and moved on in a terminal, or in another tab) is refused and the new call shown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore, approve
from smol_core.testing import ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402

MADE: list[tuple[str, int]] = []
MEMO = "Quarterly reconciliation. " * 400


@tool
def transfer(memo: str, to: str, amount: int) -> str:
    """Moves money.

    Args:
        memo: what it is for.
        to: the account.
        amount: how much.
    """
    MADE.append((to, amount))
    return f"sent {amount} to {to}"


transfer.requires_approval = True


def code(text: str) -> str:
    return f"Thought: next.\n<code>\n{text}\n</code>"


TO_ALICE = code(f"result = transfer(memo={MEMO!r}, to='alice', amount=10)")
TO_MALLORY = code(f"result = transfer(memo={MEMO!r}, to='mallory', amount=990000)")


def _agent(tmp_path: Path, replies: list[Any]) -> CodeAgent:
    MADE.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    return CodeAgent(
        tools=[transfer], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=-1
    )


def _text(messages: list[Any]) -> str:
    return " ".join(f"{m['metadata'].get('title') or ''} {m['content']}" for m in messages)


def _last(stream: Iterator[list[Any]]) -> list[Any]:
    messages: list[Any] = []
    for messages in stream:
        pass
    return messages


def test_the_page_shows_the_whole_call_and_its_key(tmp_path: Path) -> None:
    with _agent(tmp_path, [TO_MALLORY]) as agent:
        ui = GradioUI(agent)
        chat = _text(_last(ui.stream_run("Pay.")))
        assert ui.pending is not None
        assert "to='mallory'" in chat and "amount=990000" in chat and "shortened here" in chat
        assert ui.pending.key in chat
        assert f"memo={MEMO!r}" in ui.pending.call and "to='mallory'" in ui.pending.call  # the panel's


def test_a_decision_on_a_call_that_no_longer_waits_is_refused(tmp_path: Path) -> None:
    with _agent(tmp_path, [TO_ALICE, TO_MALLORY, code("final_answer(result)")]) as agent:
        ui = GradioUI(agent)
        _last(ui.stream_run("Pay."))
        seen = ui.pending
        assert seen is not None
        # meanwhile, in a terminal: approved, resumed, and now the run waits on another transfer
        approve(seen.run_id, seen.key, store=agent.checkpoint_store)
        with (
            CodeAgent(
                tools=[transfer], model=ScriptedModel([TO_MALLORY]), checkpoint_store=agent.checkpoint_store
            ) as terminal,
            pytest.raises(Exception, match="paused"),
        ):
            terminal.resume(seen.run_id)
        assert MADE == [("alice", 10)]
        chat = _text(_last(ui.stream_decision(True, "ok", key=seen.key)))  # the page's button, stale key
        assert "The call waiting changed, so nothing was decided" in chat and "to='mallory'" in chat
        assert MADE == [("alice", 10)]
        assert ui.pending is not None and ui.pending.key != seen.key  # the panel shows the new call


def test_a_key_the_panel_did_not_show_is_refused(tmp_path: Path) -> None:
    with _agent(tmp_path, [TO_MALLORY]) as agent:
        ui = GradioUI(agent)
        _last(ui.stream_run("Pay."))
        chat = _text(_last(ui.stream_decision(True, key="0123456789ab")))
        assert "The call waiting changed" in chat and MADE == []
        assert ui.pending is not None


@pytest.mark.slow
def test_in_the_browser_the_panel_shows_the_whole_call_and_a_stale_approval_is_refused(
    browser: Any, serve: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    pytest.importorskip("selenium")
    from browser_kit import wait_for
    from selenium.webdriver.common.by import By

    def chat() -> str:
        return " ".join(str(browser.find_element(By.ID, "smol-chat").text).split())

    def panel(what: str) -> str:
        return str(
            browser.find_element(
                By.CSS_SELECTOR, f"#smol-approval-{what} textarea, #smol-approval-{what} input"
            ).get_attribute("value")
        )

    with _agent(tmp_path, [TO_ALICE, code("final_answer(result)")]) as agent:
        ui = GradioUI(agent)
        browser.get(serve(ui))
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box")
        browser.find_element(By.CSS_SELECTOR, "#smol-task textarea").send_keys("Pay.")
        browser.find_element(By.ID, "smol-run").click()
        wait_for(lambda: "to='alice'" in panel("call"), what="the whole call in the panel")
        assert f"memo={MEMO!r}" in panel("call")
        (session,) = (ui.sessions[key] for key in ui.sessions.keys())
        assert session.pending is not None and panel("key") == session.pending.key
        seen = session.pending
        # meanwhile, in a terminal: approved and resumed; the run now waits on another transfer
        approve(seen.run_id, seen.key, store=agent.checkpoint_store)
        with (
            CodeAgent(
                tools=[transfer], model=ScriptedModel([TO_MALLORY]), checkpoint_store=agent.checkpoint_store
            ) as terminal,
            pytest.raises(Exception, match="paused"),
        ):
            terminal.resume(seen.run_id)
        browser.find_element(By.ID, "smol-approve").click()  # the person approves what they saw
        wait_for(lambda: "The call waiting changed" in chat(), what="the refusal")
        wait_for(lambda: "to='mallory'" in panel("call"), what="the new call in the panel")
        assert MADE == [("alice", 10)] and panel("key") != seen.key
