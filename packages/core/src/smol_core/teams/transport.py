"""The `Transport` protocol: how agents' messages travel, whatever carries them.

A transport plugin (`smol_transports()` hook) supplies one. The tools and the team speak only to
this protocol, so an agent that runs with multiprocessing queues runs unchanged with Redis.

Delivery is at-least-once where the transport can redeliver (Redis: a message read but not
acknowledged by an agent that died comes back). So every receiver drops ids it has seen already
(`Deduplicator`): what the agent sees is each message once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from typing import Any, Protocol, runtime_checkable

from smol_core.teams.errors import MessageRefusedError, MessageTooLargeError, MessagingError
from smol_core.teams.identity import SEAL_OVERHEAD, Credentials, seal, unseal
from smol_core.teams.message import Message, decode, encode

MAX_REFUSALS_KEPT = 100
DEFAULT_MAX_PENDING_PER_SENDER = 1_000
"""How many messages one sender may have waiting, unread, in one inbox (by default)."""
DEFAULT_MAX_PENDING_BYTES_PER_SENDER = 8 * 1024 * 1024
"""How many bytes one sender may have waiting, unread, in one inbox (by default): one sender cannot
fill a peer's memory, nor its inbox, and every other sender keeps a share of its own."""


@runtime_checkable
class Transport(Protocol):
    """Queues, one per agent, that any agent of the team can put on and only its owner drains."""

    max_message_bytes: int

    def agent_ids(self) -> Collection[int]:
        """The agents a message can be sent to."""
        ...

    def send(self, message: Message) -> None:
        """Put `message` on its recipient's queue. Raises `UnknownRecipientError`,
        `MessageTooLargeError`, `MessageRefusedError` or `PeerGoneError` with a clear message."""
        ...

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Message]:
        """The messages waiting for `agent_id` (at most `limit`), oldest first per sender.

        Waits up to `timeout` seconds for the first one (`0`: do not wait; `None`: wait until one
        comes), then takes what else is already there. Returns `[]` when none came: never hangs past
        the timeout. Malformed messages are dropped and counted in `refused`, never raised.
        """
        ...

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        """Tell the transport these messages were handled: a transport that redelivers stops here."""
        ...

    def close(self) -> None:
        """Release connections; the queues themselves belong to whoever created them."""
        ...


class Deduplicator:
    """Remembers the last `capacity` message ids one receiver has seen, so redelivered ones are dropped.

    Bounded, because the ids come from other agents: a flood of fresh ids evicts old ones instead of
    growing without end (a redelivery comes within seconds, long before eviction).
    """

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._seen: OrderedDict[str, None] = OrderedDict()

    def ids(self) -> list[str]:
        """The ids remembered, oldest first."""
        return list(self._seen)

    def first_time(self, message_id: str) -> bool:
        """True the first time an id is seen, False after."""
        if message_id in self._seen:
            return False
        self._seen[message_id] = None
        if len(self._seen) > self.capacity:
            self._seen.popitem(last=False)
        return True


def wire_text(message: Message, max_bytes: int, credentials: Credentials | None) -> str:
    """What a transport puts on the wire for `message`: its JSON (checked and bounded by `encode`),
    sealed with the sender's key when the team issued keys (see `identity`)."""
    text = encode(message, max_bytes)
    return text if credentials is None else seal(text, message.sender, message.recipient, credentials)


def wire_bytes(text: str) -> int:
    """The size a sender is charged for `text` against its quota in an inbox."""
    return len(text.encode("utf-8", "surrogatepass"))


def sender_quota_error(recipient: int, messages: int, max_bytes: int) -> MessagingError:
    """The error a sender reads when its own share of a peer's inbox is used up (it says "full", so a
    sender that retries knows to wait). Other senders are not affected: the quota is per sender."""
    return MessagingError(
        f"agent {recipient}'s inbox is full for you: you have {messages} unread messages there, or "
        f"{max_bytes} bytes, your share as one sender: wait for it to read them"
    )


def accept_message(
    raw: Any,
    agent_id: int,
    max_bytes: int,
    refused: list[str],
    credentials: Credentials | None = None,
) -> Message | None:
    """The message `raw` carries, if it is well formed and addressed to `agent_id`; else None.

    Whatever reaches an inbox was written by someone else: a malformed, oversized or misaddressed
    entry is refused, its reason kept in `refused` (at most `MAX_REFUSALS_KEPT`), and never raised
    at the receiving agent. Every transport reads its inbox through this one check. Where the team
    issued keys (`credentials`), only a message sealed by its claimed sender's key is accepted.
    """
    try:
        sealed_by = None
        if credentials is not None:
            sealed_by, raw = _unsealed(raw, agent_id, max_bytes, credentials)
        message = decode(raw, max_bytes)
        if message.recipient != agent_id:
            raise MessageRefusedError(
                f"a message for agent {message.recipient} arrived in agent {agent_id}'s inbox"
            )
        if sealed_by is not None and message.sender != sealed_by:
            raise MessageRefusedError("a message arrived whose seal names another sender than its text")
    except MessagingError as error:  # refused or too large
        reason = str(error)
    except Exception as error:  # anything else a hostile writer managed: refused all the same
        reason = f"{type(error).__name__}: {str(error)[:200]}"
    else:
        return message
    if len(refused) < MAX_REFUSALS_KEPT:
        refused.append(reason)
    return None


def _unsealed(raw: Any, agent_id: int, max_bytes: int, credentials: Credentials) -> tuple[int, str]:
    """The sender and JSON text of a sealed entry, bounded before the MAC is computed."""
    if isinstance(raw, bytes | bytearray):
        if len(raw) > max_bytes + SEAL_OVERHEAD:
            raise MessageTooLargeError(f"a message of {len(raw)} bytes arrived; the limit is {max_bytes}")
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as error:
            raise MessageRefusedError(f"a message arrived that is not UTF-8 text: {error}") from None
    if type(raw) is not str:
        raise MessageRefusedError(f"a message arrived as {type(raw).__name__}, not JSON text")
    # a message within max_bytes has at most that many characters
    if len(raw) > max_bytes + SEAL_OVERHEAD:
        raise MessageTooLargeError(
            f"a message of {len(raw)} characters arrived; the limit is {max_bytes} bytes"
        )
    return unseal(raw, agent_id, credentials)
