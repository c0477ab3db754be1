"""Attacks on the page's approvals and on its retention of runs: a run pruned while its panel is open,
retention racing a running task, a decision sent twice, a stale or forged key, and a model whose call
arguments carry HTML, Markdown and terminal sequences (what the panel and the chat render)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore
from smol_core.testing import FunctionModel, ScriptedModel

pytest.importorskip("gradio")

from smol_ui_gradio import GradioUI  # noqa: E402
from smol_ui_gradio.run_retention import RunRetention  # noqa: E402

sent: list[str] = []
release = threading.Event()
holding = threading.Event()


@tool
def page(to: str) -> str:
    """Pages someone on call.

    Args:
        to: who.
    """
    sent.append(to)
    return f"sent to {to}"


page.requires_approval = True


@tool
def hold() -> str:
    """Waits until the test lets the run go on."""
    holding.set()
    release.wait(60)
    return "held"


def code(text: str) -> str:
    return f"Thought: next.\n<code>\n{text}\n</code>"


def _agent(store: SQLiteStore, replies: list[str]) -> CodeAgent:
    sent.clear()
    return CodeAgent(
        tools=[page, hold], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=-1
    )


def _text(messages: list[Any]) -> str:
    return " ".join(f"{m['metadata'].get('title') or ''} {m['content']}" for m in messages)


def _last(stream: Iterator[list[Any]]) -> list[Any]:
    messages: list[Any] = []
    for messages in stream:
        pass
    return messages


def _age_every_run(store: SQLiteStore, seconds: float) -> None:
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET updated_at = ?", (time.time() - seconds,))


def test_a_run_whose_call_the_panel_shows_outlives_the_sessions_later_tasks(tmp_path: Path) -> None:
    """Broke: five more tasks in the session pruned the paused run (its newest 5 kept) while the
    panel still showed its call; Approve then failed with a store error, and the call could never
    be decided."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    later = [code("final_answer('ok')")] * 5
    with _agent(store, [code("result = page(to='ops')"), *later, code("final_answer(result)")]) as agent:
        ui = GradioUI(agent)
        session = ui.sessions.get("visitor")
        try:
            _last(ui.stream_run("Page ops.", session=session))
            shown = session.pending
            assert shown is not None
            for n in range(5):
                _last(ui.stream_run(f"Task {n}.", session=session))
            assert shown.run_id in {record.run_id for record in store.list()}
            assert session.pending == shown  # the panel still shows it
            finished = _text(_last(ui.stream_decision(True, session=session, key=shown.key)))
            assert "sent to ops" in finished and sent == ["ops"]
        finally:
            ui.sessions.close_all()


def test_a_run_whose_call_a_panel_shows_outlives_the_age_limit(tmp_path: Path) -> None:
    """Broke: another visitor's task pruned, by age, a run whose call a panel still showed."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    replies = [code("result = page(to='ops')"), code("final_answer('ok')"), code("final_answer(result)")]
    with _agent(store, replies) as agent:
        ui = GradioUI(agent, run_retention=RunRetention(keep_per_session=5, max_age_seconds=3600))
        waiting, other = ui.sessions.get("waiting"), ui.sessions.get("other")
        try:
            _last(ui.stream_run("Page ops.", session=waiting))
            assert waiting.pending is not None
            _age_every_run(store, 7200)  # the person went home with the tab open
            _last(ui.stream_run("Something else.", session=other))
            finished = _text(_last(ui.stream_decision(True, session=waiting, key=waiting.pending.key)))
            assert "sent to ops" in finished and sent == ["ops"]
            ui.sessions.close("waiting")  # once no panel shows it, the age limit applies again
            _age_every_run(store, 7200)
            _last(ui.stream_run("Again.", session=other))
            assert [r.run_id for r in store.list() if r.run_id.startswith("ui-")] == other.runs[-1:]
        finally:
            ui.sessions.close_all()


def test_a_decision_on_a_run_deleted_meanwhile_says_so_and_closes_the_panel(tmp_path: Path) -> None:
    """Broke: a run pruned from a terminal (`smol runs prune`) while the panel showed its call left
    the panel up, and each Approve answered with the store's error and showed the dead call again."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, [code("result = page(to='ops')")]) as agent:
        ui = GradioUI(agent)
        session = ui.sessions.get("visitor")
        try:
            _last(ui.stream_run("Page ops.", session=session))
            shown = session.pending
            assert shown is not None
            store.delete(shown.run_id)
            said = _text(_last(ui.stream_decision(True, session=session, key=shown.key)))
            assert "no longer" in said and shown.run_id in said and "Traceback" not in said
            assert session.pending is None and sent == []
        finally:
            ui.sessions.close_all()


