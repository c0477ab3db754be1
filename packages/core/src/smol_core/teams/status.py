"""Which agents of a team are running, waiting or gone, in shared memory every agent process reads.

The host that owns the processes writes "finished" and "dead" (it alone sees an exit); senders read
it, so a message to an agent that has ended is an error the model sees ("agent 1 has stopped")
instead of a message that no one will ever read. Each agent writes its own "waiting" state and its
own counts of messages sent and taken, so the host can tell a team that is idle (everyone waits
on an empty inbox, nothing in flight) from one that is working, and stop it instead of waiting for
the deadline. Every slot has one writer, so no lock is needed.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from typing import Any

RUNNING, FINISHED, DEAD, WAITING = 0, 1, 2, 3
_NAMES = {RUNNING: "running", FINISHED: "finished", DEAD: "dead", WAITING: "waiting"}
_CODES = {name: code for code, name in _NAMES.items()}


@dataclass(frozen=True)
class Activity:
    """A snapshot of the team: who is still there, whether all of them wait, what has moved."""

    live: tuple[int, ...]
    all_waiting: bool
    sent: int
    taken: int


class PeerStatus:
    """agent id -> "running" | "waiting" | "finished" | "dead", plus per-agent message counters.

    Picklable to child processes as they start (it wraps `multiprocessing.Array`s)."""

    def __init__(self, num_agents: int, context: str = "spawn") -> None:
        ctx = multiprocessing.get_context(context)
        self._codes: Any = ctx.Array("b", num_agents, lock=False)
        self._sent: Any = ctx.Array("q", num_agents, lock=False)
        self._taken: Any = ctx.Array("q", num_agents, lock=False)

    def get(self, agent_id: int, default: str | None = None) -> str | None:
        if not 0 <= agent_id < len(self._codes):
            return default
        return _NAMES.get(self._codes[agent_id], default)

    def mark(self, agent_id: int, state: str) -> None:
        self._codes[agent_id] = _CODES[state]

    def waiting(self, agent_id: int, is_waiting: bool) -> None:
        """An agent enters or leaves a receive that waits; an ended agent stays ended."""
        if 0 <= agent_id < len(self._codes) and self._codes[agent_id] in (RUNNING, WAITING):
            self._codes[agent_id] = WAITING if is_waiting else RUNNING

    def count(self, agent_id: int, sent: int = 0, taken: int = 0) -> None:
        if 0 <= agent_id < len(self._codes):
            self._sent[agent_id] += sent
            self._taken[agent_id] += taken

    def activity(self) -> Activity:
        live = tuple(i for i in range(len(self._codes)) if self._codes[i] in (RUNNING, WAITING))
        return Activity(
            live=live,
            all_waiting=bool(live) and all(self._codes[i] == WAITING for i in live),
            sent=sum(self._sent),
            taken=sum(self._taken),
        )

    def __len__(self) -> int:
        return len(self._codes)
