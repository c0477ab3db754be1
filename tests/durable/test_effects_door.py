"""The run's door (agents/effects.py): every effect of a run passes it, and nothing patches the
user's model or tools. Each test here failed when durable runs and tapes copied and patched them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.agents.budget import RunBudget
from smol_core.durable import SQLiteStore, approve, pending_approval
from smol_core.durable.errors import ApprovalPendingError
from smol_core.effects import ModelCall, RunExtension, RunModel, ToolEffect
from smol_core.errors import BudgetExceededError, SmolError
from smol_core.messages import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    TokenUsage,
)
from smol_core.replay import recording, replaying
from smol_core.testing import FunctionModel, ScriptedModel

ANSWER = ["<code>\nx = 40\n</code>", "<code>\nfinal_answer(x + 2)\n</code>"]


class Uncopyable(ScriptedModel):
    """A model that must never be copied (a loaded engine, a client with a pool)."""

    def __copy__(self) -> Any:
        raise AssertionError("the model was copied")


def test_a_durable_run_calls_the_users_model_through_a_wrapper_never_a_copy(tmp_path: Path) -> None:
    model = Uncopyable(ANSWER)
    seen: list[Any] = []
    agent = CodeAgent(
        tools=[],
        model=model,
        verbosity_level=0,
        checkpoint_store=SQLiteStore(tmp_path / "r.db"),
        step_callbacks=[lambda step, agent: seen.append(agent.model)],
    )
    with agent:
        assert agent.run("Answer.", run_id="wrapped") == 42
        assert agent.model is model  # outside the run: the user's own
    assert seen and all(isinstance(m, RunModel) and m.wrapped is model for m in seen)
    assert model.position == 2


def test_a_recorded_run_leaves_the_models_and_tools_as_they_were(tmp_path: Path) -> None:
    model = Uncopyable(ANSWER)

    @tool
    def double(n: int) -> int:
        """Doubles.

        Args:
            n: a number.
        """
        return 2 * n

    with CodeAgent(tools=[double], model=model, verbosity_level=0) as agent:
        tools = dict(agent.tools)
        with recording(agent, tmp_path / "run.cassette"):
            assert agent.run("Answer.") == 42
        assert agent.model is model and agent.tools == tools and agent.run_extensions == []


def _tool_call_reply(name: str, arguments: dict[str, Any], call_id: str) -> ChatMessage:
    return ChatMessage(
        MessageRole.ASSISTANT,
        "",
        tool_calls=[ChatMessageToolCall(ChatMessageToolCallFunction(name, arguments), call_id)],
        token_usage=TokenUsage(10, 5),
    )


@tool
def lookup(key: str) -> str:
    """Looks a key up.

    Args:
        key: the key.
    """
    LOOKUPS.append(key)
    return key.upper()


LOOKUPS: list[str] = []


def test_a_streaming_tool_calling_agent_replays_its_tool_calls(tmp_path: Path) -> None:
    def agent() -> ToolCallingAgent:
        replies = [
            _tool_call_reply("lookup", {"key": "abc"}, "c1"),
            _tool_call_reply("final_answer", {"answer": "done"}, "c2"),
        ]
        return ToolCallingAgent(
            tools=[lookup], model=ScriptedModel(replies), stream_outputs=True, verbosity_level=0
        )

    LOOKUPS.clear()
    with agent() as first, recording(first, tmp_path / "run.cassette"):
        assert first.run("Look abc up.") == "done"
    assert LOOKUPS == ["abc"]
    with agent() as second, replaying(second, tmp_path / "run.cassette"):
        assert second.run("Look abc up.") == "done"
    assert LOOKUPS == ["abc"]  # the replay made no tool call


@tool
def send_doc(doc: str) -> str:
    """Sends a document (asks a person first).

    Args:
        doc: the document.
    """
    SENT.append(doc)
    return f"sent {len(doc)} chars"


send_doc.requires_approval = True
SENT: list[str] = []


def test_a_resumed_tool_calling_agent_keeps_its_additional_args(tmp_path: Path) -> None:
    """The model names a value handed over in `additional_args`; the call approved is the call made."""
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    replies = [
        _tool_call_reply("send_doc", {"doc": "report"}, "c1"),
        _tool_call_reply("final_answer", {"answer": "ok"}, "c2"),
    ]

    def reply(messages: list[ChatMessage], **_: Any) -> ChatMessage:
        return replies[sum(message.role == MessageRole.ASSISTANT for message in messages)]

    def agent() -> ToolCallingAgent:
        return ToolCallingAgent(
            tools=[send_doc], model=FunctionModel(reply), verbosity_level=0, checkpoint_store=store
        )

    SENT.clear()
    with agent() as first, pytest.raises(ApprovalPendingError):
        first.run("Send the report.", run_id="doc", additional_args={"report": "Q3: up 4%"})
    approve("doc", pending_approval(store, "doc")["approval_key"], store=store)  # type: ignore[index]
    with agent() as second:
        assert second.resume("doc") == "ok"
    assert SENT == ["Q3: up 4%"]  # the value handed over, not its name


class Counting(RunExtension):
    """An extension that sees every effect: what a third party's extension would get."""

    def __init__(self) -> None:
        self.models: list[bool] = []
        self.tools: list[tuple[str, str]] = []

    def after_model_call(self, call: ModelCall, reply: ChatMessage, answered_by: RunExtension | None) -> None:
        self.models.append(answered_by is None)

    def tool_call(self, effect: ToolEffect, proceed: Any) -> Any:
        self.tools.append((effect.kind, effect.name))
        return proceed()

    def child(self, member: str) -> RunExtension:
        return self


