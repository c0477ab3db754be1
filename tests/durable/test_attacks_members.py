"""Red-team attacks on what a durable run promises for the team members it calls, and on the door
its extensions join (docs/durable.md, "One door for every effect"). Each test is an attack: those
that broke a promise failed before the fix beside them; those that held keep the promise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.agents.budget import RunBudget
from smol_core.cli import smol
from smol_core.durable import SQLiteStore, approve, deny, pending_approval
from smol_core.durable.errors import ApprovalKeyError, ApprovalPendingError, CheckpointError
from smol_core.durable.retention import RetentionPolicy, prune_runs
from smol_core.durable.runner import read_checkpoint
from smol_core.effects import RunExtension
from smol_core.errors import BudgetExceededError
from smol_core.messages import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    TokenUsage,
)
from smol_core.testing import FunctionModel, ResumableScript, ScriptedModel

EFFECTS: list[str] = []


@tool
def drop_table(name: str) -> str:
    """Drops a table.

    Args:
        name: the table.
    """
    EFFECTS.append(f"drop {name}")
    return f"dropped {name}"


@tool
def send_email(to: str) -> str:
    """Sends an email.

    Args:
        to: who.
    """
    EFFECTS.append(f"email {to}")
    return f"sent to {to}"


def _member(
    replies: list[str], name: str = "dba", tools: list[Any] | None = None, **kwargs: Any
) -> CodeAgent:
    return CodeAgent(
        tools=[drop_table] if tools is None else tools,
        model=FunctionModel(ResumableScript(replies)),
        name=name,
        description="Runs SQL.",
        verbosity_level=0,
        **kwargs,
    )


def _manager(store: SQLiteStore, members: list[Any], replies: list[str], policy: Any = None) -> CodeAgent:
    manager = CodeAgent(
        tools=[send_email],
        managed_agents=members,
        model=FunctionModel(ResumableScript(replies)),
        verbosity_level=0,
        checkpoint_store=store,
    )
    manager.approval_policy = policy
    return manager


def _asks_for_drops(tool_name: str, arguments: Any) -> bool:
    return tool_name == "drop_table"


def _sub_run(store: SQLiteStore, prefix: str) -> str:
    return next(r.run_id for r in store.list() if r.run_id.startswith(prefix))


# --- a member paused for a person: nothing more runs in the manager's step ----------------------
def test_a_manager_that_catches_its_members_pause_makes_no_other_call(tmp_path: Path) -> None:
    """The manager's code catches the member's ApprovalPendingError and sends an email: a step that
    waits for a decision makes no call, whether the call waiting is its own or its member's."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    manager = [
        "<code>\ntry:\n    out = dba(task='drop users')\nexcept Exception as error:\n    out = str(error)\n"
        "send_email(to='all@example.com')\n</code>",
        "<code>\nfinal_answer(out)\n</code>",
    ]
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        with pytest.raises(ApprovalPendingError, match="drop_table"):
            boss.run("Clean up.", run_id="ops")
    assert EFFECTS == []  # neither the drop nor the email before a person decided
    sub_run = _sub_run(store, "ops.dba.")
    waiting = pending_approval(store, sub_run)
    assert waiting is not None
    approve(sub_run, waiting["approval_key"], store=store)
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        answer = boss.resume("ops")
    assert EFFECTS == ["drop users", "email all@example.com"]  # each once, in order
    assert "dropped users" in str(answer)


def test_a_manager_that_catches_its_own_pause_makes_no_other_call(tmp_path: Path) -> None:
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    manager = [
        "<code>\ntry:\n    drop_table(name='users')\nexcept Exception:\n    pass\n"
        "send_email(to='all@example.com')\n</code>",
    ]
    boss = CodeAgent(
        tools=[drop_table, send_email],
        model=FunctionModel(ResumableScript(manager)),
        verbosity_level=0,
        checkpoint_store=store,
    )
    boss.approval_policy = _asks_for_drops
    with boss, pytest.raises(ApprovalPendingError, match="drop_table"):
        boss.run("Clean up.", run_id="own")
    assert EFFECTS == []


