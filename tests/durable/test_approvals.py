"""Human approval: a durable run pauses before a call that needs a person's decision, its process may
exit, and the run goes on after `approve` (the call is made, once) or `deny` (the model reads why)
from another process, here another agent on the same store and the `smol runs` command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.durable import (
    ApprovalPendingError,
    CheckpointError,
    SQLiteStore,
    approve,
    deny,
    pending_approval,
)
from smol_core.errors import SmolError
from smol_core.testing import ScriptedModel

SENT: list[str] = []


@tool
def send_email(to: str, body: str) -> str:
    """Sends an email.

    Args:
        to: the address.
        body: the text.
    """
    SENT.append(to)
    return f"sent to {to}"


send_email.requires_approval = True

STEP_1 = "<code>\nfound = 6 * 7\nprint(send_email(to='boss@example.com', body=str(found)))\n</code>"
STEP_2 = "<code>\nfinal_answer(found)\n</code>"


@pytest.fixture(autouse=True)
def _no_mail_yet() -> None:
    SENT.clear()


def _key(store: SQLiteStore, run_id: str) -> str:
    waiting = pending_approval(store, run_id)
    assert waiting is not None
    return str(waiting["approval_key"])


def agent(store: SQLiteStore, replies: list[Any], **kwargs: Any) -> CodeAgent:
    return CodeAgent(
        tools=[send_email], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=0, **kwargs
    )


def test_a_run_pauses_before_the_call_and_goes_on_once_approved(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with agent(store, [STEP_1]) as first:
        with pytest.raises(ApprovalPendingError, match="smol runs approve mail-1") as paused:
            first.run("Compute and report it.", run_id="mail-1")
    assert "send_email(" in str(paused.value) and "boss@example.com" in str(paused.value)
    assert SENT == [] and store.load("mail-1").status == "awaiting_approval"  # type: ignore[union-attr]
    waiting = pending_approval(store, "mail-1")
    assert waiting is not None and waiting["call"].startswith("send_email(")
    assert f"smol runs approve mail-1 {waiting['approval_key']}" in str(paused.value)

    # resumed before anyone decided: it pauses again, asking the model nothing and sending nothing
    with agent(store, []) as again:
        with pytest.raises(ApprovalPendingError):
            again.resume("mail-1")
    assert SENT == []

    decided = approve("mail-1", waiting["approval_key"], note="fine", store=store)
    assert decided["approval"] == "approved"
    with pytest.raises(CheckpointError, match="waits for no decision"):
        approve("mail-1", waiting["approval_key"], store=store)
    later = ScriptedModel([STEP_2])  # step 1's reply comes from the checkpoint: the model is asked for step 2
    with CodeAgent(tools=[send_email], model=later, checkpoint_store=store, verbosity_level=0) as resumed:
        assert resumed.resume("mail-1") == 42
    assert SENT == ["boss@example.com"] and later.position == 1
    assert store.load("mail-1").status == "finished"  # type: ignore[union-attr]


def test_a_denied_call_is_not_made_and_the_model_reads_why(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    with agent(store, [STEP_1]) as first, pytest.raises(ApprovalPendingError):
        first.run("Compute and report it.", run_id="mail-2")
    deny("mail-2", _key(store, "mail-2"), note="not to the boss", store=store)
    with agent(store, ["<code>\nfinal_answer('not sent')\n</code>"]) as resumed:
        assert resumed.resume("mail-2") == "not sent"
        observed = resumed.memory.steps[1].observations or str(resumed.memory.steps[1].error)
    assert SENT == []
    assert "denied" in observed and "not to the boss" in observed


def test_an_approval_policy_asks_for_the_calls_it_names(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")

    @tool
    def lookup(key: str) -> str:
        """Looks a key up.

        Args:
            key: the key.
        """
        return key.upper()

    replies = ["<code>\nprint(lookup(key='a'))\nprint(lookup(key='secret'))\n</code>"]
    with CodeAgent(
        tools=[lookup], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=0
    ) as bot:
        bot.approval_policy = lambda name, arguments: arguments.get("key") == "secret"
        with pytest.raises(ApprovalPendingError, match="lookup"):
            bot.run("Look up.", run_id="policy")


def test_a_tool_calling_agent_pauses_too(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    call = {"name": "send_email", "arguments": {"to": "a@example.com", "body": "hi"}}
    bot = ToolCallingAgent(
        tools=[send_email], model=ScriptedModel([call]), checkpoint_store=store, verbosity_level=0
    )
    with pytest.raises(ApprovalPendingError):
        bot.run("Mail a.", run_id="tc")
    approve("tc", _key(store, "tc"), store=store)
    done = {"name": "final_answer", "arguments": {"answer": "mailed"}}
    again = ToolCallingAgent(
        tools=[send_email], model=ScriptedModel([done]), checkpoint_store=store, verbosity_level=0
    )
    assert again.resume("tc") == "mailed" and SENT == ["a@example.com"]


def test_a_run_that_cannot_pause_is_refused_before_any_model_call(tmp_path: Path) -> None:
    model = ScriptedModel([STEP_1])
    with CodeAgent(tools=[send_email], model=model, verbosity_level=0) as bot:
        with pytest.raises(SmolError, match="give run\\(\\) a run_id"):
            bot.run("Mail it.")
    assert model.position == 0 and SENT == []


def test_the_command_approves_and_shows_what_waits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from smol_core.cli import smol

    path = tmp_path / "runs.sqlite3"
    with agent(SQLiteStore(path), [STEP_1]) as first, pytest.raises(ApprovalPendingError):
        first.run("Compute and report it.", run_id="mail-3")
    assert smol.main(["runs", "--store", str(path), "show", "mail-3"]) == 0
    shown = capsys.readouterr().out
    key = _key(SQLiteStore(path), "mail-3")
    assert "status: awaiting_approval" in shown and f"waiting_for_approval: the call of key {key}" in shown
    assert "  send_email(to='boss@example.com', body='42')" in shown
    assert smol.main(["runs", "--store", str(path), "approve", "mail-3", key, "--note", "ok"]) == 0
    assert capsys.readouterr().out.startswith("approved: send_email(")
    assert smol.main(["runs", "--store", str(path), "deny", "mail-3", key]) == 2
    assert "waits for no decision" in capsys.readouterr().err