def test_an_extension_sees_every_model_and_tool_call_of_a_run_and_its_members() -> None:
    member = CodeAgent(
        tools=[lookup],
        model=ScriptedModel(["<code>\nfinal_answer(lookup(key='q'))\n</code>"]),
        name="helper",
        description="Helps.",
        verbosity_level=0,
    )
    manager = CodeAgent(
        tools=[],
        managed_agents=[member],
        verbosity_level=0,
        model=ScriptedModel(["<code>\nr = helper(task='q')\n</code>", "<code>\nfinal_answer(r)\n</code>"]),
    )
    counting = Counting()
    manager.run_extensions.append(counting)
    with manager:
        manager.run("Ask the helper.")
    assert counting.models == [True, True, True]  # the manager's two calls and the member's one
    assert ("member", "helper") in counting.tools and ("tool", "lookup") in counting.tools


# --- budgets counted at the door ------------------------------------------------------------------
class Unmetered:
    """A model of the user's own (smolagents' duck typing: a `generate` method) whose replies carry
    no token usage."""

    def generate(self, messages: list[ChatMessage], **_: Any) -> ChatMessage:
        return ChatMessage(MessageRole.ASSISTANT, "<code>\nx = 1\n</code>")


def test_a_reply_without_usage_stops_a_tokens_budget_rather_than_counting_zero() -> None:
    with CodeAgent(tools=[], model=Unmetered(), verbosity_level=0) as agent:
        with pytest.raises(BudgetExceededError, match="reported no token usage"):
            agent.run("Loop.", budget=RunBudget(tokens=10_000))


def test_negative_usage_is_not_added() -> None:
    reply = ChatMessage(MessageRole.ASSISTANT, "<code>\nx = 1\n</code>", token_usage=TokenUsage(-500, -500))
    with CodeAgent(tools=[], model=FunctionModel(lambda m, **_: reply), verbosity_level=0) as agent:
        with pytest.raises(BudgetExceededError, match="negative"):
            agent.run("Loop.", budget=RunBudget(tokens=10_000))


def test_a_tokens_budget_on_a_model_that_reports_no_usage_is_refused_at_start() -> None:
    calls: list[int] = []

    def plain(messages: list[ChatMessage]) -> str:
        calls.append(1)
        return "<code>\nfinal_answer(1)\n</code>"

    with CodeAgent(tools=[], model=plain, verbosity_level=0) as agent:
        with pytest.raises(SmolError, match="reports none"):
            agent.run("Answer.", budget=RunBudget(tokens=100))
    assert calls == []


def test_drafts_that_all_failed_are_counted() -> None:
    failing = "<code>\nraise ValueError('no')\n</code>"
    model = ScriptedModel([failing] * 40)
    with CodeAgent(tools=[], model=model, verbosity_level=0, answer_drafts=3, max_steps=2) as agent:
        result = agent.run("Fail.", budget=RunBudget(tokens=10**9), return_full_result=True)
        spent = agent._runs.last.spending  # type: ignore[attr-defined]
    assert spent.model_calls == model.position >= 6  # every draft and every retry, not one per step
    assert result.token_usage is not None


def test_copying_an_agent_model_is_not_needed_for_a_budget() -> None:
    model = Uncopyable(ANSWER)
    with CodeAgent(tools=[], model=model, verbosity_level=0) as agent:
        assert agent.run("Answer.", budget=RunBudget(tokens=10**6)) == 42
