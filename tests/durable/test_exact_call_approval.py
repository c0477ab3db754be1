"""What a person approves is what runs: every view shows the whole call a run waits on (escaped),
with the key a decision names it by, and a decision on another key than the waiting call's is
refused, from Python and from `smol runs`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, tool
from smol_core.cli import smol
from smol_core.durable import (
    ApprovalPendingError,
    CheckpointError,
    SQLiteStore,
    approve,
    deny,
    pending_approval,
)
from smol_core.testing import ScriptedModel

MADE: list[tuple[str, int]] = []
MEMO = "Quarterly reconciliation. " * 400  # 10,400 characters before the recipient


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
    return f"<code>\n{text}\n</code>"


TO_ALICE = code(f"print(transfer(memo={MEMO!r}, to='alice', amount=10))")
TO_MALLORY = code(f"print(transfer(memo={MEMO!r}, to='mallory', amount=990000))")


@pytest.fixture(autouse=True)
def _nothing_made() -> None:
    MADE.clear()


def _agent(store: SQLiteStore, replies: list[Any]) -> CodeAgent:
    return CodeAgent(
        tools=[transfer], model=ScriptedModel(replies), checkpoint_store=store, verbosity_level=0
    )


def _paused(store: SQLiteStore, run_id: str, replies: list[Any]) -> str:
    with _agent(store, replies) as bot, pytest.raises(ApprovalPendingError) as paused:
        bot.run("Pay.", run_id=run_id)
    return str(paused.value)


def _key(store: SQLiteStore, run_id: str) -> str:
    waiting = pending_approval(store, run_id)
    assert waiting is not None
    return str(waiting["approval_key"])


def test_a_long_argument_hides_neither_the_recipient_nor_the_amount(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.sqlite3"
    store = SQLiteStore(path)
    message = _paused(store, "pay", [TO_MALLORY])
    # the message shortens each argument, so every name stays in sight, and says where the rest is
    assert "to='mallory'" in message and "amount=990000" in message
    assert "shortened: `smol runs show pay` shows the whole call" in message
    waiting = pending_approval(store, "pay")
    assert waiting is not None and waiting["arguments"] == {"memo": MEMO, "to": "mallory", "amount": 990000}
    assert f"memo={MEMO!r}" in waiting["call"] and "to='mallory'" in waiting["call"]

    assert smol.main(["runs", "--store", str(path), "show", "pay"]) == 0
    shown = capsys.readouterr().out
    assert f"    memo={MEMO!r}," in shown and "    to='mallory'," in shown and "    amount=990000," in shown
    assert f"smol runs approve pay {waiting['approval_key']}" in shown


def test_hostile_arguments_reach_no_terminal_as_control_sequences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.sqlite3"
    hidden = "\x1b[2K\r\u202e" + "ecilA"
    _paused(SQLiteStore(path), "ansi", [code(f"transfer(memo={hidden!r}, to={hidden!r}, amount=1)")])
    assert smol.main(["runs", "--store", str(path), "show", "ansi"]) == 0
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "to='\\x1b[2K\\r\\u202eecilA'" in shown


def test_a_decision_on_a_call_that_is_no_longer_waiting_is_refused(tmp_path: Path) -> None:
    """A second operator saw the first transfer's key; the run moved on to another transfer meanwhile:
    their approval must not let the second one through."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _paused(store, "pay", [TO_ALICE])
    seen = _key(store, "pay")
    approve("pay", seen, store=store)  # the first operator
    with _agent(store, [TO_MALLORY]) as bot, pytest.raises(ApprovalPendingError):
        bot.resume("pay")
    assert MADE == [("alice", 10)]
    with pytest.raises(CheckpointError, match="the call waiting changed.*smol runs show pay"):
        approve("pay", seen, store=store)  # the second operator, deciding on what they saw
    with pytest.raises(CheckpointError, match="the call waiting changed"):
        deny("pay", seen, store=store)
    waiting = pending_approval(store, "pay")
    assert waiting is not None and "approval" not in waiting and waiting["arguments"]["to"] == "mallory"
    with _agent(store, []) as bot, pytest.raises(ApprovalPendingError):
        bot.resume("pay")
    assert MADE == [("alice", 10)]


def test_the_command_refuses_a_key_that_is_not_the_waiting_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.sqlite3"
    _paused(SQLiteStore(path), "pay", [TO_MALLORY])
    capsys.readouterr()
    assert smol.main(["runs", "--store", str(path), "approve", "pay", "0123456789ab"]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and "the call waiting changed" in error
    assert "smol runs show pay" in error
    waiting = pending_approval(SQLiteStore(path), "pay")
    assert waiting is not None and "approval" not in waiting


def test_the_same_call_in_another_step_has_another_key(tmp_path: Path) -> None:
    """A key approves one call once: the same arguments asked for again later wait for a new decision."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    _paused(store, "twice", [TO_ALICE])
    first = _key(store, "twice")
    approve("twice", first, store=store)
    with _agent(store, [TO_ALICE]) as bot, pytest.raises(ApprovalPendingError):
        bot.resume("twice")
    assert MADE == [("alice", 10)] and _key(store, "twice") != first
    with pytest.raises(CheckpointError, match="the call waiting changed"):
        approve("twice", first, store=store)
