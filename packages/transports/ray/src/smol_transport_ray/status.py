"""`MailboxStatus`: the team's peer status kept in the mailbox actor, for agents on a Ray cluster.

A team run by local processes shares its status in memory (`PeerStatus`); agents on other machines
cannot, so the status lives with their inboxes: a send asks it whether the recipient has ended (a
clear error instead of a message no one reads), and the host asks it whether the team is idle.
Counts and waiting flags are sent without waiting for an answer, in the batches of the process's
sends (so the counts never run ahead of the messages they count); the host's marks are answered, and never raise: a gone mailbox must not stop a shutdown.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from smol_core.plugin_api import Activity, MessagingError, PeerStatus

if TYPE_CHECKING:
    from smol_transport_ray.transport import RayTransport


class MailboxStatus(PeerStatus):
    """`PeerStatus` with its slots in the team's `Mailbox` actor. Picklable with its transport."""

    def __init__(self, transport: RayTransport, num_agents: int) -> None:  # no shared memory to make
        self.transport = transport
        self.num_agents = num_agents

    def get(self, agent_id: int, default: str | None = None) -> str | None:
        state = self.transport.call("status_get", "ask whether a peer is there", agent_id)
        return state if isinstance(state, str) else default

    def mark(self, agent_id: int, state: str) -> None:
        with contextlib.suppress(MessagingError):
            self.transport.call("status_mark", f"mark agent {agent_id} {state}", agent_id, state)

    def waiting(self, agent_id: int, is_waiting: bool) -> None:
        self._tell("status_waiting", agent_id, is_waiting)

    def count(self, agent_id: int, sent: int = 0, taken: int = 0) -> None:
        self._tell("status_count", agent_id, sent, taken)

    def _tell(self, method: str, *args: Any) -> None:
        self.transport.tell(method, *args)

    def activity(self) -> Activity:
        try:
            live, all_waiting, sent, taken = self.transport.call("activity", "read the team's activity")
        except MessagingError:  # no answer: not idle (the deadline and the exits still end the run)
            return Activity(live=(), all_waiting=False, sent=0, taken=0)
        return Activity(live=tuple(live), all_waiting=bool(all_waiting), sent=int(sent), taken=int(taken))

    def __len__(self) -> int:
        return self.num_agents
