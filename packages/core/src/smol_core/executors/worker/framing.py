"""Frames on the wire: a 4-byte big-endian length, then a UTF-8 JSON object, within limits.

Why apart from the value codec (protocol.py): framing is about bytes and what reading them may cost
(a frame's size is checked on its header, its number of values before it is parsed), the codec about
what a value becomes. Both sides use this module: the worker to read its host and to keep what it
sends within the host's limits, the host (host/link.py) to read a worker it does not trust.
"""

from __future__ import annotations

import json
import os
import re
import struct
from typing import Any

from .protocol import MAX_FRAME_BYTES, UNTRUSTED_ELEMENTS, UNTRUSTED_FRAME_BYTES, ProtocolError

__all__ = [
    "FrameReader",
    "count_elements",
    "decode_message",
    "encode_message",
    "read_message",
    "write_message",
]

_HEADER = struct.Struct(">I")


# A JSON string, matched without backtracking (possessive), so that its commas and brackets are skipped.
_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)


def count_elements(body: bytes, limit: int) -> int:
    """The JSON values in `body`, counted as commas plus opening brackets outside strings.

    Why before parsing: each value costs the reader a Python object (a `{}` of 3 bytes becomes 64),
    so a frame's size alone does not bound the memory its parse takes. The count is an upper bound
    (a container in a list counts twice: its bracket and its comma), the same on both sides, so the
    worker refuses exactly what the host would. The cheap count (strings included) decides most
    frames; only one above `limit` is counted again with its strings skipped.
    """
    rough = body.count(b",") + body.count(b"[") + body.count(b"{") + 1
    if rough <= limit:
        return rough
    inside = 0
    for n, match in enumerate(_JSON_STRING.finditer(body)):
        if n > limit:  # each string is a value too: past `limit` of them, the frame is over anyway
            return n
        text = match.group()
        inside += text.count(b",") + text.count(b"[") + text.count(b"{")
    return rough - inside


def encode_message(
    message: dict[str, Any], max_bytes: int = MAX_FRAME_BYTES, max_elements: int | None = None
) -> bytes:
    """One frame: 4-byte length + compact JSON. `message` must already hold encoded values.

    The limits are the receiver's: a worker passes the host's (`UNTRUSTED_*`), so that a message the
    host would refuse is refused here, as a `ProtocolError` the worker can report.
    """
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(body) > max_bytes:
        raise ProtocolError(f"message of {len(body)} bytes exceeds the {max_bytes}-byte frame limit")
    if max_elements is not None and count_elements(body, max_elements) > max_elements:
        raise ProtocolError(f"message holds more than {max_elements} values, the limit of one frame")
    return _HEADER.pack(len(body)) + body


def decode_message(body: bytes) -> dict[str, Any]:
    """Parse one frame's body; every failure (bad UTF-8 or JSON, nesting, huge ints) is a ProtocolError."""
    try:
        message = json.loads(body.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, MemoryError) as exc:
        # ValueError covers bad JSON, bad UTF-8 and ints past Python's digit limit.
        raise ProtocolError(f"malformed frame: {type(exc).__name__}: {str(exc)[:200]}") from None
    if type(message) is not dict or type(message.get("op")) is not str:
        raise ProtocolError("a frame must be a JSON object with an 'op' field")
    return message


class FrameReader:
    """Accumulates bytes from a stream and yields complete messages (works with partial reads).

    `max_frame_bytes` is checked on the header, before the body is buffered; `max_elements` (None: no
    limit) before the body is parsed. Hosts use `FrameReader.untrusted()`.
    """

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES, max_elements: int | None = None) -> None:
        self._buf = bytearray()
        self.max_frame_bytes = max_frame_bytes
        self.max_elements = max_elements

    @classmethod
    def untrusted(cls) -> FrameReader:
        """A reader for frames from a worker: the host's default limits."""
        return cls(UNTRUSTED_FRAME_BYTES, UNTRUSTED_ELEMENTS)

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buf += data
        out: list[dict[str, Any]] = []
        while len(self._buf) >= 4:
            (size,) = _HEADER.unpack_from(self._buf)
            if size > self.max_frame_bytes:
                raise ProtocolError(
                    f"incoming frame of {size} bytes exceeds the {self.max_frame_bytes}-byte limit"
                )
            if len(self._buf) < 4 + size:
                break
            with memoryview(self._buf) as view:  # one copy of the body, not two
                body = bytes(view[4 : 4 + size])
            del self._buf[: 4 + size]
            limit = self.max_elements
            if limit is not None and count_elements(body, limit) > limit:
                raise ProtocolError(f"incoming frame holds more than {limit} values")
            out.append(decode_message(body))
        return out


def write_message(
    fd: int, message: dict[str, Any], max_bytes: int = MAX_FRAME_BYTES, max_elements: int | None = None
) -> None:
    """Write one frame fully to a file descriptor (pipe or socket), within the receiver's limits."""
    data = memoryview(encode_message(message, max_bytes, max_elements))
    while data:
        n = os.write(fd, data)
        data = data[n:]


def read_message(fd: int, reader: FrameReader, pending: list[dict[str, Any]]) -> dict[str, Any]:
    """Blocking read of the next message; `pending` keeps messages that arrived in the same chunk."""
    while not pending:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise EOFError("the other side closed the channel")
        pending.extend(reader.feed(chunk))
    return pending.pop(0)
