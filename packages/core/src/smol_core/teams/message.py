"""`Message`: what one agent says to another, as data.

A message crosses process (and, with a server transport, machine) boundaries, so it is JSON text on
the wire, never a pickled object, and whatever arrives is untrusted input: `decode` checks the size
before parsing, then the exact fields and their types, and refuses anything else with a
`MessageRefusedError`, as the host does with the local executor's worker frames.
"""

from __future__ import annotations

import json
import math
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from smol_core.teams.errors import MessageRefusedError, MessageTooLargeError

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024
"""The largest encoded message a transport accepts by default (64 KiB): big enough for code and
results, small enough that a runaway model cannot fill a peer's memory or a Redis server."""

MAX_AGENT_ID = 1_000_000
MAX_DEPTH = 32
_FIELDS = frozenset({"id", "sender", "recipient", "timestamp", "body"})
_TRACE_FIELD = "trace"
# W3C Trace Context: version-traceid-parentid-flags, lower-case hex; all-zero ids and version ff are invalid
_TRACEPARENT = re.compile(r"(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}")
_TRACESTATE_MEMBER = re.compile(
    r"[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
)
MAX_TRACESTATE_CHARS = 512
MAX_TRACESTATE_MEMBERS = 32


@dataclass(frozen=True)
class Message:
    """One message: who sent it, to whom, when, a unique id (for de-duplication), and a JSON-able body."""

    sender: int
    recipient: int
    body: Any
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    timestamp: float = field(default_factory=time.time)
    trace: dict[str, str] = field(default_factory=dict, compare=False)
    """The sender's W3C trace context (`traceparent`, maybe `tracestate`), so that the receiver's
    work continues the sender's trace: empty when the sender traced nothing."""

    def to_dict(self) -> dict[str, Any]:
        """The record memory and `RunResult` keep, and the shape the model reads."""
        return {
            "id": self.id,
            "sender": self.sender,
            "recipient": self.recipient,
            "timestamp": self.timestamp,
            "message": self.body,
        }


def check_agent_id(value: Any, what: str) -> int:
    """An agent id is a plain non-negative integer (a bool is not one, whatever Python says)."""
    if type(value) is not int or not 0 <= value <= MAX_AGENT_ID:
        raise MessageRefusedError(f"{what} must be an agent id (an integer from 0), got {value!r}")
    return value


def _check_body(value: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise MessageRefusedError(f"the message is nested more than {MAX_DEPTH} levels deep")
    if value is None or type(value) in (bool, int, str):
        return
    if type(value) is float:
        if not math.isfinite(value):
            raise MessageRefusedError("the message holds a number that is not finite (NaN or infinity)")
        return
    if isinstance(value, str):  # AgentText and other str subclasses travel as plain text
        return
    if isinstance(value, list | tuple):
        for item in value:
            _check_body(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise MessageRefusedError(f"message keys must be strings, got {type(key).__name__}")
            _check_body(item, depth + 1)
        return
    raise MessageRefusedError(
        f"a message must be JSON data (text, numbers, booleans, None, lists, dicts); "
        f"got {type(value).__name__}: send str(value) or its fields instead"
    )


def encode(message: Message, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> str:
    """The message as JSON text; refuses what is not data, and what is over `max_bytes`."""
    check_agent_id(message.sender, "sender")
    check_agent_id(message.recipient, "target_id")
    _check_body(message.body)
    record: dict[str, Any] = {
        "id": message.id,
        "sender": message.sender,
        "recipient": message.recipient,
        "timestamp": message.timestamp,
        "body": message.body,
    }
    trace = trace_context(message.trace)
    if trace:
        record[_TRACE_FIELD] = trace
    text = json.dumps(
        record,
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
    )
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise MessageTooLargeError(
            f"the message is {size} bytes encoded, over the limit of {max_bytes} bytes: "
            "send a shorter message, or split it"
        )
    return text


def trace_context(value: Any) -> dict[str, str]:
    """The valid W3C trace context in `value`, or {}: a bad `traceparent` is dropped with its
    `tracestate`, a bad `tracestate` alone. Never refuses the message: tracing is not its content."""
    if not isinstance(value, dict):
        return {}
    parent = value.get("traceparent")
    if type(parent) is not str or not _TRACEPARENT.fullmatch(parent):
        return {}
    checked = {"traceparent": parent}
    state = value.get("tracestate")
    if type(state) is str and 0 < len(state) <= MAX_TRACESTATE_CHARS:
        members = [member.strip() for member in state.split(",") if member.strip()]
        if len(members) <= MAX_TRACESTATE_MEMBERS and all(_TRACESTATE_MEMBER.fullmatch(m) for m in members):
            checked["tracestate"] = ",".join(members)
    return checked


def _refuse_constant(name: str) -> Any:
    raise MessageRefusedError(f"the message holds {name}, which is not JSON")


def decode(raw: Any, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Message:
    """Check and parse what came off the wire. Anything but one well-formed message raises
    `MessageRefusedError` (or `MessageTooLargeError`): the receiver drops it and goes on."""
    if isinstance(raw, bytes | bytearray):
        if len(raw) > max_bytes:
            raise MessageTooLargeError(f"a message of {len(raw)} bytes arrived; the limit is {max_bytes}")
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as error:
            raise MessageRefusedError(f"a message arrived that is not UTF-8 text: {error}") from None
    if type(raw) is not str:
        raise MessageRefusedError(f"a message arrived as {type(raw).__name__}, not JSON text")
    # one character is at most 4 bytes: a long string is measured exactly only when it could be over
    if len(raw) * 4 > max_bytes and len(raw.encode("utf-8", "surrogatepass")) > max_bytes:
        raise MessageTooLargeError(
            f"a message of {len(raw)} characters arrived; the limit is {max_bytes} bytes"
        )
    try:
        data = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise MessageRefusedError(f"a message arrived that is not JSON: {str(error)[:200]}") from None
    if not isinstance(data, dict):
        raise MessageRefusedError("a message arrived that is not a JSON object")
    keys = set(data)
    trace = trace_context(data.pop(_TRACE_FIELD, None))
    keys.discard(_TRACE_FIELD)
    if keys != _FIELDS:
        unknown, missing = sorted(keys - _FIELDS), sorted(_FIELDS - keys)
        raise MessageRefusedError(
            f"a message arrived with unknown fields {unknown} / missing fields {missing}"
        )
    message_id = data["id"]
    if type(message_id) is not str or not 1 <= len(message_id) <= 128 or not message_id.isprintable():
        raise MessageRefusedError("a message arrived whose id is not a short printable string")
    timestamp = data["timestamp"]
    if type(timestamp) not in (int, float) or not math.isfinite(timestamp) or timestamp < 0:
        raise MessageRefusedError("a message arrived whose timestamp is not a time")
    _check_body(data["body"])
    return Message(
        sender=check_agent_id(data["sender"], "sender"),
        recipient=check_agent_id(data["recipient"], "recipient"),
        body=data["body"],
        id=message_id,
        timestamp=float(timestamp),
        trace=trace,
    )
