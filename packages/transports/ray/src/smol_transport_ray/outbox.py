"""`Outbox`: what one process sends to a team's mailbox, buffered and delivered in batches.

Why: every call to a Ray actor costs its caller a round trip (about a millisecond on a loaded
machine), so one call per message caps a sender near a thousand messages a second. The outbox
queues sends and status notices in the order they were made, and one `Mailbox.batch` call delivers
all that piled up: a flusher thread sends as soon as the previous batch is answered (a message
waits at most one round trip plus `FLUSH_DELAY_SECONDS`), and a receive, a status read, a close or
a send that may be refused send everything first, so nothing overtakes what was sent before it.

Why the answers stay synchronous: each batch's answer says how much room each sender has left in
each inbox it put to (its quota: messages and bytes). A send is buffered only while the room known
from the last answer, less what is queued since, has space for it; that room only grows between
answers (the receiver acknowledges), so a buffered send is never refused for its quota. A send
without known room goes at once, with everything queued before it, and its own refusal ("inbox is
full") is the answer to that send. What can still be refused after a send returned: a put to a
peer that ended meanwhile (the next send to it raises `PeerGoneError`, and every later one), or a
put another process charged to the same sender (raised at that sender's next send to the inbox).

One outbox per team per process (`outbox_for`): every transport object of the team in the process
(an agent's twin with its keys, several agents under one supervisor) shares it, so their batches
are one stream, in order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

FLUSH_DELAY_SECONDS = 0.001
"""How long the flusher lets sends pile up after the first one before it delivers them."""
MAX_BATCH = 1_000
"""A batch holds at most this many calls (a 64 KiB message each would still fit Ray's limits)."""
IDLE_EXIT_SECONDS = 5.0
"""A flusher with nothing to send for this long ends (a later send starts another)."""

Op = tuple[Any, ...]
Deliver = Callable[[list[Op]], tuple[list[str], list[tuple[Any, Any, int, int]]]]


class Outbox:
    """Calls for one team's mailbox, in order; `deliver(batch)` is `Mailbox.batch`, answered."""

    def __init__(self, deliver: Deliver) -> None:
        self.deliver = deliver
        self.lock = threading.Lock()
        self.more = threading.Condition(self.lock)
        self.sending = threading.Lock()
        """Held while a batch is out: batches reach the mailbox one after the other, in order."""
        self.buffer: list[tuple[Op, int]] = []
        """(call, the bytes it charges a quota) in the order made."""
        self.room: dict[tuple[Any, int], tuple[int, int]] = {}
        """(sender, recipient) -> (messages, bytes) the mailbox said were left, at its last answer."""
        self.queued: dict[tuple[Any, int], list[int]] = {}
        """(sender, recipient) -> [messages, bytes] buffered or out since that answer."""
        self.gone: dict[int, str] = {}
        """recipient -> "finished" | "dead", as the mailbox answered a put to it."""
        self.refused: dict[tuple[Any, int], str] = {}
        """(sender, recipient) -> the status word of a buffered put the mailbox refused."""
        self.failure: Exception | None = None
        """Why the flusher could not deliver (the mailbox is gone): the next send raises it."""
        self.flusher: threading.Thread | None = None

    # --- sending --------------------------------------------------------------------------------

    def put(self, recipient: int, raw: str, message_id: str, sender: Any, size: int) -> str | None:
        """Queue a message; None when buffered (its room was known), else the mailbox's answer to
        it, sent at once with everything queued before it."""
        op: Op = ("put", recipient, raw, message_id, sender)
        key = (sender, recipient)
        with self.lock:
            room = self.room.get(key)
            used = self.queued.setdefault(key, [0, 0])
            if room is not None and room[0] - used[0] >= 1 and room[1] - used[1] >= size:
                used[0] += 1
                used[1] += size
                self._queue((op, size))
                return None
        return self.flush(op, size)

    def tell(self, *op: Any) -> None:
        """Queue a status notice (`status_waiting`, `status_count`): no answer is awaited."""
        with self.lock:
            self._queue((op, 0))

    def _queue(self, entry: tuple[Op, int]) -> None:
        self.buffer.append(entry)
        if len(self.buffer) == 1 or len(self.buffer) >= MAX_BATCH:
            self.more.notify()
        if self.flusher is None:
            self.flusher = threading.Thread(target=self._flush_forever, name="smol-ray-outbox", daemon=True)
            self.flusher.start()

    def check(self, sender: Any, recipient: int) -> str | None:
        """What the mailbox answered to an earlier send (buffered) of `sender` to `recipient`, when
        it refused one: said once, at the next send; a peer that ended is said at every send."""
        with self.lock:
            if self.failure is not None:
                failure, self.failure = self.failure, None
                raise failure
            return self.gone.get(recipient) or self.refused.pop((sender, recipient), None)

    # --- delivering -----------------------------------------------------------------------------

    def flush(self, extra: Op | None = None, size: int = 0) -> str | None:
        """Deliver everything queued, then `extra` (a put) with the last batch; `extra`'s answer."""
        with self.sending:
            while True:
                with self.lock:
                    batch, self.buffer = self.buffer[:MAX_BATCH], self.buffer[MAX_BATCH:]
                    last = not self.buffer
                    if last and extra is not None:
                        used = self.queued.setdefault((extra[4], extra[1]), [0, 0])
                        used[0] += 1
                        used[1] += size
                        batch.append((extra, size))
                if not batch:
                    return None
                try:
                    outcomes, rooms = self.deliver([op for op, _ in batch])
                except BaseException:
                    self._settle(batch, [], [], None)
                    raise
                answer = self._settle(batch, outcomes, rooms, extra)
                if last:
                    return answer

    def _settle(
        self,
        batch: list[tuple[Op, int]],
        outcomes: list[str],
        rooms: list[tuple[Any, Any, int, int]],
        extra: Op | None,
    ) -> str | None:
        """Take in the mailbox's answer (none: the batch is lost): the batch no longer counts
        against any room, the room it reports is the new one, refusals of buffered puts are kept."""
        answer = None
        with self.lock:
            puts = [(op, size) for op, size in batch if op[0] == "put"]
            for op, size in puts:
                used = self.queued.get((op[4], op[1]))
                if used is not None:
                    used[0] = max(0, used[0] - 1)
                    used[1] = max(0, used[1] - size)
            for sender, recipient, messages, room_bytes in rooms:
                self.room[(sender, recipient)] = (messages, room_bytes)
            for (op, _), outcome in zip(puts, outcomes, strict=False):
                if op is extra:
                    answer = outcome
                if outcome in ("finished", "dead"):
                    self.gone[op[1]] = outcome
                elif outcome != "ok" and op is not extra:
                    self.refused.setdefault((op[4], op[1]), outcome)
        return answer

    def _flush_forever(self) -> None:
        """The flusher: waits for a first queued call, lets more pile up briefly, delivers."""
        while True:
            with self.lock:
                if not self.buffer:
                    self.more.wait(IDLE_EXIT_SECONDS)
                if not self.buffer:
                    self.flusher = None
                    return
                if len(self.buffer) < MAX_BATCH:
                    self.more.wait(FLUSH_DELAY_SECONDS)
            try:
                self.flush()
            except Exception as error:  # the mailbox is gone: the next send says so
                with self.lock:
                    self.failure = error


_outboxes: dict[str, Outbox] = {}
_registry_lock = threading.Lock()


def outbox_for(team: str, deliver: Deliver) -> Outbox:
    """The process's outbox for `team` (made with `deliver` the first time)."""
    with _registry_lock:
        made = _outboxes.get(team)
        if made is None:
            made = _outboxes[team] = Outbox(deliver)
        return made


def drop_outbox(team: str) -> None:
    """The team has ended: its outbox goes (after its last flush, by the caller)."""
    with _registry_lock:
        _outboxes.pop(team, None)
