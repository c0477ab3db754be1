"""Stateful tools in checkpoints (durable/tool_state.py): a team member's inbox position.

The transport here redelivers everything not acknowledged, as Redis does to the next reader after a
reader died; the same across real processes is in tests/teams/test_durable_team.py and
tests/transports/redis/test_redis_durable_team.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from smol_core import CodeAgent
from smol_core.durable import CheckpointFormatError, SQLiteStore, checkpoint as checkpoint_format
from smol_core.durable.checkpoint import Checkpoint
from smol_core.durable.runner import read_checkpoint
from smol_core.durable.tool_state import capture_tool_states, restore_tool_states
from smol_core.teams.message import Message
from smol_core.teams.tools import HANDED_KEPT, ReceiveMessagesTool
from smol_core.testing import ScriptedModel


class RedeliveringTransport:
    """One inbox, agent 1's: every message not acknowledged is delivered again to a new reader."""

    max_message_bytes = 1 << 20

    def __init__(self) -> None:
        self.unacknowledged: list[Message] = []
        self.delivered: set[str] = set()
        self.acked: list[str] = []

    def agent_ids(self) -> list[int]:
        return [0, 1]

    def send(self, message: Message) -> None:
        self.unacknowledged.append(message)

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
        batch = [m for m in self.unacknowledged if m.id not in self.delivered][:limit]
        self.delivered.update(m.id for m in batch)
        return batch

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """Only what this reader was handed is settled (a new reader's ack of an id it was never
        handed changes nothing, as with Redis and the local journal): the rest comes again."""
        self.acked.extend(message_ids)
        settled = set(message_ids) & self.delivered
        self.unacknowledged = [m for m in self.unacknowledged if m.id not in settled]

    def new_reader(self) -> None:
        """The reader died: what it held is delivered again."""
        self.delivered.clear()

    def close(self) -> None:
        pass


def _message(body: str) -> Message:
    return Message(sender=0, recipient=1, body=body)


def test_an_inbox_position_goes_through_a_checkpoint_and_nothing_is_handed_over_twice() -> None:
    transport = RedeliveringTransport()
    first, second = _message("a"), _message("b")
    transport.send(first)
    transport.send(second)
    tool = ReceiveMessagesTool(transport, 1)
    assert [m["message"] for m in tool.forward()] == ["a", "b"]

    state = Checkpoint(
        run_id="r",
        agent="CodeAgent",
        task="t",
        step_number=2,
        tool_states=capture_tool_states({tool.name: tool}),
    )
    saved = checkpoint_format.load(checkpoint_format.dump(state))
    assert saved.tool_states == {
        "receive_messages": {"held": [first.id, second.id], "handed": [first.id, second.id]}
    }

    transport.new_reader()  # the process died holding both
    transport.send(third := _message("c"))
    resumed = ReceiveMessagesTool(transport, 1)
    restore_tool_states({resumed.name: resumed}, saved.tool_states, "r")
    assert [m["message"] for m in resumed.forward()] == ["c"]
    assert transport.acked[:2] == [first.id, second.id]  # what it owed, acknowledged first
    resumed.acknowledge()
    assert transport.unacknowledged == [] and third.id in transport.acked


def test_a_fresh_tool_hands_over_redelivered_messages_as_before() -> None:
    transport = RedeliveringTransport()
    transport.send(_message("a"))
    ReceiveMessagesTool(transport, 1).forward()
    transport.new_reader()
    assert [m["message"] for m in ReceiveMessagesTool(transport, 1).forward()] == ["a"]


def test_the_handed_ids_kept_are_bounded() -> None:
    transport = RedeliveringTransport()
    tool = ReceiveMessagesTool(transport, 1)
    for n in range(HANDED_KEPT + 50):
        transport.send(_message(str(n)))
    while tool.forward():
        pass
    assert len(tool.durable_state()["handed"]) == HANDED_KEPT


@pytest.mark.parametrize(
    "state",
    [
        None,
        [],
        {"held": []},
        {"held": [], "handed": [], "extra": 1},
        {"held": "abc", "handed": []},
        {"held": [1, 2], "handed": []},
        {"held": [""], "handed": []},
        {"held": ["x" * 201], "handed": []},
        {"held": [], "handed": ["id"] * (HANDED_KEPT + 1)},
    ],
)
def test_a_state_the_tool_did_not_write_is_refused_in_one_line(state: object) -> None:
    tool = ReceiveMessagesTool(RedeliveringTransport(), 1)
    with pytest.raises(CheckpointFormatError, match="receive_messages") as caught:
        restore_tool_states({tool.name: tool}, {tool.name: state}, "run-1")
    assert "\n" not in str(caught.value)


def test_a_saved_state_with_no_such_tool_now_is_left_alone() -> None:
    restore_tool_states({}, {"receive_messages": {"held": [], "handed": []}}, "r")


def test_a_durable_run_saves_its_inbox_position_and_resumes_from_it(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    transport = RedeliveringTransport()
    transport.send(_message("21"))

    def agent(replies: list[str]) -> CodeAgent:
        return CodeAgent(
            tools=[ReceiveMessagesTool(transport, 1)],
            model=ScriptedModel(replies),
            checkpoint_store=store,
            verbosity_level=-1,
        )

    step_1 = 'Thought: read.\n<code>\ngot = receive_messages()\nn = int(got[0]["message"])\n</code>'
    crashed = agent([step_1, RuntimeError("the process dies here")])
    with crashed, pytest.raises(Exception, match="the process dies here"):
        crashed.run("Double what you get", run_id="inbox-run")
    saved = read_checkpoint(store, "inbox-run")
    assert saved is not None and saved.namespace["n"] == 21
    assert saved.tool_states["receive_messages"]["held"] == [transport.unacknowledged[0].id]

    transport.new_reader()
    step_2 = "Thought: more?\n<code>\nmore = receive_messages()\nfinal_answer(n * 2 + len(more))\n</code>"
    resumed = agent([step_2])
    with resumed:
        assert resumed.resume("inbox-run") == 42
    assert transport.unacknowledged == []


def test_a_batch_of_copies_only_does_not_end_a_receive_that_waits() -> None:
    """After a crash, the first batch may hold only copies of what was handed over already: they are
    acknowledged and dropped, and the receive goes on waiting for its timeout, as the model asked."""
    transport = RedeliveringTransport()
    old, new = _message("old"), _message("new")
    transport.send(old)
    tool = ReceiveMessagesTool(transport, 1)
    assert [m["message"] for m in tool.forward()] == ["old"]
    saved = tool.durable_state()

    class SendsLater(RedeliveringTransport):
        def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
            batch = super().receive(agent_id, timeout, limit)
            if not batch and new not in self.unacknowledged:
                self.send(new)  # arrives while the receive waits
                batch = super().receive(agent_id, timeout, limit)
            return batch

    later = SendsLater()
    later.unacknowledged = [old]
    resumed = ReceiveMessagesTool(later, 1)
    resumed.restore_durable_state(saved)
    assert [m["message"] for m in resumed.forward(timeout=30)] == ["new"]
    assert old.id in later.acked
