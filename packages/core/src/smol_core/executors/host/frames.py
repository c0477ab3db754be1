"""What the host accepts from a worker, frame by frame: the limits, and a schema per worker → host op.

Why a validator of its own: the worker is hostile (code inside may, with enough effort, write any
bytes to its end of the channel), so the host reads nothing it has not checked first. A frame that
breaks a rule is a protocol violation, and the host then treats the worker as dead: kill, replace,
error observation. Checking is exact (JSON types by `type(v) is ...`, so `true` is no id) and cheap
(a few dictionary look-ups per frame), since every ordinary action pays for it.

Extra fields in a frame are ignored rather than refused, so that a newer worker may add one; they
are bounded like the rest of the frame by the frame limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from smol_core.executors.worker.framing import FrameReader
from smol_core.executors.worker.protocol import (
    MAX_DEPTH,
    UNTRUSTED_ELEMENTS,
    UNTRUSTED_EXPONENT,
    UNTRUSTED_FRAME_BYTES,
    UNTRUSTED_IMAGE_PIXELS,
    UNTRUSTED_NUMBER_DIGITS,
    ProtocolError,
)

__all__ = ["WORKER_OPS", "ProtocolLimits", "check_frame", "check_protections"]


@dataclass(frozen=True)
class ProtocolLimits:
    """Everything a worker's frames may cost the host. Set `WorkerExecutor.protocol_limits` to change them.

    The defaults keep one action's cost to the host within tens of MB whatever the worker sends:
    a frame's bytes are held once or twice while parsed, its values are at most `max_elements`
    Python objects, and decoded binary data (bytes, arrays, image pixels) is at most
    `max_decoded_bytes`. The worker is told `max_frame_bytes` and `max_elements` in its `config`, so
    it refuses to send (with an error the model reads) what the host would refuse.
    """

    max_frame_bytes: int = UNTRUSTED_FRAME_BYTES
    max_elements: int = UNTRUSTED_ELEMENTS
    """JSON values in one frame, and values one decoded message may make."""
    max_frames_per_action: int = 1_000_000
    max_log_chars_per_action: int = 32_000_000
    max_depth: int = 2 * MAX_DEPTH + 16
    """Nesting of a decoded value (a tuple or set costs two JSON levels)."""
    max_decoded_bytes: int = 64 * 1024 * 1024
    max_number_digits: int = UNTRUSTED_NUMBER_DIGITS
    """Digits of a Decimal or of a Fraction's terms (Python's own limit for int from text)."""
    max_exponent: int = UNTRUSTED_EXPONENT
    """Decimal exponents: 1E999999999 is small text but a huge number once used."""
    max_image_pixels: int = UNTRUSTED_IMAGE_PIXELS
    """About a 4K screen (3840 x 2160); images are decoded from PNG only."""
    max_call_id: int = 1 << 53
    max_alike_hashes: int = 64
    """Distinct keys of one set or dict that share a hash: ints, floats and tuples hash the same on
    every host, so a worker can send thousands that all collide and make building the set quadratic.
    Real data almost never has more than two or three."""

    def reader(self) -> FrameReader:
        """A frame reader for a link to a worker, bounded by these limits."""
        return FrameReader(self.max_frame_bytes, self.max_elements)


ANY = None
_STR: tuple[type, ...] = (str,)
_INT: tuple[type, ...] = (int,)
_BOOL: tuple[type, ...] = (bool,)
_LIST: tuple[type, ...] = (list,)

# For each op a worker may send: its required fields and their exact JSON types (ANY: any value,
# decoded later under a budget). `op` and `xid` are checked for every frame.
_SCHEMAS: dict[str, dict[str, tuple[type, ...] | None]] = {
    "ready": {"pid": _INT, "protections": _LIST},
    "print": {"text": _STR},
    "tool_call": {"id": _INT, "name": _STR, "args": ANY, "kwargs": ANY},
    "object_call": {"id": _INT, "object": _INT, "action": _STR, "name": _STR, "args": ANY, "kwargs": ANY},
    "final_answer": {"host_value": _BOOL, "value": ANY, "logs": _STR},
    "error": {"kind": _STR, "message": _STR, "logs": _STR},
    "done": {"output": ANY, "logs": _STR},
}
WORKER_OPS = frozenset(_SCHEMAS)


def check_frame(message: dict[str, Any], xid: str | None, allowed: frozenset[str]) -> str:
    """The frame's op, once its op is one of `allowed`, its `xid` is the open exchange's and its fields typed.

    `xid` None means no exchange is open: then no frame at all is acceptable. Raises ProtocolError.
    """
    op = message.get("op")
    if xid is None:
        raise ProtocolError(f"the worker sent a {_name(op)} frame while no exchange was open")
    if message.get("xid") != xid:
        raise ProtocolError(f"the worker sent a {_name(op)} frame that belongs to no open exchange")
    if op not in allowed:
        raise ProtocolError(f"the worker sent a {_name(op)} frame where only {sorted(allowed)} may come")
    for field, types in _SCHEMAS[op].items():  # op in allowed ⊆ WORKER_OPS
        if field not in message:
            raise ProtocolError(f"the worker's {op} frame lacks its {field!r} field")
        if types is not None and type(message[field]) not in types:
            raise ProtocolError(f"the worker's {op} frame has a {type(message[field]).__name__} as {field!r}")
    return str(op)


def check_protections(value: list[Any]) -> list[tuple[str, bool, str]]:
    """The `ready` frame's protection report: at most 64 rows of [name, active, detail]."""
    if len(value) > 64:
        raise ProtocolError("the worker's protection report is too long")
    rows = []
    for row in value:
        if type(row) is not list or len(row) != 3:
            raise ProtocolError("a row of the worker's protection report is not [name, active, detail]")
        name, active, detail = row
        if type(name) is not str or type(active) is not bool or type(detail) is not str:
            raise ProtocolError("a row of the worker's protection report has the wrong types")
        rows.append((name[:200], active, detail[:2000]))
    return rows


def _name(op: object) -> str:
    return repr(op[:40]) if type(op) is str else "malformed"
