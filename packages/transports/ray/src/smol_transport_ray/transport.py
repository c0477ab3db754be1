"""`RayTransport`: a team's inboxes in a `Mailbox` actor on a Ray cluster.

The host that makes the transport (the team) creates the mailbox actor, named after the team, and
owns it: it is not detached, so it ends with the host's Ray connection at the latest, and `close()`
by the host kills it at the end of the run. Every agent process receives the transport pickled
(the address and the team's name only), joins the cluster and finds the mailbox by name.

Every call to the actor has a time limit: a mailbox that died or a cluster that stopped answering is
a `MessagingError` the model reads, never a hang. Whatever is read from the mailbox is untrusted
(another agent wrote it) and goes through `accept_message`, the one check every inbox runs; the
message id the sender declared must match the one inside, or the entry is refused.

Identity: any process on the cluster can call the mailbox, so who sent a message is what its seal
says (the team's keys, drawn by the transport that made the team; each agent's process holds only
its own share), never who called `put`. Bounds: the mailbox counts each sender's unacknowledged
messages and bytes in each inbox and refuses a sender over its quota (its share of `max_inbox`,
at most `max_pending_per_sender` messages and `max_pending_bytes_per_sender` bytes), so one sender
cannot fill an inbox for the others.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from smol_core.plugin_api import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
    DEFAULT_MAX_PENDING_PER_SENDER,
    MAX_REFUSALS_KEPT,
    Credentials,
    Deduplicator,
    Message,
    MessagingError,
    PeerGoneError,
    TeamKeys,
    UnknownRecipientError,
    accept_message,
    sender_quota_error,
    wire_text,
)
from smol_transport_ray import mailbox as mailbox_module
from smol_transport_ray.cluster import NAMESPACE, connect, gcs_address
from smol_transport_ray.outbox import Outbox, drop_outbox, outbox_for
from smol_transport_ray.spares import SPARES
from smol_transport_ray.status import MailboxStatus

WAIT_SLICE_SECONDS = 1.0
"""A waiting receive asks the mailbox to wait at most this long per call, so that the caller's own
deadline, and a mailbox that died meanwhile, are both noticed within about a second."""
CALL_TIMEOUT_SECONDS = 30.0
"""How long one call to the mailbox may take beyond its own wait before the cluster counts as gone."""


class RayTransport:
    """Agents' inboxes in one named actor per team. Picklable: each process joins the cluster anew.

    `url`: the cluster to join (`auto`, `host:6379`, `ray://head:10001`); None joins the cluster this
    process is connected to, or starts a local one. `team`: the mailbox's name; a fresh one makes a
    new mailbox owned (and killed at `close`) by this object, an existing one is joined.

    In a team (`run_agents(..., transport="ray")`), `agents="cluster"` runs the agents under Ray
    actors on the cluster, `agents_per_worker` per actor (`agent_options`: the actors' Ray options,
    e.g. `{"num_cpus": 1}`, or a list of them the agents take in turn, to place them on several
    nodes); `agents="local"` keeps them local processes of the host, talking through the cluster's
    mailbox.
    """

    def __init__(
        self,
        url: str | None = None,
        num_agents: int | None = None,
        agent_ids: Sequence[int] | None = None,
        team: str | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        claim_idle_seconds: float = 30.0,
        max_inbox: int = 10_000,
        call_timeout_seconds: float = CALL_TIMEOUT_SECONDS,
        agents: Literal["cluster", "local"] = "cluster",
        agent_options: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        agents_per_worker: int = 32,
        status: Any = None,
        credentials: Credentials | None = None,
        max_pending_per_sender: int = DEFAULT_MAX_PENDING_PER_SENDER,
        max_pending_bytes_per_sender: int = DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
    ) -> None:
        if agents not in ("cluster", "local"):
            raise ValueError(f"agents must be 'cluster' or 'local', got {agents!r}")
        self.agents = agents
        self.agent_options: dict[str, Any] | list[dict[str, Any]] = (
            dict(agent_options or {})
            if agent_options is None or isinstance(agent_options, Mapping)
            else [dict(entry) for entry in agent_options]
        )
        self.agents_per_worker = max(1, int(agents_per_worker))
        self.team = team or uuid.uuid4().hex
        self.max_message_bytes = max_message_bytes
        self.claim_idle_seconds = claim_idle_seconds
        self.max_inbox = max_inbox
        self.call_timeout_seconds = call_timeout_seconds
        self.max_pending_per_sender = max(1, int(max_pending_per_sender))
        self.max_pending_bytes_per_sender = max(1, int(max_pending_bytes_per_sender))
        self.status = status
        """agent id -> "running" | "finished" | "dead", where the team that started the agents keeps one."""
        self.refused: list[str] = []
        self._ray: Any = connect(None if url in (None, "") else url)
        self.address = gcs_address() or url
        """What the agents' processes join: the cluster's own address when this process started it."""
        self._actor: Any = None
        self._owner = False
        self._consumers: dict[int, str] = {}
        self._dedup: dict[int, Deduplicator] = {}
        self._holding: dict[int, dict[str, list[int]]] = {}
        """agent id -> message id -> mailbox entries handed to the agent and not yet acknowledged."""
        ids = list(agent_ids) if agent_ids is not None else None
        if ids is None and num_agents is not None:
            ids = list(range(num_agents))
        self._ids: list[int] | None = sorted(int(i) for i in ids) if ids is not None else None
        if self._ids is not None:
            self._open(self._ids, fresh=team is None)
        if credentials is None and team is None and self._ids is not None:
            credentials = TeamKeys(self._ids)  # a new team: this object is its launcher
        self.credentials = credentials
        """The team's keys (its launcher's), one agent's share, or None (messages travel unsealed: a
        transport that joins a team by name without being given its keys)."""

    def __getstate__(self) -> dict[str, Any]:
        # the connection, the actor handle and what this process holds stay here; the mailbox is
        # the creator's to kill
        state = dict(self.__dict__)
        state.update(_ray=None, _actor=None, _owner=False, _consumers={}, _dedup={}, _holding={}, refused=[])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # join the cluster as the process starts (its main thread, before an agent's own signal
        # handlers are set), not halfway through the agent's first tool call
        self._ray = connect(self.address)
        # on a node of the cluster (an agent's supervisor), the cluster's own address is the one its
        # processes join, whatever the host used (a Ray Client URL, `auto`)
        self.address = gcs_address() or self.address

    @property
    def name(self) -> str:
        return f"smol-team-{self.team}"

    # --- the mailbox ------------------------------------------------------------------------------

    def _open(self, ids: list[int], fresh: bool) -> None:
        """Create the team's mailbox (a fresh team: this object owns it, the host's spare if it has
        one, `spares`) or join the named one."""
        ray = self._ray
        # by value: the cluster's nodes need Ray, not this package, to run the mailbox
        ray.cloudpickle.register_pickle_by_value(mailbox_module)
        remote = ray.remote(num_cpus=0, max_restarts=0)(mailbox_module.Mailbox)
        if fresh and self._take_spare(ids):
            SPARES.replenish(ray, remote)
            return
        args, options = self._mailbox_settings(ids)
        self._actor = remote.options(
            name=self.name, namespace=NAMESPACE, get_if_exists=not fresh, lifetime="non_detached"
        ).remote(*args, **options)
        self._owner = fresh
        if not fresh:  # a mailbox joined by name says who its agents are
            self._ids = self._call(self._actor.agent_ids.remote(), 0.0, "join the team's mailbox")
        # a new one is not waited for: its worker starts while the agents' do (a failed start is
        # the first call's error)
        if fresh:
            SPARES.replenish(ray, remote)

    def _take_spare(self, ids: list[int]) -> bool:
        """Configure the host's spare mailbox for this team, and take its name; False: none to take."""
        spare = SPARES.take(self._ray)
        if spare is None:
            return False
        team, actor = spare
        try:
            args, options = self._mailbox_settings(ids)
            taken = self._call(actor.configure.remote(*args, **options), 0.0, "set up a mailbox")
        except MessagingError:  # the spare died: this team makes its own
            return False
        if taken is not True:
            return False
        self.team, self._actor, self._owner = team, actor, True
        return True

    def _mailbox_settings(self, ids: list[int]) -> tuple[list[Any], dict[str, Any]]:
        """The mailbox's `__init__` arguments for this team."""
        # the mailbox bounds entries loosely (4 bytes a character, whatever it was sent as): the
        # exact limit is the receiver's check, which counts what it refuses
        args = [ids, self.max_message_bytes * 4, self.max_inbox, self.claim_idle_seconds]
        options = {
            "max_pending_per_sender": self.max_pending_per_sender,
            "max_pending_bytes_per_sender": self.max_pending_bytes_per_sender,
        }
        return args, options

    @property
    def ray(self) -> Any:
        """The `ray` module, connected to the team's cluster."""
        if self._ray is None:
            self._ray = connect(self.address)
        return self._ray

    def call(self, method: str, doing: str, *args: Any) -> Any:
        """Call the mailbox's `method` and wait for its answer (bounded): for the team's status.
        What this process queued goes first: the answer reflects it."""
        self.flush()
        return self._call(getattr(self.actor, method).remote(*args), 0.0, doing)

    @property
    def actor(self) -> Any:
        """The mailbox actor's handle, found by name on first use in this process."""
        if self._actor is None:
            try:
                self._actor = self.ray.get_actor(self.name, namespace=NAMESPACE)
            except ValueError:
                raise MessagingError(
                    f"the team's mailbox ({self.name}) is not on the Ray cluster: the team has ended"
                ) from None
        return self._actor

    def _call(self, ref: Any, wait: float, doing: str) -> Any:
        """`ray.get` with a deadline: a dead mailbox or a silent cluster is an error, not a hang."""
        ray = self.ray
        try:
            return ray.get(ref, timeout=wait + self.call_timeout_seconds)
        except ray.exceptions.GetTimeoutError:
            raise MessagingError(
                f"the Ray cluster did not answer within {wait + self.call_timeout_seconds:.0f} s "
                f"when asked to {doing}"
            ) from None
        except ray.exceptions.RayActorError:
            raise MessagingError(
                f"the team's mailbox on the Ray cluster is gone (could not {doing}): the team has ended"
            ) from None

    def agent_ids(self) -> Collection[int]:
        if self._ids is None:
            self._ids = list(self._call(self.actor.agent_ids.remote(), 0.0, "list the agents"))
        return self._ids

    def _consumer(self, agent_id: int) -> str:
        if agent_id not in self._consumers:
            self._consumers[agent_id] = f"agent-{agent_id}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        return self._consumers[agent_id]

    # --- sending --------------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        if message.recipient not in self.agent_ids():
            raise UnknownRecipientError(
                f"there is no agent {message.recipient!r} to send to; the agents are: {self._known()}"
            )
        # a team's status kept in the mailbox is checked there, by the call that queues (a peer that
        # ended is known from the answer to a batch: the next send to it raises)
        local_status = self.status is not None and not isinstance(self.status, MailboxStatus)
        state = self.status.get(message.recipient) if local_status else None
        if state in ("finished", "dead"):
            raise self._gone(message.recipient, state)
        outbox = self.outbox
        earlier = outbox.check(message.sender, message.recipient)  # answers to buffered sends
        if earlier in ("finished", "dead"):
            raise self._gone(message.recipient, earlier)
        if earlier is not None:
            raise MessagingError(
                f"the team's mailbox refused an earlier message to agent {message.recipient} ({earlier}): "
                "this one was not sent"
            )
        text = wire_text(message, self.max_message_bytes, self.credentials)
        size = len(text.encode("utf-8", "surrogatepass"))
        outcome = outbox.put(message.recipient, text, message.id, message.sender, size)
        if outcome is not None:
            self._refused(message.recipient, outcome)

    def _refused(self, recipient: int, outcome: str) -> None:
        """Raise the error the mailbox's answer `outcome` to a send stands for (none for "ok")."""
        if outcome in ("finished", "dead"):
            raise self._gone(recipient, outcome)
        if outcome == mailbox_module.QUOTA:
            raise sender_quota_error(
                recipient, self.max_pending_per_sender, self.max_pending_bytes_per_sender
            )
        if outcome == mailbox_module.FULL:
            raise MessagingError(
                f"agent {recipient}'s inbox is full ({self.max_inbox} unread messages): wait for it to catch up"
            )
        if outcome != mailbox_module.OK:
            raise MessagingError(f"the team's mailbox refused the message to agent {recipient}: {outcome}")

    @property
    def outbox(self) -> Outbox:
        """This process's outbox for the team: sends and status notices, delivered in batches."""
        return outbox_for(self.name, self._deliver)

    def _deliver(self, batch: list[Any]) -> Any:
        return self._call(self.actor.batch.remote(batch), 0.0, "deliver messages")

    def tell(self, method: str, *args: Any) -> None:
        """Queue a status notice for the mailbox, in order with this process's sends (no answer)."""
        self.outbox.tell(method, *args)

    def flush(self) -> None:
        """Deliver what this process has queued for the mailbox now, and wait for the answer."""
        self.outbox.flush()

    @staticmethod
    def _gone(recipient: int, state: str) -> PeerGoneError:
        return PeerGoneError(
            f"agent {recipient} has {'stopped' if state == 'finished' else 'died'}: it will read no more messages"
        )

    def _known(self) -> str:
        return ", ".join(str(i) for i in self.agent_ids())

    # --- receiving ------------------------------------------------------------------------------

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
        if agent_id not in self.agent_ids():
            raise UnknownRecipientError(
                f"there is no agent {agent_id!r} to receive for; the agents are: {self._known()}"
            )
        consumer = self._consumer(agent_id)
        self.flush()  # what this process sent goes before it waits (a request, then its reply)
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while True:
            left = WAIT_SLICE_SECONDS if deadline is None else deadline - time.monotonic()
            wait = max(0.0, min(left, WAIT_SLICE_SECONDS))
            entries = self._call(
                self.actor.take.remote(agent_id, consumer, limit, wait), wait, f"receive for agent {agent_id}"
            )
            received = self._accept(agent_id, consumer, entries)
            if received or (deadline is not None and time.monotonic() >= deadline):
                return received

    def _accept(self, agent_id: int, consumer: str, entries: Any) -> list[Message]:
        """Check each entry; refused ones and repeats are acknowledged at once (never redelivered)."""
        holding = self._holding.setdefault(agent_id, {})
        dedup = self._dedup.setdefault(agent_id, Deduplicator())
        accepted: list[Message] = []
        drop: list[int] = []
        for entry in entries if isinstance(entries, list) else []:
            entry_id, declared, raw = entry
            message = accept_message(raw, agent_id, self.max_message_bytes, self.refused, self.credentials)
            if message is None:
                drop.append(entry_id)
            elif declared != message.id:  # the mailbox drops repeats by the declared id: it must be true
                if len(self.refused) < MAX_REFUSALS_KEPT:
                    self.refused.append("a message arrived whose id is not the one its sender declared")
                drop.append(entry_id)
            elif message.id in holding:  # a second copy of one the agent holds: acked with it
                holding[message.id].append(entry_id)
            elif not dedup.first_time(message.id):
                drop.append(entry_id)
            else:
                holding[message.id] = [entry_id]
                accepted.append(message)
        if drop:
            self._call(self.actor.ack.remote(agent_id, consumer, drop, []), 0.0, "drop refused messages")
        return accepted

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """The agent has these: the mailbox frees their entries and drops any later copy."""
        if not message_ids:
            return
        holding = self._holding.setdefault(agent_id, {})
        entries: list[int] = []
        for message_id in message_ids:
            entries.extend(holding.pop(message_id, []))
        self._call(
            self.actor.ack.remote(agent_id, self._consumer(agent_id), entries, list(message_ids)),
            0.0,
            f"acknowledge agent {agent_id}'s messages",
        )

    def close(self) -> None:
        """Deliver what is queued; the host that made the mailbox kills it (the run is over), an
        agent's process only lets go."""
        with contextlib.suppress(Exception):  # a mailbox already gone: nothing to deliver to
            self.flush()
        if self._owner:
            drop_outbox(self.name)
        if self._owner and self._actor is not None and self._ray is not None:
            # already gone with its cluster: nothing left to end
            with contextlib.suppress(Exception):
                self._ray.kill(self._actor, no_restart=True)
        self._owner = False
        self._actor = None
