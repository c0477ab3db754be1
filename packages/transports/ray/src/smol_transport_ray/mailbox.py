"""`Mailbox`: the inboxes of one team, kept by one Ray actor on the cluster.

Why an actor: it is the one place every agent of the team can reach, wherever Ray placed it, and
it serialises the calls made to it, so a sender's messages are queued in the order it sent them.
Why one actor per team (not one per agent): an actor costs a worker process, and a team that runs
on the cluster already pays one per agent for its supervisor; its messages should not double that.

Delivery is at-least-once, as with Redis consumer groups: `take` hands entries over and keeps them
*pending* under the reader's consumer name until `ack`; when that reader goes silent for longer
than `claim_idle_seconds` (its process died), the next reader of the same inbox (its replacement)
receives them again. Acknowledged message ids are remembered (bounded), so a copy sent again later
is dropped here; each receiver drops repeats by id as well.

Where the team's agents run on the cluster, the actor also keeps the team's status (who runs,
waits or has ended: a send to an ended agent is refused here) and what the agents write on their
console, until the host prints it.

The entries are opaque text to this actor: it never parses them (the receiving process runs the
one check every inbox runs, `accept_message`, seal included). It only bounds what it keeps: entry
size, the memory of ids, and each sender's unacknowledged messages and bytes in each inbox (its
quota: its share of `max_inbox`, so one sender cannot fill an inbox for the others; the quotas bound
the inbox's length). The sender
a `put` names is charged; a `put` that names none shares one quota with every other such `put`. This module imports nothing but the standard library, so the cluster's
nodes need Ray and nothing else (it is shipped to them by value).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

OK, UNKNOWN, FULL, TOO_LARGE, NOT_TEXT = "ok", "unknown", "full", "too_large", "not_text"
QUOTA = "quota"
"""The sender has its whole share of this inbox unacknowledged: it waits; the others do not."""
_ANONYMOUS = -1
STATES = frozenset({"running", "waiting", "finished", "dead"})
MAX_CONSOLE_WRITES = 10_000
MAX_CONSOLE_CHARS = 8_192
MAX_HINT_CHARS = 128


@dataclass
class _Pending:
    entry: tuple[int, str | None, Any]
    consumer: str


@dataclass
class _Inbox:
    queue: deque[tuple[int, str | None, Any]] = field(default_factory=deque)
    pending: dict[int, _Pending] = field(default_factory=dict)
    held_ids: dict[str, int] = field(default_factory=dict)
    """message id -> how many entries with that id are queued or pending (a repeat is dropped)."""
    acked: OrderedDict[str, None] = field(default_factory=OrderedDict)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    held_by: dict[int, list[int]] = field(default_factory=dict)
    """sender -> [messages, bytes] it has queued or pending here (its quota's use)."""
    charges: dict[int, tuple[int, int]] = field(default_factory=dict)
    """entry id -> (sender, bytes) charged for it, given back at `ack`."""


class Mailbox:
    """Inboxes for agent ids `agent_ids`; made with `ray.remote(Mailbox).options(name=...)`."""

    def __init__(
        self,
        agent_ids: list[int],
        max_entry_bytes: int,
        max_inbox: int = 10_000,
        claim_idle_seconds: float = 30.0,
        remember_acked: int = 100_000,
        max_pending_per_sender: int = 1_000,
        max_pending_bytes_per_sender: int = 8 * 1024 * 1024,
    ) -> None:
        self.max_entry_bytes = max_entry_bytes
        self.max_inbox = max_inbox
        self.max_pending_bytes_per_sender = max(1, int(max_pending_bytes_per_sender))
        self.sender_share = max(1, min(int(max_pending_per_sender), max_inbox // max(1, len(agent_ids))))
        """How many unacknowledged messages one sender may have in one inbox."""
        self.claim_idle_seconds = claim_idle_seconds
        self.remember_acked = remember_acked
        self.inboxes = {int(agent_id): _Inbox() for agent_id in agent_ids}
        self.last_heard: dict[str, float] = {}
        """consumer name -> when it last called: a reader silent for long has died."""
        self.next_entry = 0
        # the team's status, for agents that run on the cluster (no memory shared with the host)
        self.states = dict.fromkeys(self.inboxes, "running")
        self.sent = dict.fromkeys(self.inboxes, 0)
        self.taken = dict.fromkeys(self.inboxes, 0)
        # what agents on the cluster write to their console, until the host prints it (bounded)
        self.console: deque[str] = deque()
        self.console_dropped = 0
        self.configured = bool(agent_ids)
        """False for a spare, made with no agents, until its team's host configures it."""

    async def configure(self, *settings: Any, **options: Any) -> bool:
        """Take a team's settings (`__init__`'s), once: a spare mailbox, made empty ahead of its team
        so that its worker has started by then (`spares`). False if it has been configured already
        (by anyone: its host then makes a mailbox of its own)."""
        if self.configured:
            return False
        self.__init__(*settings, **options)  # type: ignore[misc]
        return True

    async def agent_ids(self) -> list[int]:
        return sorted(self.inboxes)

    async def put(self, recipient: int, raw: Any, message_id: str | None, sender: Any = None) -> str:
        """Queue `raw` for `recipient`; `message_id` is the sender's word for the id inside (checked
        by the receiver), used to drop repeats; `sender` is whose quota it counts against. Returns a
        status word, never raises at the sender."""
        return self._put(recipient, raw, message_id, sender)

    async def batch(self, ops: list[Any]) -> tuple[list[str], list[tuple[Any, Any, int, int]]]:
        """A sender's buffered calls, in the order it made them: `("put", recipient, raw, message_id,
        sender)`, `("status_waiting", agent, flag)`, `("status_count", agent, sent, taken)`.

        Why one call for many: each actor call costs the caller a round trip (about a millisecond);
        a batch costs one for all. Returns each put's status word, and for every (sender,
        recipient) it put to, the room that sender has left there (messages, bytes): the sender
        buffers while its room lasts, so a refusal for its quota is still the answer to the send
        that went over it. Calls it does not know are skipped (any process can call the mailbox)."""
        outcomes: list[str] = []
        touched: set[tuple[Any, Any]] = set()
        for op in ops if type(ops) is list else []:
            if type(op) is not tuple or not op:
                continue
            if op[0] == "put" and len(op) == 5:
                outcomes.append(self._put(op[1], op[2], op[3], op[4]))
                touched.add((op[4], op[1]))
            elif op[0] == "status_waiting" and len(op) == 3:
                await self.status_waiting(op[1], op[2])
            elif op[0] == "status_count" and len(op) == 4:
                with contextlib.suppress(TypeError, ValueError):  # counts that are not numbers
                    await self.status_count(op[1], op[2], op[3])
        return outcomes, [
            (sender, recipient, *self._room(recipient, sender)) for sender, recipient in touched
        ]

    def _room(self, recipient: Any, sender: Any) -> tuple[int, int]:
        """(messages, bytes) `sender` may still put in `recipient`'s inbox before its quota is full."""
        inbox = self.inboxes.get(recipient) if type(recipient) is int else None
        if inbox is None:
            return 0, 0
        used = inbox.held_by.get(self._charged(sender), [0, 0])
        return max(0, self.sender_share - used[0]), max(0, self.max_pending_bytes_per_sender - used[1])

    def _charged(self, sender: Any) -> int:
        return sender if type(sender) is int and sender in self.inboxes else _ANONYMOUS

    def _put(self, recipient: Any, raw: Any, message_id: Any, sender: Any) -> str:
        inbox = self.inboxes.get(recipient) if type(recipient) is int else None
        if inbox is None:
            return UNKNOWN
        if self.states[recipient] in ("finished", "dead"):  # the team's status, where kept here
            return self.states[recipient]
        if type(raw) not in (str, bytes):
            return NOT_TEXT
        if len(raw) > self.max_entry_bytes:  # characters or bytes: bounded either way
            return TOO_LARGE
        if type(message_id) is not str or len(message_id) > MAX_HINT_CHARS:
            message_id = None
        if message_id is not None and (message_id in inbox.acked or message_id in inbox.held_ids):
            return OK  # a repeat of one this inbox holds or has acknowledged: at most once here
        # no bound on the inbox as a whole: what a stranger puts would use it up and starve the
        # team's senders; every sender's quota (anonymous puts share one) bounds it instead
        who = self._charged(sender)
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        used = inbox.held_by.setdefault(who, [0, 0])
        if used[0] >= self.sender_share or used[1] + size > self.max_pending_bytes_per_sender:
            return QUOTA
        used[0] += 1
        used[1] += size
        self.next_entry += 1
        inbox.charges[self.next_entry] = (who, size)
        inbox.queue.append((self.next_entry, message_id, raw))
        if message_id is not None:
            inbox.held_ids[message_id] = inbox.held_ids.get(message_id, 0) + 1
        inbox.arrived.set()
        return OK

    async def take(self, agent_id: int, consumer: str, limit: int, wait: float) -> list[tuple[int, Any, Any]]:
        """Up to `limit` entries for `agent_id`: first those a silent reader left unacknowledged,
        then new ones, waiting up to `wait` seconds for one to come. They stay pending until `ack`."""
        inbox = self.inboxes.get(agent_id)
        if inbox is None:
            return []
        self.last_heard[consumer] = time.monotonic()
        limit = max(1, min(int(limit), 10_000))
        taken = self._reclaim(inbox, consumer, limit)
        if not taken and not inbox.queue and wait > 0:
            inbox.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(inbox.arrived.wait(), timeout=min(float(wait), 60.0))
            self.last_heard[consumer] = time.monotonic()
        while inbox.queue and len(taken) < limit:
            entry = inbox.queue.popleft()
            inbox.pending[entry[0]] = _Pending(entry, consumer)
            taken.append(entry)
        if not inbox.queue:
            inbox.arrived.clear()
        return taken

    def _reclaim(self, inbox: _Inbox, consumer: str, limit: int) -> list[tuple[int, Any, Any]]:
        """Entries pending with another reader that has not called for `claim_idle_seconds`: a dead
        agent's unacknowledged messages, handed to its replacement in the order they came."""
        if not inbox.pending:
            return []
        now = time.monotonic()
        taken: list[tuple[int, Any, Any]] = []
        for entry_id in sorted(inbox.pending):
            pending = inbox.pending[entry_id]
            if pending.consumer == consumer:
                continue
            if now - self.last_heard.get(pending.consumer, 0.0) < self.claim_idle_seconds:
                continue
            pending.consumer = consumer
            taken.append(pending.entry)
            if len(taken) >= limit:
                break
        return taken

    async def ack(self, agent_id: int, consumer: str, entry_ids: list[int], message_ids: list[str]) -> None:
        """The reader has these: free the entries, remember the ids (a later copy is dropped)."""
        inbox = self.inboxes.get(agent_id)
        if inbox is None:
            return
        self.last_heard[consumer] = time.monotonic()
        for entry_id in entry_ids:
            pending = inbox.pending.pop(entry_id, None) if type(entry_id) is int else None
            if pending is not None:
                self._release_id(inbox, pending.entry[1])
                self._give_back(inbox, entry_id)
        for message_id in message_ids:
            if type(message_id) is str and len(message_id) <= MAX_HINT_CHARS:
                inbox.acked[message_id] = None
                inbox.acked.move_to_end(message_id)
        while len(inbox.acked) > self.remember_acked:
            inbox.acked.popitem(last=False)

    @staticmethod
    def _give_back(inbox: _Inbox, entry_id: int) -> None:
        """The entry's sender has room again in this inbox."""
        charge = inbox.charges.pop(entry_id, None)
        if charge is None:
            return
        used = inbox.held_by.get(charge[0])
        if used is not None:
            used[0] = max(0, used[0] - 1)
            used[1] = max(0, used[1] - charge[1])

    @staticmethod
    def _release_id(inbox: _Inbox, message_id: str | None) -> None:
        if message_id is None:
            return
        left = inbox.held_ids.get(message_id, 0) - 1
        if left > 0:
            inbox.held_ids[message_id] = left
        else:
            inbox.held_ids.pop(message_id, None)

    async def sizes(self) -> dict[int, tuple[int, int]]:
        """agent id -> (queued, pending): for tests and for a look at a team's backlog."""
        return {agent_id: (len(i.queue), len(i.pending)) for agent_id, i in self.inboxes.items()}

    # --- the team's status (`MailboxStatus`): who runs, waits or has ended; what has moved ---------

    async def status_get(self, agent_id: int) -> str | None:
        return self.states.get(agent_id)

    async def status_mark(self, agent_id: int, state: str) -> None:
        if agent_id in self.states and state in STATES:
            self.states[agent_id] = state

    async def status_waiting(self, agent_id: int, is_waiting: bool) -> None:
        """An agent enters or leaves a receive that waits; an ended agent stays ended."""
        if type(agent_id) is int and self.states.get(agent_id) in ("running", "waiting"):
            self.states[agent_id] = "waiting" if is_waiting else "running"

    async def status_count(self, agent_id: int, sent: int, taken: int) -> None:
        if type(agent_id) is int and agent_id in self.states:
            self.sent[agent_id] += int(sent)
            self.taken[agent_id] += int(taken)

    async def activity(self) -> tuple[list[int], bool, int, int]:
        """(live agents, whether all of them wait with nothing queued for them, sent, taken)."""
        live = [i for i, state in self.states.items() if state in ("running", "waiting")]
        all_waiting = bool(live) and all(
            self.states[i] == "waiting" and not self.inboxes[i].queue for i in live
        )
        return live, all_waiting, sum(self.sent.values()), sum(self.taken.values())

    # --- the agents' console lines, relayed to the host's terminal -----------------------------

    async def console_put(self, text: str) -> None:
        if type(text) is not str or not text:
            return
        if len(self.console) >= MAX_CONSOLE_WRITES:
            self.console_dropped += 1
            return
        self.console.append(text[:MAX_CONSOLE_CHARS])

    async def console_take(self) -> list[str]:
        """Every write waiting, oldest first (and a note of how many were dropped when full)."""
        taken = list(self.console)
        self.console.clear()
        if self.console_dropped:
            taken.append(f"({self.console_dropped} console writes of the agents were dropped: too many)\n")
            self.console_dropped = 0
        return taken
