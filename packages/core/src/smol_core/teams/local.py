"""The `local` transport: one multiprocessing queue per agent, on this machine, with no server.

It accepts the seed system's layout as it is, `queue_dict = manager.dict()` of `manager.Queue()`s
keyed by agent id, and otherwise makes its own `multiprocessing` queues (faster: no manager process
in the path). Each queue carries JSON text only; what comes off it is checked by `decode`.

Delivery: a queue hands a message over once, so there is nothing to acknowledge and nothing to
redeliver: a message read by an agent that dies is lost with it. Use a transport with
acknowledgements (redis) where that matters.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from smol_core.teams.errors import PeerGoneError, UnknownRecipientError
from smol_core.teams.message import DEFAULT_MAX_MESSAGE_BYTES, Message, encode
from smol_core.teams.status import PeerStatus
from smol_core.teams.transport import Deduplicator, accept_message


class LocalTransport:
    """Queues in a mapping agent id -> queue. Picklable to child processes as they start (spawn)."""

    def __init__(
        self,
        queue_dict: Mapping[int, Any] | None = None,
        num_agents: int | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        context: str | None = "spawn",
        status: PeerStatus | None = None,
    ) -> None:
        if queue_dict is None:
            if num_agents is None or num_agents < 1:
                raise ValueError("LocalTransport needs a queue_dict, or num_agents (at least 1)")
            ctx = multiprocessing.get_context(context)
            queue_dict = {agent_id: ctx.Queue() for agent_id in range(num_agents)}
        self.queues = queue_dict
        self.max_message_bytes = max_message_bytes
        self.status = status
        """agent id -> "running" | "finished" | "dead", where the team keeps one: sending to an agent
        whose process has ended is an error, not a message that is never read."""
        self.refused: list[str] = []
        self._dedup: dict[int, Deduplicator] = {}

    def __getstate__(self) -> dict[str, Any]:
        # what a receiver has seen is its own: a child starts with an empty memory of ids
        state = dict(self.__dict__)
        state["refused"], state["_dedup"] = [], {}
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
        target.put(encode(message, self.max_message_bytes))

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
            message = accept_message(raw, agent_id, self.max_message_bytes, self.refused)
            if message is not None and dedup.first_time(message.id):
                received.append(message)
        return received

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """Nothing to do: a queue hands each message over once."""

    def close(self) -> None:
        """Nothing to release: the queues belong to whoever made them (the team, or the seed's manager)."""
