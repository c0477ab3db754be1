"""What a checkpoint holds comes back as itself: real memory steps, sandbox variables and modules,
model replies; and the lease keeps a run to one writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smol_core import CodeAgent, ToolCallingAgent, tool
from smol_core.durable import RunLockedError, SQLiteStore, checkpoint as checkpoint_format
from smol_core.durable.checkpoint import Checkpoint
from smol_core.errors import AgentExecutionError, AgentParsingError
from smol_core.memory import ActionStep, PlanningStep, TaskStep, ToolCall
from smol_core.messages import ChatMessage, MessageRole, Timing, TokenUsage
from smol_core.testing import ScriptedModel


def test_memory_steps_round_trip_into_step_objects() -> None:
    reply = ChatMessage(
        MessageRole.ASSISTANT,
        "calling",
        tool_calls=[
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": {"a": (1, 2)}}}
        ],
        token_usage=TokenUsage(11, 7),
    )
    steps = [
        TaskStep(task="add things"),
        PlanningStep(
            [],
            ChatMessage(MessageRole.ASSISTANT, "plan"),
            "Here is the plan:\n1. add",
            Timing(1.0, 2.0),
            TokenUsage(3, 4),
        ),
        ActionStep(
            step_number=1,
            timing=Timing(5.0, 6.5),
            tool_calls=[ToolCall("add", {"a": (1, 2)}, "c1")],
            error=AgentExecutionError("boom at line 1"),
            model_output_message=reply,
            model_output="calling",
            code_action=None,
            observations="Observation text",
            action_output={"sum": 3, "parts": (1, 2), "tags": {"x"}},
            token_usage=TokenUsage(11, 7),
        ),
        ActionStep(step_number=2, error=AgentParsingError("no code"), is_final_answer=True),
    ]
    state = Checkpoint(run_id="r", agent="CodeAgent", task="add things", step_number=3, steps=steps)
    back = checkpoint_format.load(checkpoint_format.dump(state)).steps

    assert [type(step) for step in back] == [TaskStep, PlanningStep, ActionStep, ActionStep]
    action = back[2]
    assert isinstance(action, ActionStep)
    assert isinstance(action.error, AgentExecutionError) and str(action.error) == "boom at line 1"
    assert action.tool_calls == [ToolCall("add", {"a": (1, 2)}, "c1")]
    assert action.action_output == {"sum": 3, "parts": (1, 2), "tags": {"x"}}
    assert action.token_usage == TokenUsage(11, 7) and action.timing.duration == 1.5
    assert action.model_output_message is not None
    assert action.model_output_message.tool_calls[0].function.arguments == {"a": (1, 2)}  # type: ignore[index]
    assert isinstance(back[3], ActionStep) and isinstance(back[3].error, AgentParsingError)
    assert back[1].plan == steps[1].plan  # type: ignore[attr-defined]
    # the model reads the same conversation from the restored memory
    for original, restored in zip(steps, back, strict=True):
        assert [m.dict() for m in original.to_messages()] == [m.dict() for m in restored.to_messages()]


def test_namespace_values_and_modules_come_back(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    first = [
        "<code>\nimport math as m\nimport collections\nfrom fractions import Fraction\n"
        "values = {'t': (1, 2), 's': {3}, 'b': b'xy', 'f': Fraction(1, 3), 'n': None}\n"
        "def helper(): return 1\n</code>",
        RuntimeError("model down"),
    ]
    with CodeAgent(
        tools=[],
        model=ScriptedModel(first),
        verbosity_level=0,
        checkpoint_store=store,
        additional_authorized_imports=["fractions"],
    ) as agent:
        with pytest.raises(Exception, match="model down"):
            agent.run("x", run_id="ns")
    later = ["<code>\nfinal_answer((m.floor(2.5), collections.Counter('aab')['a'], values))\n</code>"]
    with CodeAgent(tools=[], model=ScriptedModel(later), verbosity_level=0, checkpoint_store=store) as agent:
        answer = agent.resume("ns")
        assert answer[:2] == (2, 2)
        assert answer[2]["t"] == (1, 2) and answer[2]["b"] == b"xy" and str(answer[2]["f"]) == "1/3"
        first_observation = agent.memory.steps[1].observations
        assert "helper (builtins.function)" in first_observation and "m (" not in first_observation


def test_tool_calling_agent_resumes_without_repeating_a_call(tmp_path: Path) -> None:
    calls: list[int] = []

    @tool
    def add(a: int, b: int) -> int:
        """Adds two numbers.

        Args:
            a: first.
            b: second.
        """
        calls.append(a)
        return a + b

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    first: list[Any] = [{"name": "add", "arguments": {"a": 1, "b": 2}}, RuntimeError("429")]
    with ToolCallingAgent(
        tools=[add], model=ScriptedModel(first), verbosity_level=0, checkpoint_store=store
    ) as agent:
        with pytest.raises(Exception, match="429"):
            agent.run("add", run_id="tc")
    later: list[Any] = [{"name": "final_answer", "arguments": {"answer": "3"}}]
    model = ScriptedModel(later)
    with ToolCallingAgent(tools=[add], model=model, verbosity_level=0, checkpoint_store=store) as agent:
        assert agent.resume("tc") == "3"
    assert calls == [1] and model.position == 1


def test_streamed_run_resumes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    first: list[Any] = ["<code>\nx = 5\n</code>", RuntimeError("gone")]
    agent = CodeAgent(
        tools=[], model=ScriptedModel(first), verbosity_level=0, checkpoint_store=store, stream_outputs=True
    )
    with agent, pytest.raises(Exception, match="gone"):
        list(agent.run("x", stream=True, run_id="st"))
    later = ScriptedModel(["<code>\nfinal_answer(x * 2)\n</code>"])
    with CodeAgent(
        tools=[], model=later, verbosity_level=0, checkpoint_store=store, stream_outputs=True
    ) as agent:
        events = list(agent.resume("st", stream=True))
    assert type(events[-1]).__name__ == "FinalAnswerStep" and events[-1].output == 10


def test_a_lost_lease_stops_writing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    lease = store.acquire("job")
    store.save(lease, 1, b"one")
    with pytest.raises(RunLockedError):
        store.acquire("job")  # held by a live process (this one)
    store.delete("job")  # its lease goes with it: another process may take the run
    other = store.acquire("job")
    with pytest.raises(RunLockedError, match="taken over"):
        store.save(lease, 2, b"two")
    store.save(other, 2, b"two")
    assert store.load("job").data == b"two"  # type: ignore[union-attr]
    store.release(other)
    store.acquire("job")  # released: free again


def test_a_model_that_cannot_be_copied_is_journaled_through_a_proxy(tmp_path: Path) -> None:
    class SlottedModel(ScriptedModel):
        def __copy__(self) -> SlottedModel:
            raise TypeError("not copyable")

    store = SQLiteStore(tmp_path / "runs.sqlite3")
    model = SlottedModel(["<code>\nfinal_answer(7)\n</code>"])
    with CodeAgent(tools=[], model=model, verbosity_level=0, checkpoint_store=store) as agent:
        assert agent.run("x", run_id="proxy") == 7
        assert agent.model is model  # the user's model is back once the run ended
    assert store.load("proxy").status == "finished"  # type: ignore[union-attr]


def test_run_resumes_from_its_start_with_its_additional_args(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    first = ScriptedModel([RuntimeError("down at the first call")])
    with CodeAgent(tools=[], model=first, verbosity_level=0, checkpoint_store=store) as agent:
        with pytest.raises(Exception, match="down at the first call"):
            agent.run("sum the data", run_id="args", additional_args={"data": [1, 2, 3]})
    later = ScriptedModel(["<code>\nfinal_answer(sum(data))\n</code>"])
    with CodeAgent(tools=[], model=later, verbosity_level=0, checkpoint_store=store) as agent:
        assert agent.resume("args") == 6
        assert "data" in agent.memory.steps[0].task  # the task as the run worded it
