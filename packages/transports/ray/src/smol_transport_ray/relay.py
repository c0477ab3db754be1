"""The relay between an agent's process on a Ray node and its supervisor actor.

Why: a process that talks to Ray directly must import Ray and join the cluster as a driver, which
costs seconds per agent. The supervisor is a Ray worker already, so the agent's process asks it
instead, over a Unix socket in a private folder, with a random key: the agent's process never
imports Ray, and starts as fast as a local agent.

What crosses the socket is JSON (never pickle): a request names an operation of the team's
transport; the answer is its result or the messaging error to raise. The supervisor serves only
its own agent: it sends as that agent, receives and acknowledges for it, marks its status. Messages
travel as their JSON text, checked by `accept_message` on the way in as in every inbox.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Sequence
from multiprocessing.connection import Client, Connection
from typing import Any

from smol_core.plugin_api import (
    MessageRefusedError,
    MessageTooLargeError,
    MessagingError,
    PeerGoneError,
    PeerStatus,
    UnknownRecipientError,
    accept_message,
    decode,
    encode,
)

MAX_FRAME_BYTES = 16 * 1024 * 1024
"""A request or an answer: a batch of receives is at most 100 messages of 64 KiB, with room."""
_ERRORS: dict[str, type[MessagingError]] = {
    cls.__name__: cls
    for cls in (
        MessagingError,
        UnknownRecipientError,
        MessageTooLargeError,
        MessageRefusedError,
        PeerGoneError,
    )
}


class RelayTransport:
    """The `Transport` an agent's process on a Ray node holds: each call is answered by its supervisor.

    Picklable (an address, a key, the team's ids); each thread of the agent opens its own connection,
    so a long receive in one never holds up a send in another."""

    def __init__(
        self, address: str, authkey: bytes, agent_id: int, agent_ids: Sequence[int], max_message_bytes: int
    ) -> None:
        self.address = address
        self.authkey = authkey
        self.agent_id = agent_id
        self.ids = sorted(agent_ids)
        self.max_message_bytes = max_message_bytes
        self.status: PeerStatus = RelayStatus(self)
        self.refused: list[str] = []
        self._local = threading.local()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_local=None, refused=[])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def request(self, op: str, **fields: Any) -> Any:
        connection: Connection | None = getattr(self._local, "connection", None)
        try:
            if connection is None:
                connection = Client(self.address, family="AF_UNIX", authkey=self.authkey)
                self._local.connection = connection
            connection.send_bytes(json.dumps({"op": op, **fields}).encode("utf-8"))
            answer = json.loads(connection.recv_bytes(MAX_FRAME_BYTES))
        except (OSError, EOFError, ValueError) as error:
            self._local.connection = None
            raise MessagingError(f"this agent's supervisor on the Ray cluster is gone ({error})") from None
        if not isinstance(answer, dict):
            raise MessagingError("this agent's supervisor answered with something that is not an answer")
        if "error" in answer:
            raise _ERRORS.get(str(answer["error"]), MessagingError)(str(answer.get("text", "")))
        return answer.get("result")

    def agent_ids(self) -> Collection[int]:
        return self.ids

    def send(self, message: Any) -> None:
        self.request("send", message=encode(message, self.max_message_bytes))

    def receive(self, agent_id: int, timeout: float | None = 0.0, limit: int = 100) -> list[Any]:
        texts = self.request("receive", agent=agent_id, timeout=timeout, limit=limit)
        received = []
        for text in texts if isinstance(texts, list) else []:
            message = accept_message(text, agent_id, self.max_message_bytes, self.refused)
            if message is not None:
                received.append(message)
        return received

    def ack(self, agent_id: int, message_ids: Sequence[str]) -> None:
        if message_ids:
            self.request("ack", agent=agent_id, ids=list(message_ids))

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


class RelayStatus(PeerStatus):
    """The team's status as the agent's process sees it: each call answered by the supervisor."""

    def __init__(self, relay: RelayTransport) -> None:  # no shared memory to make
        self.relay = relay

    def get(self, agent_id: int, default: str | None = None) -> str | None:
        state = self.relay.request("status_get", agent=agent_id)
        return state if isinstance(state, str) else default

    def mark(self, agent_id: int, state: str) -> None:
        self.relay.request("status_mark", agent=agent_id, state=state)

    def waiting(self, agent_id: int, is_waiting: bool) -> None:
        self.relay.request("status_waiting", agent=agent_id, waiting=is_waiting)

    def count(self, agent_id: int, sent: int = 0, taken: int = 0) -> None:
        self.relay.request("status_count", agent=agent_id, sent=sent, taken=taken)

    def __len__(self) -> int:
        return len(self.relay.ids)


def serve(connection: Connection, transport: Any, agent_id: int) -> None:
    """Answer one connection of agent `agent_id`'s process until it closes (the supervisor's side)."""
    while True:
        try:
            raw = connection.recv_bytes(MAX_FRAME_BYTES)
        except (OSError, EOFError):
            return
        try:
            answer = {"result": _handle(transport, agent_id, raw)}
        except MessagingError as error:
            answer = {"error": type(error).__name__, "text": str(error)}
        except Exception as error:  # a malformed request: the agent's, not the supervisor's, problem
            answer = {"error": "MessagingError", "text": f"{type(error).__name__}: {str(error)[:500]}"}
        try:
            connection.send_bytes(json.dumps(answer).encode("utf-8"))
        except OSError:
            return


def _handle(transport: Any, agent_id: int, raw: bytes) -> Any:
    request = json.loads(raw)
    op = request["op"]
    if op == "send":
        message = decode(request["message"], transport.max_message_bytes)
        if message.sender != agent_id:
            raise MessageRefusedError(f"agent {agent_id} cannot send as agent {message.sender}")
        transport.send(message)
        return None
    if op == "status_get":  # any agent's state may be read; the rest is this agent's own
        peer = request.get("agent")
        return transport.status.get(peer) if type(peer) is int else None
    if request.get("agent") != agent_id:
        raise MessageRefusedError(f"agent {agent_id}'s process asked about agent {request.get('agent')!r}")
    if op == "receive":
        timeout = request.get("timeout")
        wait = None if timeout is None else float(timeout)
        messages = transport.receive(agent_id, timeout=wait, limit=int(request.get("limit", 100)))
        return [encode(message, transport.max_message_bytes) for message in messages]
    if op == "ack":
        transport.ack(agent_id, [str(message_id) for message_id in request["ids"]])
        return None
    status = transport.status
    if op == "status_mark":
        status.mark(agent_id, str(request["state"]))
        return None
    if op == "status_waiting":
        status.waiting(agent_id, bool(request["waiting"]))
        return None
    if op == "status_count":
        status.count(agent_id, sent=int(request["sent"]), taken=int(request["taken"]))
        return None
    raise MessageRefusedError(f"unknown relay operation {op!r}")