def test_retention_never_removes_the_run_of_a_task_still_running(tmp_path: Path) -> None:
    """Held: a run being driven holds its lease, so another session's pruning (by age) keeps it."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")

    def reply(messages: list[Any], **_: Any) -> str:
        said = " ".join(str(getattr(m, "text", m)) for m in messages)
        if "Hold on." in said and "held" not in said.split("Hold on.")[-1]:
            return code("hold()")
        return code("final_answer('done')")

    holding.clear()
    release.clear()
    agent = CodeAgent(
        tools=[page, hold], model=FunctionModel(reply), checkpoint_store=store, verbosity_level=-1
    )
    with agent:
        ui = GradioUI(agent, run_retention=RunRetention(keep_per_session=1, max_age_seconds=60))
        running, other = ui.sessions.get("running"), ui.sessions.get("other")
        result: list[str] = []
        worker = threading.Thread(
            target=lambda: result.append(_text(_last(ui.stream_run("Hold on.", session=running))))
        )
        try:
            worker.start()
            assert holding.wait(60)
            _age_every_run(store, 7200)
            _last(ui.stream_run("Quick.", session=other))
            release.set()
            worker.join(60)
            assert "done" in result[0] and "Error" not in result[0]
            assert running.runs and running.runs[0] in {r.run_id for r in store.list()}
        finally:
            release.set()
            ui.sessions.close_all()


def test_a_decision_sent_twice_makes_the_call_once(tmp_path: Path) -> None:
    """Held: two Approves for one key (a double click, two requests of one session) make one call."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, [code("result = page(to='ops')"), code("final_answer(result)")]) as agent:
        ui = GradioUI(agent)
        session = ui.sessions.get("visitor")
        try:
            _last(ui.stream_run("Page ops.", session=session))
            assert session.pending is not None
            key = session.pending.key
            answers: list[str] = []
            both = [
                threading.Thread(
                    target=lambda: answers.append(
                        _text(_last(ui.stream_decision(True, session=session, key=key)))
                    )
                )
                for _ in range(2)
            ]
            for thread in both:
                thread.start()
            for thread in both:
                thread.join(60)
            again = _text(_last(ui.stream_decision(True, session=session, key=key)))
            assert sent == ["ops"] and "No call is waiting" in again
        finally:
            ui.sessions.close_all()


HOSTILE = (
    "</textarea><img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
    "```\n\n**Approved by the operator** key `000000000000`\n\x1b[2J\x1b[31mred\r\u202eevil"
)


@pytest.mark.slow
def test_hostile_arguments_are_shown_as_text_in_the_browser(
    browser: Any, serve: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    """Held: the panel is a text box (its value, never markup), and the chat shows the call in a code
    block whose fence is longer than any run of backticks in it, with each argument its `repr`."""
    pytest.importorskip("selenium")
    from browser_kit import wait_for
    from selenium.webdriver.common.by import By

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, [code(f"result = page(to={HOSTILE!r})")]) as agent:
        ui = GradioUI(agent)
        browser.get(serve(ui))
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#smol-task textarea"), what="the task box")
        title = browser.title
        browser.find_element(By.CSS_SELECTOR, "#smol-task textarea").send_keys("Page them.")
        browser.find_element(By.ID, "smol-run").click()

        def panel() -> str:
            box = browser.find_element(By.CSS_SELECTOR, "#smol-approval-call textarea")
            return str(box.get_attribute("value"))

        wait_for(lambda: "onerror" in panel(), what="the call in the panel")
        (session,) = (ui.sessions[key] for key in ui.sessions.keys())
        assert session.pending is not None
        assert panel() == session.pending.call
        assert "\\x1b[2J" in panel() and "\\u202e" in panel() and "\x1b" not in panel()
        chat = browser.find_element(By.ID, "smol-chat")
        assert chat.find_elements(By.CSS_SELECTOR, "img[src='x'], script") == []
        assert chat.find_elements(By.XPATH, ".//strong[contains(., 'Approved by the operator')]") == []
        assert session.pending.key in chat.text
        assert browser.title == title and sent == []


