"""The outbox's rules, against a stand-in for the mailbox (no cluster): a send is buffered only
while the room the mailbox last reported holds it, batches keep the order sends were made in, and
what the mailbox refused of a buffered send is said at the next send."""

from __future__ import annotations

import threading

import pytest
from smol_transport_ray.outbox import Outbox


class FakeMailbox:
    """Answers a batch as `Mailbox.batch` does: each put's word, and the room left per (sender,
    recipient); `room` messages per pair, `ended` recipients refused as dead."""

    def __init__(self, room: int, ended: frozenset[int] = frozenset()) -> None:
        self.room = room
        self.ended = ended
        self.used: dict[tuple[int, int], int] = {}
        self.batches: list[list[tuple]] = []
        self.lock = threading.Lock()

    def deliver(self, batch):
        with self.lock:
            self.batches.append(list(batch))
            outcomes, touched = [], set()
            for op in batch:
                if op[0] != "put":
                    continue
                _, recipient, _raw, _id, sender = op
                key = (sender, recipient)
                touched.add(key)
                if recipient in self.ended:
                    outcomes.append("dead")
                elif self.used.get(key, 0) >= self.room:
                    outcomes.append("quota")
                else:
                    self.used[key] = self.used.get(key, 0) + 1
                    outcomes.append("ok")
            rooms = [(s, r, self.room - self.used.get((s, r), 0), 10**9) for s, r in touched]
            return outcomes, rooms

    def bodies(self) -> list[str]:
        return [op[2] for batch in self.batches for op in batch if op[0] == "put"]


def test_a_send_without_known_room_goes_at_once_then_sends_are_buffered_in_order():
    mailbox = FakeMailbox(room=100)
    outbox = Outbox(mailbox.deliver)
    assert outbox.put(1, "m0", "id0", 0, 2) == "ok"  # no room known yet: answered now
    assert len(mailbox.batches) == 1
    for n in range(1, 50):
        assert outbox.put(1, f"m{n}", f"id{n}", 0, 2) is None  # the room holds it: buffered
    outbox.tell("status_count", 0, 49, 0)
    outbox.flush()
    assert mailbox.bodies() == [f"m{n}" for n in range(50)]
    assert ("status_count", 0, 49, 0) in [op for batch in mailbox.batches for op in batch]
    assert len(mailbox.batches) < 50  # batched, however the flusher cut them


def test_a_send_over_the_room_is_refused_as_the_answer_to_that_send():
    mailbox = FakeMailbox(room=3)
    outbox = Outbox(mailbox.deliver)
    answers = [outbox.put(1, f"m{n}", f"id{n}", 0, 2) for n in range(4)]
    assert answers == ["ok", None, None, "quota"]  # the fourth went at once, after the two queued
    assert mailbox.bodies() == ["m0", "m1", "m2", "m3"]
    assert outbox.check(0, 1) is None  # nothing buffered was refused
    assert outbox.put(2, "other", "idx", 0, 2) == "ok"  # another inbox: its own room


def test_a_buffered_send_to_a_peer_that_ended_is_said_at_every_later_send():
    mailbox = FakeMailbox(room=100)
    outbox = Outbox(mailbox.deliver)
    assert outbox.put(1, "first", "id0", 0, 2) == "ok"
    mailbox.ended = frozenset({1})  # the peer ends after the first answer
    assert outbox.put(1, "second", "id1", 0, 2) is None
    outbox.flush()
    assert outbox.check(0, 1) == "dead"
    assert outbox.check(0, 1) == "dead"
    assert outbox.check(0, 2) is None


def test_a_mailbox_that_fails_is_said_at_the_next_send():
    def gone(batch):
        raise RuntimeError("the mailbox is gone")

    outbox = Outbox(gone)
    outbox.room[(0, 1)] = (10, 10**9)
    assert outbox.put(1, "lost", "id0", 0, 2) is None
    for _ in range(200):  # the flusher delivers within a few milliseconds
        if outbox.failure is not None:
            break
        threading.Event().wait(0.01)
    with pytest.raises(RuntimeError, match="gone"):
        outbox.check(0, 1)
    assert outbox.queued[(0, 1)] == [0, 0]  # the lost batch no longer counts against the room
