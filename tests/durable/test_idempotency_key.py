"""`idempotency_key()`: a durable run's tool call is named the same way in every attempt at it, so
a call made again after a crash can be recognised by the service it reaches (a team's
`send_message` uses it as the message id, which receivers drop the second time)."""

from __future__ import annotations

import copy
import queue

from smol_core.durable import idempotency_key
from smol_core.durable.tool_ledger import ToolLedger
from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool


def _ledger(
    entries: list[dict[str, object]] | None = None, step: int = 3, run_id: str = "run-1"
) -> ToolLedger:
    ledger = ToolLedger(entries if entries is not None else [], lambda: None, run_id=run_id)
    ledger.step = step
    return ledger


def _keys(ledger: ToolLedger, calls: list[tuple[str, dict[str, object]]]) -> list[str | None]:
    return [ledger.call(tool, arguments, True, idempotency_key) for tool, arguments in calls]


CALLS = [
    ("charge", {"cents": 500}),
    ("charge", {"cents": 500}),
    ("charge", {"cents": 700}),
    ("mail", {"to": "a"}),
]


def test_outside_a_durable_tool_call_there_is_no_key() -> None:
    assert idempotency_key() is None


def test_each_call_of_a_step_has_its_own_key_and_a_resumed_attempt_gets_the_same_ones() -> None:
    first = _ledger()
    keys = _keys(first, CALLS)
    assert len(set(keys)) == len(CALLS) and all(isinstance(k, str) and len(k) == 32 for k in keys)
    assert idempotency_key() is None  # set only while the call runs

    # the process died with every call in flight (started, never ended): the resumed step makes
    # them again, in the same order, and each gets the key its first attempt had
    interrupted = [dict(copy.deepcopy(entry), status="started") for entry in first.entries]
    for entry in interrupted:
        entry.pop("result", None)
    assert _keys(_ledger(interrupted), CALLS) == keys


def test_another_step_or_run_names_the_same_call_differently() -> None:
    keys = _keys(_ledger(), CALLS)
    assert set(_keys(_ledger(step=4), CALLS)).isdisjoint(keys)
    assert set(_keys(_ledger(run_id="run-2"), CALLS)).isdisjoint(keys)


def test_a_send_made_again_reaches_its_peer_once() -> None:
    queues = {0: queue.Queue(), 1: queue.Queue()}
    inbox = ReceiveMessagesTool(queues, 1)

    def send(ledger: ToolLedger) -> None:
        sender = SendMessageTool(queues, 0)
        ledger.call("send_message", {"target_id": 1, "message": "42"}, True, lambda: sender.forward(1, "42"))

    first = _ledger()
    send(first)
    interrupted = [dict(entry, status="started") for entry in first.entries]
    send(_ledger(interrupted))  # the crash came before the first send's end was saved
    assert queues[1].qsize() == 2
    assert [m["message"] for m in inbox.forward()] == ["42"]
    assert inbox.forward() == []