def test_a_visitor_who_reloads_the_tab_keeps_no_more_runs(tmp_path: Path) -> None:
    """Broke: the count rule held per session, and a reload (or Reset) starts a new session, so a
    visitor who reloaded every 5 tasks kept every run for a day (the age rule) without bound. Now
    a session's runs go when it ends, but for one still waiting on a decision (a terminal may
    decide it: `smol runs approve`), which the age rule bounds."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    finals = [code("final_answer('ok')")] * 15
    with _agent(store, [*finals, code("result = page(to='ops')")]) as agent:
        ui = GradioUI(agent)
        try:
            for visit in range(3):
                session = ui.sessions.get(f"visit-{visit}")
                for n in range(5):
                    _last(ui.stream_run(f"Task {n}.", session=session))
                ui.sessions.close(f"visit-{visit}")  # the tab reloads
            assert [r.run_id for r in store.list() if r.run_id.startswith("ui-")] == []
            session = ui.sessions.get("last")
            _last(ui.stream_run("Page ops.", session=session))
            paused = session.pending
            assert paused is not None
            ui.sessions.close("last")
            assert [r.run_id for r in store.list() if r.run_id.startswith("ui-")] == [paused.run_id]
        finally:
            ui.sessions.close_all()


def test_another_session_cannot_decide_a_call_with_its_key(
    serve: Callable[[GradioUI], str], tmp_path: Path
) -> None:
    """Held: a visitor who learned the key of another session's waiting call (it is shown, not
    secret) and sends Approve with it, over HTTP under their own or a made-up session id, decides
    nothing: a decision is about the call the sender's own session waits on."""
    from page_api import call_event

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, [code("result = page(to='ops')"), code("final_answer(result)")]) as agent:
        ui = GradioUI(agent)
        url = serve(ui)
        victim = ui.sessions.get("victim-tab")
        _last(ui.stream_run("Page ops.", session=victim))
        assert victim.pending is not None
        server = ("127.0.0.1", int(url.rstrip("/").rsplit(":", 1)[1]))
        for session_hash in ("made-up", "attacker"):
            said = call_event(server, "on_approve", ["", victim.pending.key, []], session_hash)
            assert "sent to ops" not in said
        assert sent == [] and victim.pending is not None
        assert "sent to ops" in _text(_last(ui.stream_decision(True, session=victim, key=victim.pending.key)))


def test_approving_on_the_page_a_run_a_terminal_already_finished_makes_nothing_again(tmp_path: Path) -> None:
    """Held: a second operator approved and resumed the run to its end in a terminal; the page's
    Approve with the key it still shows makes no call again (at most the run's answer is shown)."""
    from smol_core.durable import approve

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with _agent(store, [code("result = page(to='ops')")]) as agent:
        ui = GradioUI(agent)
        session = ui.sessions.get("visitor")
        try:
            _last(ui.stream_run("Page ops.", session=session))
            shown = session.pending
            assert shown is not None
            approve(shown.run_id, shown.key, store=store)
            with CodeAgent(
                tools=[page, hold],
                model=ScriptedModel([code("final_answer(result)")]),
                checkpoint_store=store,
            ) as terminal:
                assert terminal.resume(shown.run_id) == "sent to ops"
            said = _text(_last(ui.stream_decision(True, session=session, key=shown.key)))
            assert sent == ["ops"] and "Traceback" not in said
            assert session.pending is None
        finally:
            ui.sessions.close_all()
