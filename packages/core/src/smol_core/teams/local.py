"""The `local` transport: one inbox per agent, on this machine, with no server.

It accepts smolagents' layout as it is, `queue_dict = manager.dict()` of `manager.Queue()`s
keyed by agent id, and otherwise makes its own inboxes: a named pipe per agent in a private folder
(`fifo_inbox.py`: opened by path where used, so an agent starts holding none of them; faster than a
manager process in the path, and than multiprocessing queues handed to every agent). Each inbox
carries JSON text only; what comes off it is checked by `accept_message`.

Its own inboxes are a team's, made here, so this transport is the team's launcher for them:
- it draws the team's keys (`identity.TeamKeys`): every message is sealed by its sender's key and
  checked on receipt, so no agent can speak as another (the team hands each agent its own share);
- every sender has a quota in every inbox, counted in memory shared by the team's processes:
  at most `max_pending_per_sender` messages and `max_pending_bytes_per_sender` bytes sent and not
  yet read. A sender over its quota is told the inbox is full *for it*; the others still have
  theirs, so an inbox holds at most the sum of the quotas, and one agent can neither grow a peer's
  memory nor starve the other senders.
smolagents' layout (queues someone else made) keeps no quotas and no keys unless given `credentials`:
there is no launcher to issue them.

Delivery: an inbox hands a message over once, so a message read by an agent that dies is lost with
it; unless the inboxes are journaled (`journal=True`, what a durable team asks for): then what a
reader took is kept in a file beside its inbox until it is acknowledged, and an agent started again
after its process died is handed it again (at-least-once, as Redis gives; `ReceiveMessagesTool`
drops what it had handed over already).
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import tempfile
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from smol_core.janitor import remove_tree, remove_when_gone
from smol_core.teams.errors import PeerGoneError, UnknownRecipientError
from smol_core.teams.fifo_inbox import FifoInbox, InboxGoneError
from smol_core.teams.identity import SEAL_OVERHEAD, Credentials, TeamKeys
from smol_core.teams.message import DEFAULT_MAX_MESSAGE_BYTES, Message
from smol_core.teams.status import PeerStatus
from smol_core.teams.transport import (
    DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
    DEFAULT_MAX_PENDING_PER_SENDER,
    Deduplicator,
    accept_message,
    sender_quota_error,
    wire_bytes,
    wire_text,
)


class LocalTransport:
    """Inboxes in a mapping agent id -> inbox. Picklable to child processes as they start."""

    def __init__(
        self,
        queue_dict: Mapping[int, Any] | None = None,
        num_agents: int | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        context: str | None = "spawn",
        status: PeerStatus | None = None,
        credentials: Credentials | None = None,
        max_pending_per_sender: int = DEFAULT_MAX_PENDING_PER_SENDER,
        max_pending_bytes_per_sender: int = DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
        folder: str | None = None,
        journal: bool = False,
    ) -> None:
        self.max_pending_per_sender = max(1, int(max_pending_per_sender))
        self.max_pending_bytes_per_sender = max(1, int(max_pending_bytes_per_sender))
        self._pending: Any = None
        """(recipient, sender) -> [messages, bytes] unread, in shared memory; None for smolagents' queues."""
        self._size = 0
        self._inbox_folder: str | None = None
        """The folder of the inboxes this transport made (in this process only: a child's copy owns none)."""
        if queue_dict is None:
            if num_agents is None or num_agents < 1:
                raise ValueError("LocalTransport needs a queue_dict, or num_agents (at least 1)")
            ctx = multiprocessing.get_context(context)
            queue_dict = self._make_inboxes(num_agents, max_message_bytes, folder, journal)
            self._pending = ctx.Array("q", num_agents * num_agents * 2)
            self._size = num_agents
            if credentials is None:
                credentials = TeamKeys(range(num_agents))
        self.queues = queue_dict
        self.credentials = credentials
        """The team's keys (the host's) or one agent's share; None: messages travel unsealed."""
        self.max_message_bytes = max_message_bytes
        self.status = status
        """agent id -> "running" | "finished" | "dead", where the team keeps one: sending to an agent
        whose process has ended is an error, not a message that is never read."""
        self.refused: list[str] = []
        self._dedup: dict[int, Deduplicator] = {}
        self._unacknowledged: dict[int, set[str]] = {}
        """agent id -> the ids this process handed over and that were not acknowledged yet: a
        journaled inbox is settled when none is left."""

    def _make_inboxes(
        self, num_agents: int, max_message_bytes: int, folder: str | None, journal: bool = False
    ) -> dict[int, FifoInbox]:
        """One FIFO per agent (fifo_inbox.py), in a private folder made in `folder` (a team's, which
        its host removes) or in the temporary directory (removed by `close`, or by this process's
        janitor if it is killed)."""
        self._inbox_folder = tempfile.mkdtemp(prefix="smol-inboxes-", dir=folder)
        if folder is None:
            remove_when_gone(self._inbox_folder)
        limit = max_message_bytes + SEAL_OVERHEAD
        return {
            agent_id: FifoInbox(
                os.path.join(self._inbox_folder, str(agent_id)), limit, make=True, journal=journal
            )
            for agent_id in range(num_agents)
        }

    def __getstate__(self) -> dict[str, Any]:
        # what a receiver has seen is its own: a child starts with an empty memory of ids; the
        # inboxes travel as their paths, and their folder stays the maker's to remove
        state = dict(self.__dict__)
        state["refused"], state["_dedup"], state["_inbox_folder"] = [], {}, None
        state["_unacknowledged"] = {}
        return state

    def agent_ids(self) -> Collection[int]:
        # keys(): a manager.dict() proxy answers it with one round trip; iterating makes one per key
        return sorted(int(key) for key in self.queues.keys())  # noqa: SIM118

    def _queue(self, agent_id: int, role: str) -> Any:
        try:
            return self.queues[agent_id]
        except KeyError:
            known = ", ".join(str(i) for i in self.agent_ids())
            raise UnknownRecipientError(
                f"there is no agent {agent_id!r} to {role}; the agents are: {known}"
            ) from None

    def send(self, message: Message) -> None:
        target = self._queue(message.recipient, "send to")
        state = self.status.get(message.recipient) if self.status is not None else None
        if state in ("finished", "dead"):
            raise PeerGoneError(
                f"agent {message.recipient} has {'stopped' if state == 'finished' else 'died'}: "
                "it will read no more messages"
            )
        text = wire_text(message, self.max_message_bytes, self.credentials)
        size = wire_bytes(text)
        if self._pending is None:
            target.put(text)
            return
        self._charge(message.recipient, message.sender, size)
        try:
            target.put_nowait(text)  # never waits: what the pipe cannot take yet is written later
        except InboxGoneError as error:
            self._release(message.recipient, message.sender, size)
            raise PeerGoneError(f"agent {message.recipient}'s inbox is gone: {error.strerror}") from None

    def _slot(self, recipient: int, sender: int) -> int | None:
        if not (0 <= recipient < self._size and 0 <= sender < self._size):
            return None
        return (recipient * self._size + sender) * 2

    def _charge(self, recipient: int, sender: int, size: int) -> None:
        """Count a message against its sender's quota in the recipient's inbox, or refuse it."""
        slot = self._slot(recipient, sender)
        if slot is None:
            raise sender_quota_error(recipient, 0, 0)
        with self._pending.get_lock():
            counts = self._pending.get_obj()  # the raw array: the lock is held already
            if (
                counts[slot] >= self.max_pending_per_sender
                or counts[slot + 1] + size > self.max_pending_bytes_per_sender
            ):
                raise sender_quota_error(recipient, counts[slot], counts[slot + 1])
            counts[slot] += 1
            counts[slot + 1] += size

    def _release(self, recipient: int, sender: int, size: int) -> None:
        """A message of `sender` left the recipient's inbox: its quota has room again."""
        slot = self._slot(recipient, sender)
        if slot is None:
            return
        with self._pending.get_lock():
            counts = self._pending.get_obj()
            counts[slot] = max(0, counts[slot] - 1)
            counts[slot + 1] = max(0, counts[slot + 1] - size)

    def pending(self, recipient: int, sender: int) -> tuple[int, int]:
        """(messages, bytes) `sender` has sent `recipient` that it has not read yet (0, 0 untracked)."""
        slot = self._slot(recipient, sender)
        if self._pending is None or slot is None:
            return 0, 0
        with self._pending.get_lock():
            return int(self._pending[slot]), int(self._pending[slot + 1])

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
        source = self._queue(agent_id, "receive for")
        dedup = self._dedup.setdefault(agent_id, Deduplicator())
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        received: list[Message] = []
        while len(received) < limit:
            try:
                if received:
                    raw = source.get_nowait()
                else:
                    wait = None if deadline is None else deadline - time.monotonic()
                    raw = source.get_nowait() if wait is not None and wait <= 0 else source.get(timeout=wait)
            except queue_module.Empty:
                if received or deadline is None or time.monotonic() >= deadline:
                    break
                continue
            message = accept_message(raw, agent_id, self.max_message_bytes, self.refused, self.credentials)
            if message is None:
                continue
            if self._pending is not None and self.credentials is not None and isinstance(raw, str):
                self._release(agent_id, message.sender, wire_bytes(raw))  # sealed: its sender sent it
            if dedup.first_time(message.id):
                received.append(message)
        if received and isinstance(source, FifoInbox) and source.journal:
            self._unacknowledged.setdefault(agent_id, set()).update(message.id for message in received)
        return received

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """A journaled inbox forgets what it handed over once all of it is acknowledged; a plain
        queue hands each message over once and has nothing to do."""
        held = self._unacknowledged.get(agent_id)
        if held is None:
            return
        held.difference_update(message_ids)
        if not held:
            source = self.queues.get(agent_id)
            if isinstance(source, FifoInbox):
                source.settle()

    def close(self) -> None:
        """Release this process's ends of the inboxes, once what it sent is written (smolagents'
        queues belong to whoever made them: nothing to do); the maker also removes their folder."""
        for inbox in self.queues.values() if self._pending is not None else ():
            inbox.close()
        if self._inbox_folder is not None:
            folder, self._inbox_folder = self._inbox_folder, None
            remove_tree(folder)
