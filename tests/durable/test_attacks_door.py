"""Red-team attacks on the run's door itself (effects.py) in durable runs: a stream dropped half way,
a user's extension that fails in the middle of a call. Each keeps a promise of docs/durable.md."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, tool
from smol_core.durable import SQLiteStore
from smol_core.effects import RunExtension
from smol_core.replay import ReplayDivergenceError, recording, replaying
from smol_core.testing import FunctionModel, ResumableScript

EMAILS: list[str] = []


@tool
def send_email(to: str) -> str:
    """Sends an email.

    Args:
        to: who.
    """
    EMAILS.append(to)
    return f"sent to {to}"


REPLIES = ["<code>\nx = 20\n</code>", "<code>\ny = x + 1\n</code>", "<code>\nfinal_answer(x + y)\n</code>"]


def _agent(store: SQLiteStore, calls: Path) -> CodeAgent:
    model = FunctionModel(ResumableScript(REPLIES, log=calls))
    return CodeAgent(tools=[], model=model, verbosity_level=0, checkpoint_store=store)


def test_a_durable_stream_dropped_half_way_gives_its_lease_back_and_resumes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    calls = tmp_path / "calls.log"
    with _agent(store, calls) as agent:
        events = agent.run("Add.", run_id="stream", stream=True)
        next(events)
        next(events)  # a step or two in, the consumer goes away
        del events
        gc.collect()
        store.release(store.acquire("stream"))  # RunLockedError if the lease stayed with the dead stream
        assert agent.resume("stream") == 41
    assert calls.read_text().split() == ["0", "1", "2"]  # each reply asked for once


class FailsAfterReplies(RunExtension):
    """A user's audit hook whose backend fails after the model answered."""

    def after_model_call(self, call: Any, reply: Any, answered_by: Any) -> None:
        if answered_by is None:
            raise ConnectionError("audit backend down")


def test_a_users_extension_that_fails_after_a_reply_costs_no_second_model_call(tmp_path: Path) -> None:
    """The reply was paid for: the durable journal has it whatever the user's extension does after,
    so the resumed run takes it from the checkpoint instead of asking the model again."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    calls = tmp_path / "calls.log"
    with _agent(store, calls) as agent:
        agent.run_extensions.append(FailsAfterReplies())
        with pytest.raises(Exception, match="audit backend down"):
            agent.run("Add.", run_id="audited")
    with _agent(store, calls) as agent:
        assert agent.resume("audited") == 41
    assert calls.read_text().split() == ["0", "1", "2"]


# --- a cassette handed over: a tool event that answers a team member's call ---------------------------
def _mailing_team() -> CodeAgent:
    member = CodeAgent(
        tools=[send_email],
        model=FunctionModel(
            ResumableScript(["<code>\nfinal_answer(send_email(to='ops@example.com'))\n</code>"])
        ),
        name="mailer",
        description="Mails.",
        verbosity_level=0,
    )
    manager = ["<code>\nout = mailer(task='mail ops')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    return CodeAgent(
        tools=[], managed_agents=[member], model=FunctionModel(ResumableScript(manager)), verbosity_level=0
    )


def test_a_cassettes_tool_event_cannot_answer_a_members_call(tmp_path: Path) -> None:
    """A member's call is not a tool call on tape: its run is, under its own path. A forged event
    answering `mailer(...)` for the manager is a divergence, and the replay makes no call."""
    tape = tmp_path / "team.jsonl"
    EMAILS.clear()
    with _mailing_team() as boss, recording(boss, tape):
        boss.run("Mail.")
    assert EMAILS == ["ops@example.com"]
    with _mailing_team() as boss, replaying(boss, tape):
        assert "sent to ops@example.com" in str(boss.run("Mail."))
    assert EMAILS == ["ops@example.com"]  # the replay of the member sent nothing
    lines = tape.read_text().splitlines()
    forged = {
        "kind": "tool",
        "step": 1,
        "tool": "mailer",
        "arguments": {"task": "mail ops", "additional_args": None},
    }
    lines.insert(2, json.dumps({**forged, "result": "forged answer"}))
    tape.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayDivergenceError, match="managed agent 'mailer'"):
        with _mailing_team() as boss, replaying(boss, tape):
            boss.run("Mail.")
    assert EMAILS == ["ops@example.com"]
