"""`RedisTransport`: one Redis stream per agent, read through a consumer group.

Why streams with a group rather than lists: a list's BRPOP hands a message over and forgets it, so
an agent that dies holding one loses it. A group keeps every delivered entry *pending* until the
reader acknowledges it (XACK); a replacement reader claims what a dead one left pending (XAUTOCLAIM
after `claim_idle_seconds`). That is at-least-once delivery; de-duplication by message id (in the
receiving process, and in Redis for ids already acknowledged) makes it once for the agent.

Everything read from Redis is untrusted: the entry must hold exactly one field, the message's JSON
text sealed by its sender's key, and it is checked by `accept_message`; anything else is refused,
acknowledged (so it is not redelivered forever) and deleted. Any process that reaches the server
can write an entry, so identity comes from the seal (the team's keys, drawn by the transport that
made the team and handed to each agent as its own share), not from who wrote it.

Bounds are per sender: the send script counts each sender's unacknowledged messages and bytes in
each inbox (a hash next to the stream) and refuses a sender over its quota, its share of the inbox
(`max_inbox` divided among the team's agents, and at most `max_pending_per_sender` messages and
`max_pending_bytes_per_sender` bytes): one sender cannot fill an inbox so that the others are
refused. The receiver gives the quota back when it acknowledges (or drops) a sealed entry.

Who may touch the streams at all is Redis's to say: a launcher given an admin credential
(`admin_password_file=`, `SMOL_REDIS_ADMIN_PASSWORD_FILE`) makes one ACL user per agent, allowed
only what that agent does (`access.py`), and deletes them when the team ends; each agent's process
logs in as its own user. Otherwise every process logs in as the URL's server expects
(`password_file=`, `SMOL_REDIS_PASSWORD_FILE`, `SMOL_REDIS_USERNAME`; `connection.py`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from typing import Any

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
    wire_bytes,
    wire_text,
)
from smol_transport_redis.access import (
    acting_agent,
    agent_password,
    agent_username,
    check_team_name,
    make_agent_users,
    remove_agent_users,
)
from smol_transport_redis.connection import (
    Login,
    Tls,
    admin_login,
    check_url,
    connect,
    explain,
    plain_login,
)

GROUP = "smol-agents"
FIELD = b"m"
BLOCK_SLICE_MS = 1000
"""The longest a receive blocks on the stream before it looks again for what a dead reader of its
inbox left pending (`_reclaim`): a message held by an agent that died reaches its replacement while
the replacement waits, not only when its wait ends."""

# One round trip that refuses a message from a sender over its quota in an inbox, instead of letting
# a stream grow without end. KEYS: the inbox, its quota hash. ARGV: the entry, the sender, the
# entry's bytes, the sender's message and byte quotas, the keys' time to live. No bound on the
# stream's length as a whole: what a stranger XADDs past this script would use it up and starve the
# team's senders, while the quotas already bound the team's own entries (shares of `max_inbox`).
_SEND = """
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[2] .. ':n') or '0')
local bytes = tonumber(redis.call('HGET', KEYS[2], ARGV[2] .. ':b') or '0')
if held >= tonumber(ARGV[4]) or bytes + tonumber(ARGV[3]) > tonumber(ARGV[5]) then return -1 end
redis.call('HINCRBY', KEYS[2], ARGV[2] .. ':n', 1)
redis.call('HINCRBY', KEYS[2], ARGV[2] .. ':b', tonumber(ARGV[3]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
redis.call('XADD', KEYS[1], '*', 'm', ARGV[1])
return 1
"""
# Give quota back: ARGV pairs of (sender, bytes), one per entry acknowledged; never below zero.
_RELEASE = """
for i = 1, #ARGV, 2 do
  local n = redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':n', -1)
  if n < 0 then redis.call('HSET', KEYS[1], ARGV[i] .. ':n', 0) end
  local b = redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':b', -tonumber(ARGV[i + 1]))
  if b < 0 then redis.call('HSET', KEYS[1], ARGV[i] .. ':b', 0) end