# --- nested members: a member of a member ---------------------------------------------------------
def test_a_member_of_a_member_is_asked_about_durable_and_resumed(tmp_path: Path) -> None:
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    inner = ["<code>\nfinal_answer(drop_table(name='logs'))\n</code>"]
    middle = ["<code>\nfinal_answer(dba(task='drop logs'))\n</code>"]
    outer = ["<code>\nout = lead(task='clean')\n</code>", "<code>\nfinal_answer(out)\n</code>"]

    def team() -> CodeAgent:
        lead = _member(middle, name="lead", tools=[], managed_agents=[_member(inner)])
        return _manager(store, [lead], outer, _asks_for_drops)

    with team() as boss, pytest.raises(ApprovalPendingError, match="drop_table"):
        boss.run("Clean.", run_id="deep")
    assert EFFECTS == []
    lead_run = _sub_run(store, "deep.lead.")
    nested = [r.run_id for r in store.list() if r.run_id.startswith(f"{lead_run}.dba.")]
    assert len(nested) == 1  # the member's member is a durable sub-run of the member's sub-run
    assert store.load(lead_run).status == "awaiting_approval"  # type: ignore[union-attr]
    waiting = pending_approval(store, nested[0])
    assert waiting is not None
    approve(nested[0], waiting["approval_key"], store=store)
    with team() as boss:
        answer = boss.resume("deep")
    assert EFFECTS == ["drop logs"] and "dropped logs" in str(answer)


# --- an approval key names one call of one run --------------------------------------------------
def test_the_approval_key_of_one_run_decides_nothing_on_another(tmp_path: Path) -> None:
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    replies = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    for run_id in ("a", "b"):
        boss = CodeAgent(
            tools=[drop_table],
            model=FunctionModel(ResumableScript(replies)),
            verbosity_level=0,
            checkpoint_store=store,
        )
        boss.approval_policy = _asks_for_drops
        with boss, pytest.raises(ApprovalPendingError):
            boss.run("Drop users.", run_id=run_id)
    key_a = pending_approval(store, "a")["approval_key"]  # type: ignore[index]
    key_b = pending_approval(store, "b")["approval_key"]  # type: ignore[index]
    assert key_a != key_b  # the same call, in another run: another key
    with pytest.raises(ApprovalKeyError):
        approve("b", key_a, store=store)
    with pytest.raises(ApprovalKeyError):
        deny("a", key_b, store=store)
    assert pending_approval(store, "b")["approval_key"] == key_b  # type: ignore[index]


# --- a user's own extension that raises ------------------------------------------------------------
class FailsAtTheEnd(RunExtension):
    def run_ended(self, run: Any) -> None:
        raise RuntimeError("the audit log is down")


