"""Who sent a message: keys the team's launcher issues per agent, and a MAC on every message.

The attack this stops: a queue (multiprocessing, a Redis stream, Ray's mailbox) does not know who
wrote an entry, so any process that reaches it could write `"sender": 0` and be believed. Here the
launcher (the process that makes the team) draws a secret team key and derives one key per ordered
pair of agents, `k(s, r) = HMAC(team key, "s->r")`. Agent `i`'s process is given only the keys of
its own pairs: `k(i, r)` for every `r` (to sign what it sends) and `k(s, i)` for every `s` (to check
what it receives). So an agent can sign only as itself, and cannot make a message from agent `s` to
agent `r` that `r` would accept unless it *is* `s`; a process that holds no key (anything else that
reaches Redis or the cluster) cannot make one at all.

On the wire a sealed message is `smol-mac1:<sender>:<64 hex digits>:<the message's JSON text>`:
the MAC covers exactly the JSON bytes, which hold the sender, the recipient and the id, so a sealed
message replayed to another inbox fails (another key, another recipient) and a copy in the same
inbox is dropped by id. The MAC is checked before the JSON is parsed: forged text costs one HMAC.

Why HMAC for every transport rather than Redis ACL users: an ACL restricts which keys a client may
touch, not what it writes into an entry, so it cannot stop agent 2 from writing "sender 0" into
agent 1's inbox; and the same check in `accept_message` serves the local queues and Ray's mailbox,
which have no users at all. (ACLs remain a good idea on a shared Redis: they keep strangers from
deleting or flooding a team's streams.)
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

from smol_core.teams.errors import MessageRefusedError

WIRE_PREFIX = "smol-mac1:"
_T = TypeVar("_T")
_MAC_CHARS = 64
_MAX_ID_CHARS = 7  # MAX_AGENT_ID is 1_000_000
SEAL_OVERHEAD = len(WIRE_PREFIX) + _MAX_ID_CHARS + 1 + _MAC_CHARS + 1
"""How many characters a seal adds to a message's JSON text, at most."""


@runtime_checkable
class Credentials(Protocol):
    """What a transport needs to sign and check: the key of the pair (sender, recipient), if held."""

    def key(self, sender: int, recipient: int) -> bytes | None: ...


_HEX_DIGEST = re.compile(r"[0-9a-f]+")


def _pair_key(team_key: bytes, sender: int, recipient: int) -> bytes:
    return hmac.new(team_key, f"smol-team-pair:{sender}->{recipient}".encode(), hashlib.sha256).digest()


class TeamKeys:
    """The launcher's secret: it can sign and check for every pair, and hands each agent its share.

    Held only by the process that made the team (the host); an agent's process gets `for_agent(i)`.
    """

    def __init__(self, agent_ids: Iterable[int], team_key: bytes | None = None) -> None:
        self.agent_ids = sorted({int(i) for i in agent_ids})
        self._team_key = team_key if team_key is not None else secrets.token_bytes(32)
        self._pairs: dict[tuple[int, int], bytes] = {}  # derived once per pair, not per message

    def key(self, sender: int, recipient: int) -> bytes | None:
        pair = (sender, recipient)
        derived = self._pairs.get(pair)
        if derived is None:
            derived = self._pairs[pair] = _pair_key(self._team_key, sender, recipient)
        return derived

    def secret(self) -> bytes:
        """The team key itself, for a durable team's record in the user's checkpoint store only
        (`smol_core.teams.host_record`): a new host that takes the team over rebuilds the same keys from it, so
        the messages already sealed still check out and each agent keeps its Redis user's password."""
        return self._team_key

    def for_agent(self, agent_id: int) -> AgentKeys:
        """Agent `agent_id`'s share: the keys to send as itself and to check what is sent to it."""
        return AgentKeys(
            agent_id,
            send={r: _pair_key(self._team_key, agent_id, r) for r in self.agent_ids},
            receive={s: _pair_key(self._team_key, s, agent_id) for s in self.agent_ids},
        )

    def __repr__(self) -> str:  # never the secret, in a log or a traceback
        return f"TeamKeys(agents={len(self.agent_ids)})"