end
return 1
"""


class RedisTransport:
    """Agents' inboxes as Redis streams under `smol:<team>:`. Picklable: each process connects anew.

    `username`, `password_file`: the login of a process that is neither a launcher with an admin
    credential nor an agent of its team (default: `SMOL_REDIS_USERNAME`, the file
    `SMOL_REDIS_PASSWORD_FILE` names, else `SMOL_REDIS_PASSWORD`). `admin_username`,
    `admin_password_file` (default: `SMOL_REDIS_ADMIN_*`): a launcher's credential for making its
    agents' ACL users. `tls_ca_file`, `tls_cert_file`, `tls_key_file` (default: `SMOL_REDIS_TLS_*`):
    for a `rediss://` URL, the CA that signed the server's certificate and the client's own.
    """

    survives_host = True
    """The team's queues, groups and acknowledged ids live in Redis, not in the host: a new host
    given the team's name and keys takes the team over where the old one died (`Team.resume`)."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        num_agents: int | None = None,
        agent_ids: Sequence[int] | None = None,
        team: str | None = None,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        claim_idle_seconds: float = 30.0,
        max_inbox: int = 10_000,
        key_ttl_seconds: int = 86_400,
        status: Any = None,
        credentials: Credentials | None = None,
        max_pending_per_sender: int = DEFAULT_MAX_PENDING_PER_SENDER,
        max_pending_bytes_per_sender: int = DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
        username: str | None = None,
        password_file: str | None = None,
        admin_username: str | None = None,
        admin_password_file: str | None = None,
        tls_ca_file: str | None = None,
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
    ) -> None:
        self.url = url
        self.tls = Tls.from_environment(tls_ca_file, tls_cert_file, tls_key_file)
        check_url(url, self.tls)
        self.username = username
        self.password_file = password_file
        self.team = team or uuid.uuid4().hex
        self.max_message_bytes = max_message_bytes
        self.claim_idle_seconds = claim_idle_seconds
        self.max_inbox = max_inbox
        self.key_ttl_seconds = key_ttl_seconds
        self.status = status
        """agent id -> "running" | "finished" | "dead", where the team that started the agents keeps one."""
        self.max_pending_per_sender = max(1, int(max_pending_per_sender))
        self.max_pending_bytes_per_sender = max(1, int(max_pending_bytes_per_sender))
        self.prefix = f"smol:{self.team}:"
        self.refused: list[str] = []
        self._client: Any = None
        self._login: Login | None = None
        """Who this process's connection logs in as (set as it is made); never pickled."""
        self._admin: Login | None = None
        self._made_users = False
        self.acl_users = False
        """Whether each agent of this team logs in as its own ACL user (made by the team's launcher)."""
        self._send_script: Any = None
        self._release_script: Any = None
        self._charges: dict[int, dict[bytes, tuple[int, int]]] = {}
        """agent id -> stream entry -> (sender, bytes) charged to that sender's quota, until acknowledged."""
        self._consumers: dict[int, str] = {}
        self._dedup: dict[int, Deduplicator] = {}
        self._holding: dict[int, dict[str, list[bytes]]] = {}
        """agent id -> message id -> stream entries delivered to the agent and not yet acknowledged."""
        self._last_claim: dict[int, float] = {}
        self._ids: list[int] | None = None
        self.credentials = credentials
        """The team's keys (its launcher's), one agent's share, or None (messages travel unsealed: a
        transport that joins a team by name without being given its keys)."""
        ids = [int(i) for i in agent_ids] if agent_ids is not None else None
        if ids is None and num_agents is not None:
            ids = list(range(num_agents))
        if ids is not None:
            self._start_team(
                ids, named=team is not None, admin=admin_login(admin_username, admin_password_file)
            )

    def _start_team(self, ids: list[int], named: bool, admin: Login | None) -> None:
        """Make the inboxes of agents `ids`; a new team (or one given an admin credential, which
        makes its ACL users) draws its keys here: this object is then its launcher."""
        self._admin = admin
        if admin is not None:
            check_team_name(self.team)  # it goes into the users' names and key patterns
        with self._server("making the team's inboxes"):
            self._register(ids)
        if self.credentials is None and (not named or admin is not None):
            self.credentials = TeamKeys(ids)
        if admin is not None:
            self._make_users(ids)

    def __getstate__(self) -> dict[str, Any]:
        # the connection, and what this process has received and holds, stay in this process
        state = dict(self.__dict__)
        state.update(
            _client=None,
            _login=None,
            _admin=None,  # the admin credential stays with the launcher
            _made_users=False,
            _send_script=None,
            _release_script=None,
            _consumers={},
            _dedup={},
            _holding={},
            _charges={},
            _last_claim={},
            refused=[],
        )
        return state

    # --- connection and keys --------------------------------------------------------------------

    @property
    def client(self) -> Any:
        if self._client is None:
            self._login = self._who_logs_in()
            self._client = connect(self.url, self._login, self.tls)
        return self._client

    def _who_logs_in(self) -> Login:
        """The launcher logs in as its admin, an agent of a team with ACL users as its own user,
        any other process with the login it was given (or none)."""
        if self._admin is not None:
            return self._admin
        agent = acting_agent(self.credentials)
        if self.acl_users and agent is not None and self.credentials is not None:
            return Login(
                agent_username(self.team, agent),
                agent_password(self.credentials, agent),
                f"agent {agent}'s user is gone (removed as its team ended, or lost as Redis restarted): "
                "start the team again",
            )
        return plain_login(self.username, self.password_file)

    def _as_agent_user(self) -> bool:
        """Whether this process logs in as one agent's ACL user, which may touch only that agent's keys."""
        return self.acl_users and self._admin is None and acting_agent(self.credentials) is not None

    @contextlib.contextmanager
    def _server(self, doing: str) -> Iterator[None]:
        """Redis refusing, down or unreachable: a `MessagingError` that says what to do (`connection.py`)."""
        import redis

        try:
            yield
        except redis.RedisError as error:
            explained = explain(self.url, doing, self._login, error)
            if explained is None:
                raise
            raise explained from None

    def _make_users(self, ids: list[int]) -> None:
        """Make each agent's ACL user with the launcher's admin credential; they go at `close()`."""
        if not isinstance(self.credentials, TeamKeys):
            raise ValueError("making a team's Redis users needs the team's keys (TeamKeys) as credentials=")
        with self._server("making the team's ACL users"):
            make_agent_users(self.client, self.team, self.prefix, self.credentials, ids, (_SEND, _RELEASE))
        self.acl_users = self._made_users = True

    def _script(self) -> Any:
        """The send script, registered on this process's connection."""
        if self._send_script is None or self._client is None:
            self._send_script = self.client.register_script(_SEND)
        return self._send_script

    def _release(self) -> Any:
        """The script that gives quota back, registered on this process's connection."""
        if self._release_script is None or self._client is None:
            self._release_script = self.client.register_script(_RELEASE)
        return self._release_script

    def _quotas(self, agent_id: int) -> str:
        """A hash of `<sender>:n` / `<sender>:b`: what each sender has unacknowledged in this inbox."""
        return f"{self.prefix}quota:{agent_id}"

    def sender_share(self) -> int:
        """How many unread messages one sender may have in one inbox: its quota, and no more than
        its share of the inbox's bound, so that the others always have room."""
        peers = max(1, len(self.agent_ids()))
        return max(1, min(self.max_pending_per_sender, self.max_inbox // peers))

    def _inbox(self, agent_id: int) -> str:
        return f"{self.prefix}inbox:{agent_id}"

    def _seen(self, agent_id: int) -> str:
        """A sorted set of the ids this agent acknowledged, scored by when: one command per batch to
        check or add, and ids older than the time to live are trimmed on each acknowledgement."""
        return f"{self.prefix}seen:{agent_id}"

    def _register(self, ids: list[int]) -> None:
        """Record the team's agents and make each inbox's group, so a message sent before its reader
        starts waits in the group instead of being missed."""
        pipe = self.client.pipeline(transaction=False)
        pipe.sadd(f"{self.prefix}agents", *ids)
        pipe.expire(f"{self.prefix}agents", self.key_ttl_seconds)
        pipe.execute()
        self._make_groups(ids)
        self._ids = sorted(ids)

    def _make_groups(self, ids: list[int]) -> None:
        import redis

        for agent_id in ids:
            try:
                self.client.xgroup_create(self._inbox(agent_id), GROUP, id="0", mkstream=True)
            except redis.ResponseError as error:
                if "BUSYGROUP" not in str(error):
                    raise
            self.client.expire(self._inbox(agent_id), self.key_ttl_seconds)

    def agent_ids(self) -> Collection[int]:
        if self._ids is None:
            with self._server("listing the agents"):
                members = self.client.smembers(f"{self.prefix}agents")
            ids = []
            for member in members:
                text = member.decode("ascii", "replace") if isinstance(member, bytes) else str(member)
                if text.isdigit():
                    ids.append(int(text))
            self._ids = sorted(ids)
        return self._ids

    def _consumer(self, agent_id: int) -> str:
        if agent_id not in self._consumers:
            self._consumers[agent_id] = f"agent-{agent_id}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        return self._consumers[agent_id]

    # --- sending --------------------------------------------------------------------------------

    def send(self, message: Message) -> None:
        if message.recipient not in self.agent_ids():
            known = ", ".join(str(i) for i in self.agent_ids())
            raise UnknownRecipientError(
                f"there is no agent {message.recipient!r} to send to; the agents are: {known}"
            )
        state = self.status.get(message.recipient) if self.status is not None else None
        if state in ("finished", "dead"):
            raise PeerGoneError(
                f"agent {message.recipient} has {'stopped' if state == 'finished' else 'died'}: "
                "it will read no more messages"
            )
        text = wire_text(message, self.max_message_bytes, self.credentials)
        size = wire_bytes(text)
        share = self.sender_share()
        with self._server("sending"):
            added = self._script()(
                keys=[self._inbox(message.recipient), self._quotas(message.recipient)],
                args=[
                    text,
                    message.sender,
                    size,
                    share,
                    self.max_pending_bytes_per_sender,
                    self.key_ttl_seconds,
                ],
            )
        if added != 1:
            raise sender_quota_error(message.recipient, share, self.max_pending_bytes_per_sender)

    # --- receiving ------------------------------------------------------------------------------

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
        import redis

        if agent_id not in self.agent_ids():
            raise UnknownRecipientError(f"there is no agent {agent_id!r} to receive for")
        with self._server("receiving"):
            try:
                return self._receive(agent_id, timeout, limit)
            except redis.ResponseError as error:
                if "NOGROUP" not in str(error):
                    raise
                # Redis restarted without persistence: the inboxes are gone. Make them again so
                # the team goes on; what was unread went with the server (use appendonly for that).
                # An agent's ACL user may make its own inbox's group only.
                if self._as_agent_user():
                    self._make_groups([agent_id])
                else:
                    self._register(list(self.agent_ids()))
                return self._receive(agent_id, timeout, limit)

    def _receive(self, agent_id: int, timeout: float | None, limit: int) -> list[Message]:
        key, consumer = self._inbox(agent_id), self._consumer(agent_id)
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        received = self._reclaim(agent_id, key, consumer, limit)
        while len(received) < limit:
            if received:
                block = None
            elif deadline is None:
                block = BLOCK_SLICE_MS
            else:
                # in slices: what a dead reader held becomes claimable while this one waits
                left_ms = int((deadline - time.monotonic()) * 1000)
                block = None if left_ms <= 0 else min(left_ms, BLOCK_SLICE_MS)
            reply = self.client.xreadgroup(
                GROUP, consumer, {key: ">"}, count=limit - len(received), block=block
            )
            entries = reply[0][1] if reply else []
            received.extend(self._accept(agent_id, key, entries))
            if received or (not entries and deadline is not None and time.monotonic() >= deadline):
                break
            if not entries and block is None:
                break
            if not entries:
                received.extend(self._reclaim(agent_id, key, consumer, limit))
        return received

    def _reclaim(self, agent_id: int, key: str, consumer: str, limit: int) -> list[Message]:
        """Entries another reader of this inbox took and never acknowledged (it died): ours now.

        Checked at most once a second: a claim is a round trip, and a dead reader's entries only
        become claimable after `claim_idle_seconds` anyway."""
        now = time.monotonic()
        if now - self._last_claim.get(agent_id, -1e9) < min(1.0, self.claim_idle_seconds):
            return []
        self._last_claim[agent_id] = now
        reply = self.client.xautoclaim(
            key,
            GROUP,
            consumer,
            min_idle_time=int(self.claim_idle_seconds * 1000),
            start_id="0-0",
            count=limit,
        )
        return self._accept(agent_id, key, reply[1])

    def _accept(self, agent_id: int, key: str, entries: list[Any]) -> list[Message]:
        """Check each entry; refused ones and copies already acknowledged are acked and deleted now.

        A sealed entry was charged to its sender's quota by the send script: the charge is noted
        here and given back when the entry is acknowledged or dropped."""
        holding = self._holding.setdefault(agent_id, {})
        dedup = self._dedup.setdefault(agent_id, Deduplicator())
        charges = self._charges.setdefault(agent_id, {})
        fresh: list[tuple[bytes, Message]] = []
        drop: list[bytes] = []
        for entry_id, fields in entries:
            message = self._check(agent_id, fields)
            if message is None:
                drop.append(entry_id)
                continue
            if self.credentials is not None:
                charges[entry_id] = (message.sender, len(fields[FIELD]))
            if message.id in holding:  # a second copy of one the agent holds: acked with it
                holding[message.id].append(entry_id)
            elif not dedup.first_time(message.id):
                drop.append(entry_id)
            else:
                fresh.append((entry_id, message))
        accepted: list[Message] = []
        if fresh:
            scores = self.client.zmscore(self._seen(agent_id), [message.id for _, message in fresh])
            for (entry_id, message), score in zip(fresh, scores, strict=True):
                if score is not None:  # acknowledged before, by an earlier reader of this inbox
                    drop.append(entry_id)
                else:
                    holding[message.id] = [entry_id]
                    accepted.append(message)
        if drop:
            pipe = self.client.pipeline(transaction=False)
            pipe.xack(key, GROUP, *drop)
            pipe.xdel(key, *drop)
            pipe.execute()
            self._give_back(agent_id, drop)
        return accepted

    def _give_back(self, agent_id: int, entries: list[bytes]) -> None:
        """The senders of these (sealed, now acknowledged) entries have room again in this inbox."""
        charges = self._charges.get(agent_id, {})
        pairs: list[int] = []
        for entry_id in entries:
            charge = charges.pop(entry_id, None)
            if charge is not None:
                pairs.extend(charge)
        if pairs:
            self._release()(keys=[self._quotas(agent_id)], args=pairs)

    def _check(self, agent_id: int, fields: Any) -> Message | None:
        if not isinstance(fields, dict) or set(fields) != {FIELD}:
            if len(self.refused) < MAX_REFUSALS_KEPT:
                self.refused.append("a stream entry arrived that is not one message field")
            return None
        return accept_message(fields[FIELD], agent_id, self.max_message_bytes, self.refused, self.credentials)

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """The agent has these: remember their ids (so a copy is never shown again) and free the entries."""
        with self._server("acknowledging messages"):
            self._ack(agent_id, message_ids)

    def _ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        holding = self._holding.setdefault(agent_id, {})
        key = self._inbox(agent_id)
        if not message_ids:
            return
        now = time.time()
        seen = self._seen(agent_id)
        pipe = self.client.pipeline(transaction=False)
        pipe.zadd(seen, dict.fromkeys(message_ids, now))
        pipe.zremrangebyscore(seen, "-inf", now - self.key_ttl_seconds)
        pipe.expire(seen, self.key_ttl_seconds)
        entries: list[bytes] = []
        for message_id in message_ids:
            entries.extend(holding.pop(message_id, []))
        if entries:
            pipe.xack(key, GROUP, *entries)
            pipe.xdel(key, *entries)
        pipe.expire(key, self.key_ttl_seconds)
        if not self._as_agent_user():  # the member list is the launcher's: an agent's user only reads it
            pipe.expire(f"{self.prefix}agents", self.key_ttl_seconds)
        pipe.execute()
        self._give_back(agent_id, entries)

    def unsettled(self, agent_ids: Collection[int]) -> int:
        """How many entries are in these agents' inboxes: unread, or handed to the agent and not yet
        acknowledged (an entry is deleted as it is acknowledged or dropped). Kept in Redis, so a new
        host that takes the team over reads what its dead host's agents left, and a message sent
        or taken twice by an agent restarted mid-call is still one entry: a team's host decides
        from it that nothing is in flight (idle detection)."""
        with self._server("counting the messages in flight"):
            pipe = self.client.pipeline(transaction=False)
            for agent_id in agent_ids:
                pipe.xlen(self._inbox(agent_id))
            return sum(int(count) for count in pipe.execute())

    def close(self) -> None:
        """Close the connection; the launcher that made the team's ACL users deletes them first, which
        also cuts off any agent still logged in as one."""
        if self._made_users:
            self._made_users = False
            try:
                with self._server("removing the team's ACL users"):
                    remove_agent_users(self.client, self.team, self.agent_ids())
            except MessagingError as error:  # the team's answer stands: say what is left behind
                users = f"smol-{self.team}-agent-<id>"
                print(
                    f"smol-transport-redis: the team's ACL users ({users}) were not removed: {error}",
                    file=sys.stderr,
                    flush=True,
                )
        if self._client is not None:
            self._client.close()
            self._client = None