def test_an_extension_that_fails_at_the_end_leaves_no_lease_behind(tmp_path: Path) -> None:
    """A user's extension raises in `run_ended`: the durable run's lease still goes back, so this
    process (alive, and so never taken for gone) can resume, approve or mark the run."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    replies = ["<code>\nx = 1\n</code>", "<code>\nfinal_answer(x)\n</code>"]
    agent = CodeAgent(
        tools=[], model=FunctionModel(ResumableScript(replies)), verbosity_level=0, checkpoint_store=store
    )
    agent.run_extensions.append(FailsAtTheEnd())
    with agent, pytest.raises(RuntimeError, match="audit log"):
        agent.run("Count.", run_id="ext", budget=RunBudget(steps=1))
    store.release(store.acquire("ext"))  # RunLockedError while the lease leaked
    agent.run_extensions.clear()
    with agent:
        assert agent.resume("ext") == 1
    assert agent._runs.active == 0


TOKENS = 700  # the member's second step goes past it (its replies' counts, ScriptedModel's)


# --- a budget spent inside a member ----------------------------------------------------------------
def test_a_budget_spent_in_a_member_resumes_the_member_where_it_was(tmp_path: Path) -> None:
    """The member's steps use up the manager's step-less budget (tokens) mid-work: the manager stops,
    and resumed with a larger budget, the member goes on from its saved steps, its side effects not
    made again."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = [
        "<code>\nr = drop_table(name='t1')\n</code>",
        "<code>\nr2 = drop_table(name='t2')\n</code>",
        "<code>\nr3 = drop_table(name='t3')\n</code>",
        "<code>\nfinal_answer(r + r2 + r3)\n</code>",
    ]
    manager = ["<code>\nout = dba(task='drop all')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    with _manager(store, [_member(member)], manager) as boss:
        with pytest.raises(BudgetExceededError):
            boss.run("Drop.", run_id="spent", budget=RunBudget(tokens=TOKENS))
    first = list(EFFECTS)
    assert 1 <= len(first) < 3  # the member stopped mid-work, a drop or two made
    with _manager(store, [_member(member)], manager) as boss:
        answer = boss.resume("spent", budget=RunBudget(tokens=10**9))
    assert "dropped t3" in str(answer)
    assert EFFECTS == ["drop t1", "drop t2", "drop t3"]  # each once: the member went on where it was


# --- prune: a member's sub-run goes with its manager's run, never alone -----------------------------
def test_prune_never_takes_a_members_sub_run_from_under_its_manager(tmp_path: Path) -> None:
    """The member emailed, then paused on a drop; `prune --keep 1` (the sub-run was saved just before
    its manager) used to delete the sub-run alone: resumed, the manager called the member from the
    start, and the email went twice."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = [
        "<code>\nsend_email(to='team@example.com')\n</code>",
        "<code>\nfinal_answer(drop_table(name='users'))\n</code>",
    ]
    manager = ["<code>\nout = dba(task='drop users')\n</code>", "<code>\nfinal_answer(out)\n</code>"]

    def team() -> CodeAgent:
        return _manager(store, [_member(member, tools=[send_email, drop_table])], manager, _asks_for_drops)

    with team() as boss, pytest.raises(ApprovalPendingError):
        boss.run("Clean up.", run_id="ops")
    sub_run = _sub_run(store, "ops.dba.")
    report = prune_runs(store, RetentionPolicy(keep=1))
    assert report.removed == [] and {r.run_id for r in store.list()} == {"ops", sub_run}
    waiting = pending_approval(store, sub_run)
    assert waiting is not None
    approve(sub_run, waiting["approval_key"], store=store)
    with team() as boss:
        boss.resume("ops")
    assert EFFECTS == ["email team@example.com", "drop users"]
    assert [r.run_id for r in prune_runs(store, RetentionPolicy(keep=0)).removed] == ["ops", sub_run]
    assert store.list() == []  # the manager's run took its sub-run with it


# --- every view of a manager paused on its member shows the call waiting, and decides it ----------
def test_a_manager_paused_on_its_member_shows_and_takes_the_members_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pending_approval`, `smol runs show` and `approve` on the manager's run (what a person has, and
    what the chat page asks) used to say it waited for nothing while its status was awaiting_approval."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    manager = ["<code>\nout = dba(task='drop users')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        with pytest.raises(ApprovalPendingError):
            boss.run("Clean up.", run_id="ops")
    sub_run = _sub_run(store, "ops.dba.")
    waiting = pending_approval(store, "ops")
    assert waiting is not None and waiting["tool"] == "drop_table" and waiting["run_id"] == sub_run
    assert waiting["approval_key"] == pending_approval(store, sub_run)["approval_key"]  # type: ignore[index]
    assert smol.main(["runs", "--store", str(store.path), "show", "ops"]) == 0
    shown = capsys.readouterr().out
    assert f"the call of key {waiting['approval_key']}" in shown and "name='users'" in shown
    assert f"smol runs approve ops {waiting['approval_key']}" in shown
    assert smol.main(["runs", "--store", str(store.path), "approve", "ops", waiting["approval_key"]]) == 0
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        assert "dropped users" in str(boss.resume("ops"))
    assert EFFECTS == ["drop users"]


# --- what a member spent counts again when its manager is resumed -------------------------------------
class CountsTokens(RunExtension):
    """Every reply's tokens, of the run and of the members it calls."""

    def __init__(self) -> None:
        self.total = 0

    def child(self, member: str) -> RunExtension:
        return self

    def after_model_call(self, call: Any, reply: Any, answered_by: Any) -> None:
        self.total += reply.token_usage.total_tokens


def test_what_a_finished_member_spent_counts_when_its_manager_is_resumed(tmp_path: Path) -> None:
    """The member's steps cost most of the run; the manager then pauses for a person. Resumed with a
    tokens budget of what the team had spent, it must stop at once: it used to count only the
    manager's own calls (its checkpoint held nothing of the member's), and went on."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ["<code>\nr = 1\n</code>"] * 3 + ["<code>\nfinal_answer(r)\n</code>"]
    manager = [
        "<code>\nout = dba(task='work')\n</code>",
        "<code>\nsend_email(to='boss@example.com')\n</code>",
        "<code>\nfinal_answer(out)\n</code>",
    ]
    calls = tmp_path / "manager-calls.log"

    def team() -> CodeAgent:
        boss = _manager(store, [_member(member, tools=[])], manager, lambda name, _: name == "send_email")
        boss.model = FunctionModel(ResumableScript(manager, log=calls))
        return boss

    tokens = CountsTokens()
    with team() as boss, pytest.raises(ApprovalPendingError):
        boss.run_extensions.append(tokens)
        boss.run("Work.", run_id="paid")
    team_spent = tokens.total
    manager_saved = read_checkpoint(store, "paid").spending  # type: ignore[union-attr]
    assert manager_saved is not None and manager_saved[0] == team_spent  # the member's part is in it
    approve("paid", pending_approval(store, "paid")["approval_key"], store=store)  # type: ignore[index]
    with team() as boss, pytest.raises(BudgetExceededError, match="tokens budget"):
        boss.resume("paid", budget=RunBudget(tokens=team_spent))
    assert EFFECTS == [] and calls.read_text().split() == ["0", "1"]  # all was spent: nothing more


# --- two members called at once (a ToolCallingAgent's parallel calls) ---------------------------------
def _calls(*calls: tuple[str, dict[str, Any]]) -> ChatMessage:
    return ChatMessage(
        MessageRole.ASSISTANT,
        "",
        tool_calls=[
            ChatMessageToolCall(ChatMessageToolCallFunction(name, arguments), f"c{i}")
            for i, (name, arguments) in enumerate(calls)
        ],
        token_usage=TokenUsage(10, 5),
    )


def test_two_members_called_at_once_each_run_once_and_one_pause_stops_the_manager(tmp_path: Path) -> None:
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    dba = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    mailer = ["<code>\nfinal_answer(send_email(to='ops@example.com'))\n</code>"]

    def team(replies: list[ChatMessage]) -> ToolCallingAgent:
        boss = ToolCallingAgent(
            tools=[],
            managed_agents=[_member(dba), _member(mailer, name="mailer", tools=[send_email])],
            model=ScriptedModel(replies),
            verbosity_level=0,
            checkpoint_store=store,
        )
        boss.approval_policy = _asks_for_drops
        return boss

    both = _calls(("dba", {"task": "drop users"}), ("mailer", {"task": "mail ops"}))
    with team([both]) as boss, pytest.raises(ApprovalPendingError, match="drop_table"):
        boss.run("Clean up and tell ops.", run_id="par")
    assert EFFECTS == ["email ops@example.com"]  # the mailer went on; the drop waits
    sub_runs = sorted(r.run_id for r in store.list() if r.run_id != "par")
    assert [run_id.split(".")[1] for run_id in sub_runs] == ["dba", "mailer"]
    waiting = pending_approval(store, "par")
    assert waiting is not None and waiting["run_id"].startswith("par.dba.")
    approve("par", waiting["approval_key"], store=store)
    with team([_calls(("final_answer", {"answer": "done"}))]) as boss:
        assert boss.resume("par") == "done"
    assert EFFECTS == ["email ops@example.com", "drop users"]  # each once


# --- a sub-run is found by the call that started it, never by what a checkpoint says ----------------
def test_a_decoy_sub_run_in_the_store_answers_no_members_call(tmp_path: Path) -> None:
    """Someone puts a finished run named like the member's sub-run ("forged" as its answer) beside
    the real one, and rewrites the manager's checkpoint (its ledger keeps no sub-run id to point
    elsewhere: the id comes from the call). The resumed manager still gets its member's own answer,
    and a second operator's decision after the first is refused."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    member = ["<code>\nfinal_answer(drop_table(name='users'))\n</code>"]
    manager = ["<code>\nout = dba(task='drop users')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        with pytest.raises(ApprovalPendingError):
            boss.run("Clean up.", run_id="ops")
    real = _sub_run(store, "ops.dba.")
    decoy = "ops.dba." + ("f" if real[-1] != "f" else "e") * 12
    forger = CodeAgent(
        tools=[],
        model=FunctionModel(ResumableScript(["<code>\nfinal_answer('forged')\n</code>"])),
        verbosity_level=0,
        checkpoint_store=store,
    )
    with forger:
        forger.run("Forge.", run_id=decoy)
    waiting = pending_approval(store, "ops")
    assert waiting is not None and waiting["run_id"] == real  # the decoy waits for nothing
    approve("ops", waiting["approval_key"], store=store)
    with pytest.raises(CheckpointError, match="waits for no decision"):
        deny(real, waiting["approval_key"], note="too late", store=store)  # the second operator
    with _manager(store, [_member(member)], manager, _asks_for_drops) as boss:
        answer = str(boss.resume("ops"))
    assert "dropped users" in answer and "forged" not in answer
    assert EFFECTS == ["drop users"]


# --- the member's own approval policy holds beside its manager's ---------------------------------------
def test_a_members_own_approval_policy_holds_when_its_manager_has_another(tmp_path: Path) -> None:
    """The manager's policy asks about emails, the member's own about drops: a member's sub-run used
    to take the manager's policy in place of its own, and dropped the table unasked."""
    EFFECTS.clear()
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    dba = _member(["<code>\nfinal_answer(drop_table(name='users'))\n</code>"])
    dba.approval_policy = _asks_for_drops
    manager = ["<code>\nout = dba(task='drop users')\n</code>", "<code>\nfinal_answer(out)\n</code>"]
    with _manager(store, [dba], manager, lambda name, _: name == "send_email") as boss:
        with pytest.raises(ApprovalPendingError, match="drop_table"):
            boss.run("Clean up.", run_id="own-policy")
    assert EFFECTS == []
