"""A team member's work is part of its manager's durable run (agents/effects.py, durable/runner.py):
its call goes through the manager's ledger, its own run is a durable sub-run, and the manager's
approval policy and budget cover it. Each test here failed when a member was called outside the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from killed_run import killed_while_waiting_then_resumed  # noqa: E402

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.agents.budget import RunBudget
from smol_core.durable import SQLiteStore, approve, pending_approval
from smol_core.durable.errors import ApprovalPendingError
from smol_core.errors import BudgetExceededError
from smol_core.testing import FunctionModel, ResumableScript, ScriptedModel

SCRIPT = Path(__file__).with_name("member_run.py")


def _killed_then_resumed(tmp_path: Path, where: str) -> dict[str, Any]:
    return killed_while_waiting_then_resumed(SCRIPT, tmp_path, where)


def _charges(tmp_path: Path) -> list[str]:
    return [line for line in (tmp_path / "calls.log").read_text().splitlines() if line.startswith("charge")]


def test_a_member_that_answered_before_the_crash_is_not_called_again(tmp_path: Path) -> None:
    result = _killed_then_resumed(tmp_path, "manager")
    assert _charges(tmp_path) == ["charge 10"]  # the card was charged once
    assert result["answer"].startswith("Here is the final answer from your managed agent 'payer':")
    assert result["answer"].endswith("receipt #1|settled")


def test_a_member_killed_mid_work_resumes_where_it_was(tmp_path: Path) -> None:
    result = _killed_then_resumed(tmp_path, "member")
    assert _charges(tmp_path) == ["charge 10"]  # the member's own ledger kept its charge
    assert "receipt #1" in result["answer"]
    runs = {record.run_id: record.status for record in SQLiteStore(tmp_path / "runs.sqlite3").list()}
    sub_runs = [run_id for run_id in runs if run_id.startswith("job.payer.")]
    assert len(sub_runs) == 1 and runs[sub_runs[0]] == "finished" and runs["job"] == "finished"


@tool
def drop_table(name: str) -> str:
    """Drops a table.

    Args:
        name: the table.
    """
    DROPPED.append(name)
    return f"dropped {name}"


DROPPED: list[str] = []


def _team(
    store: SQLiteStore, member_replies: list[str], manager_replies: list[str], policy: Any
) -> CodeAgent:
    # each reply picked from the conversation, as a resumed run in another process would get it
    member = CodeAgent(
        tools=[drop_table],
        model=FunctionModel(ResumableScript(member_replies)),
        name="dba",
        description="Runs SQL.",
        verbosity_level=0,
    )
    manager = CodeAgent(
        tools=[],
        managed_agents=[member],
        model=FunctionModel(ResumableScript(manager_replies)),
        verbosity_level=0,
        checkpoint_store=store,
    )
    manager.approval_policy = policy
    return manager


def test_the_managers_approval_policy_asks_before_a_members_call(tmp_path: Path) -> None:
    DROPPED.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    manager = ["<code>\nout = dba(task='drop users')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    asked: list[str] = []

    def ask_for(tool_name: str, arguments: Any) -> bool:
        asked.append(tool_name)
        return tool_name == "drop_table"

    with _team(store, member, manager, ask_for) as boss:
        with pytest.raises(ApprovalPendingError, match="drop_table"):
            boss.run("Clean up.", run_id="ops")
    assert DROPPED == []  # nothing dropped before a person approved
    assert store.load("ops").status == "awaiting_approval"  # type: ignore[union-attr]
    sub_run = next(r.run_id for r in store.list() if r.run_id.startswith("ops.dba."))
    waiting = pending_approval(store, sub_run)
    assert waiting is not None and waiting["tool"] == "drop_table"
    approve(sub_run, waiting["approval_key"], store=store)
    with _team(store, member, manager, ask_for) as boss:
        answer = boss.resume("ops")
    assert DROPPED == ["users"] and "dropped users" in str(answer)
    assert "dba" in asked and "drop_table" in asked


def test_a_members_tokens_count_against_the_managers_budget(tmp_path: Path) -> None:
    # the member spends far more than the manager's budget in its own steps
    member = CodeAgent(
        tools=[],
        model=ScriptedModel(["<code>\nx = 1\n</code>"] * 30 + ["<code>\nfinal_answer(1)\n</code>"]),
        name="busy",
        description="Works.",
        verbosity_level=0,
        max_steps=40,
    )
    manager_model = ScriptedModel(
        ["<code>\nout = busy(task='work')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    )
    with CodeAgent(tools=[], managed_agents=[member], model=manager_model, verbosity_level=0) as boss:
        one_step = ScriptedModel(["<code>\nx = 1\n</code>"]).generate(boss.write_memory_to_messages())
        assert one_step.token_usage is not None
        limit = one_step.token_usage.total_tokens * 5
        with pytest.raises(BudgetExceededError, match="tokens budget"):
            boss.run("Work.", budget=RunBudget(tokens=limit))
    assert member.model.position < 10  # type: ignore[attr-defined]  # stopped well before its 31 steps
    assert manager_model.position == 1  # the manager's second call was never made


def test_a_tool_calling_member_goes_through_the_managers_ledger(tmp_path: Path) -> None:
    DROPPED.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ToolCallingAgent(
        tools=[drop_table],
        model=ScriptedModel(["<code>\nfinal_answer('unused')\n</code>"]),
        name="dba",
        description="Runs SQL.",
        verbosity_level=0,
    )
    manager_model = ScriptedModel(["<code>\nout = dba(task='x')\n</code>"])
    with CodeAgent(
        tools=[], managed_agents=[member], model=manager_model, verbosity_level=0, checkpoint_store=store
    ) as boss:
        boss.approval_policy = lambda name, arguments: name == "dba"
        with pytest.raises(ApprovalPendingError, match="dba"):
            boss.run("Clean up.", run_id="ops2")
    assert "dba" in str(pending_approval(store, "ops2"))