class AgentKeys:
    """One agent's share of the team's keys: it signs as this agent only, and checks only its inbox."""

    def __init__(self, agent_id: int, send: dict[int, bytes], receive: dict[int, bytes]) -> None:
        self.agent_id = agent_id
        self._send = dict(send)
        self._receive = dict(receive)

    def key(self, sender: int, recipient: int) -> bytes | None:
        if sender == self.agent_id and recipient in self._send:
            return self._send[recipient]
        if recipient == self.agent_id:
            return self._receive.get(sender)
        return None

    def __repr__(self) -> str:
        return f"AgentKeys(agent={self.agent_id})"


def seal(text: str, sender: int, recipient: int, credentials: Credentials) -> str:
    """`text` (a message's JSON) with a MAC from the pair's key; refused when the key is not held."""
    key = credentials.key(sender, recipient)
    if key is None:
        raise MessageRefusedError(
            f"this process cannot send as agent {sender} to agent {recipient}: it holds no key for that"
        )
    mac = hmac.digest(key, text.encode("utf-8"), "sha256").hex()  # the one-shot C path: per message
    return f"{WIRE_PREFIX}{sender}:{mac}:{text}"


def unseal(raw: str, recipient: int, credentials: Credentials) -> tuple[int, str]:
    """The claimed sender and the JSON text of a sealed message, once its MAC checks out.

    Raises `MessageRefusedError` for anything unsealed, malformed, or signed with another key.
    """
    if not raw.startswith(WIRE_PREFIX):
        raise MessageRefusedError("a message arrived without its sender's seal (no team key signed it)")
    head, sep, _ = raw[len(WIRE_PREFIX) : len(WIRE_PREFIX) + _MAX_ID_CHARS + 1].partition(":")
    if not sep or not head.isdigit() or not head.isascii() or (len(head) > 1 and head[0] == "0"):
        raise MessageRefusedError("a message arrived whose seal does not name its sender")
    sender = int(head)
    body = raw[len(WIRE_PREFIX) + len(head) + 1 :]
    mac, sep, text = body[: _MAC_CHARS + 1].partition(":")
    if not sep or len(mac) != _MAC_CHARS or _HEX_DIGEST.fullmatch(mac) is None:
        raise MessageRefusedError("a message arrived with a malformed seal")
    text = body[_MAC_CHARS + 1 :]
    key = credentials.key(sender, recipient)
    expected = hmac.digest(key, text.encode("utf-8", "surrogatepass"), "sha256").hex() if key else ""
    if not key or not hmac.compare_digest(expected, mac):
        raise MessageRefusedError(
            f"a message claiming to be from agent {sender} is not signed with agent {sender}'s key: "
            "refused (forged, or from outside the team)"
        )
    return sender, text


def issue_keys(transport: Any) -> None:
    """Give a transport that holds no keys (one that joined a named team) a fresh team's keys.

    The team that starts the agents is their launcher: whatever the transport was built with, no
    agent it starts is left speaking unsealed. A transport that takes no keys is left as it is."""
    if hasattr(transport, "credentials") and transport.credentials is None:
        transport.credentials = TeamKeys(transport.agent_ids())


def for_agent(transport: _T, agent_id: int) -> _T:
    """`transport` as agent `agent_id`'s process must hold it: with that agent's share of the keys
    only, never the team's. A transport without team keys is returned as it is.

    The copy is shallow: queues, counters and connections stay shared with the original in this
    process, and each transport's pickling decides what crosses into the agent's process."""
    held = getattr(transport, "credentials", None)
    if not isinstance(held, TeamKeys):
        return transport
    twin = copy.copy(transport)
    twin.credentials = held.for_agent(agent_id)  # type: ignore[attr-defined]
    return twin
