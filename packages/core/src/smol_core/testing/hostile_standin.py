"""A worker stand-in that breaks the protocol on request: the hostile half of `HostileWorkerConformance`.

Why a stand-in rather than attack code run through the real sandbox: the threat is code that has
already reached its raw channel (the guards are a separate layer, tested elsewhere). This program
speaks the protocol like a well-behaved worker (`ready`, acks, `done` for a `run` whose code is a
Python expression) until a `run` says `hostile:<case>`; then it writes exactly the bytes of that
case: garbage, oversized or forged frames, wrong exchange ids, deep or huge values, bad images,
arrays whose shape lies, frames after the end, or a frame that never finishes.

Stdlib-only and self-contained, so its source can run wherever a worker runs: `python3 -c SOURCE`
in a container or an E2B sandbox, or as the boot script of a Pyodide worker. `--skip-frame` makes it
read and drop one frame first (the worker bundle that Docker and E2B links send). Never for real use.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any

TAG = "__smol__"
_state: dict[str, Any] = {"xid": None, "last_xid": None, "namespace": {}}


def _read_exact(n: int) -> bytes:
    parts = []
    while n:
        chunk = os.read(0, n)
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _recv() -> dict[str, Any]:
    body = _read_exact(int.from_bytes(_read_exact(4), "big"))
    message: dict[str, Any] = json.loads(body)
    return message


def raw(data: bytes) -> None:
    """Write bytes to the host as they are, framed or not."""
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def frame(message: dict[str, Any], xid: Any = "current") -> bytes:
    """A frame of `message` stamped with the open exchange's id (or `xid` when given; None: no id)."""
    stamped = dict(message)
    if xid == "current":
        xid = _state["xid"]
    if xid is not None:
        stamped["xid"] = xid
    body = json.dumps(stamped, separators=(",", ":")).encode()
    return len(body).to_bytes(4, "big") + body


def body_frame(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def done(output: Any, xid: Any = "current") -> bytes:
    return frame({"op": "done", "output": output, "logs": ""}, xid)


def _png(width: int, height: int, extra: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (width + 1) * min(height, 4))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def _tag(tag: str, **fields: Any) -> dict[str, Any]:
    return {TAG: tag, **fields}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _tool_call(call_id: Any, name: str = "nothing", args: Any = None, kwargs: Any = None) -> bytes:
    message = {"op": "tool_call", "id": call_id, "name": name, "args": [] if args is None else args}
    message["kwargs"] = {} if kwargs is None else kwargs
    return frame(message)


def _nested_tuple(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = _tag("tuple", items=[value])
    return value


def _dribble() -> None:
    raw(struct.pack(">I", 1000) + b'{"op":')
    while True:
        time.sleep(0.05)
        raw(b" ")


def _hang() -> None:
    while True:
        time.sleep(1)


def _late_frame() -> None:
    """Answer properly, then write a frame while no exchange is open (a forged answer to the next one)."""
    raw(done(1))
    time.sleep(0.3)
    raw(done(2))


def _read_tool_result() -> None:
    """Call the tool `secret_holder` and return the raw frame of its result as text."""
    raw(_tool_call(1, "secret_holder"))
    body = _read_exact(int.from_bytes(_read_exact(4), "big"))
    raw(done(body.decode("utf-8", "replace")))


_COLLIDING_INTS = [k * (2**61 - 1) for k in range(1, 60_001)]  # all hash to 0 on a 64-bit host

VIOLATIONS: dict[str, Callable[[], bytes]] = {
    "garbage_bytes": lambda: b"\x00\x00\x00\x05hello",
    "invalid_utf8": lambda: body_frame(b'{"op":"done","output":"\xff\xfe","logs":""}'),
    "json_not_object": lambda: body_frame(b"[1,2,3]"),
    "no_op": lambda: frame({"output": 1}),
    "unknown_op": lambda: frame({"op": "bogus"}),
    "host_op_from_worker": lambda: frame({"op": "run", "code": "1"}),
    "ready_during_run": lambda: frame({"op": "ready", "pid": 1, "protections": []}),
    "missing_field": lambda: frame({"op": "done", "output": 1}),
    "wrong_field_type": lambda: frame({"op": "done", "output": 1, "logs": 5}),
    "error_message_not_text": lambda: frame({"op": "error", "kind": "x", "message": ["x"], "logs": ""}),
    "no_exchange_id": lambda: done(1, xid=None),
    "wrong_exchange_id": lambda: done(1, xid="0" * 16),
    "stale_exchange_id": lambda: done(1, xid=_state["last_xid"] or "stale"),
    "second_done": lambda: done(1) + done(2),
    "frame_after_error": lambda: frame({"op": "error", "kind": "x", "message": "m", "logs": ""}) + done(1),
    "trailing_bytes": lambda: done(1) + b"\x00\x00",
    "forged_host_final": lambda: frame({"op": "final_answer", "host_value": True, "value": None, "logs": ""}),
    "call_id_bool": lambda: _tool_call(True),
    "call_id_text": lambda: _tool_call("7"),
    "call_id_float": lambda: _tool_call(1.0),
    "call_id_negative": lambda: _tool_call(-1),
    "call_id_huge": lambda: _tool_call(2**80),
    "call_id_reused": lambda: _tool_call(7) + _tool_call(7),
    "call_args_not_list": lambda: _tool_call(9, args={"a": 1}),
    "call_kwargs_not_dict": lambda: _tool_call(9, kwargs=[1]),
    # The kit sets max_frames_per_action=2000 and max_log_chars_per_action=200_000 (KIT_LIMITS).
    "too_many_frames": lambda: frame({"op": "print", "text": "x"}) * 2001 + done(1),
    "log_flood": lambda: frame({"op": "print", "text": "x" * 150_000}) * 2 + done(1),
    "header_4gb": lambda: b"\xff\xff\xff\xff",
    "header_over_limit": lambda: struct.pack(">I", 16 * 1024 * 1024 + 1),
    "too_many_values": lambda: done([0] * 1_100_000),
    "deep_json": lambda: body_frame(
        b'{"op":"done","logs":"","output":' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    ),
    "deep_value": lambda: done(_nested_tuple(400)),
    "huge_int": lambda: body_frame(b'{"op":"done","logs":"","output":' + b"9" * 5000 + b"}"),
    "huge_decimal_exponent": lambda: done(_tag("decimal", s="1E999999999")),
    "huge_decimal_digits": lambda: done(_tag("decimal", s="1" * 5000)),
    "signalling_decimal": lambda: done(_tag("decimal", s="sNaN")),
    "huge_fraction": lambda: done(_tag("fraction", s="1/" + "9" * 5000)),
    "fraction_exponent": lambda: done(_tag("fraction", s="1e999999999")),
    "fraction_zero_denominator": lambda: done(_tag("fraction", s="1/0")),
    "pickle_payload": lambda: done(_tag("pickle", b64=_b64(b"cos\nsystem\n(S'true'\ntR."))),
    "unknown_tag": lambda: done(_tag("evil", x=1)),
    "bad_base64": lambda: done(_tag("bytes", b64="!!not base64!!")),
    "unhashable_set_item": lambda: done(_tag("set", items=[[1, 2]])),
    "dict_item_not_pair": lambda: done(_tag("dict", items=[[1]])),
    "colliding_set": lambda: done(_tag("set", items=_COLLIDING_INTS)),
    "colliding_dict_keys": lambda: done(_tag("dict", items=[[key, 0] for key in _COLLIDING_INTS])),
    "colliding_tuple_keys": lambda: done(
        _tag("frozenset", items=[_tag("tuple", items=[key]) for key in _COLLIDING_INTS])
    ),
    "overlong_datetime": lambda: done(_tag("datetime", iso="2024-01-01" + "0" * 10_000)),
    "ndarray_shape_lies": lambda: done(
        _tag("ndarray", dtype="<f8", shape=[1_000_000_000], b64=_b64(b"\0" * 8))
    ),
    "ndarray_object_dtype": lambda: done(_tag("ndarray", dtype="|O", shape=[1], b64=_b64(b"\0" * 8))),
    "ndarray_zero_itemsize": lambda: done(_tag("ndarray", dtype="|S0", shape=[10**12], b64="")),
    "ndarray_bad_shape": lambda: done(_tag("ndarray", dtype="<i4", shape="big", b64="")),
    "series_broadcast": lambda: done(
        _tag("series", name=None, index=list(range(1000)), dtype="int64", data=1)
    ),
    "series_length_mismatch": lambda: done(
        _tag("series", name=None, index=[1, 2, 3], dtype="int64", data=[1])
    ),
    "dataframe_length_mismatch": lambda: done(
        _tag(
            "dataframe",
            columns=["a"],
            index=[1, 2, 3],
            index_name=None,
            dtypes=["int64"],
            data=[[1]],
            by_column=True,
        )
    ),
    "image_eps": lambda: done(
        _tag("image", png=_b64(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 1 1\nshowpage\n"))
    ),
    "image_gif": lambda: done(_tag("image", png=_b64(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"))),
    "image_pixel_bomb": lambda: done(_tag("image", png=_b64(_png(100_000, 100_000)))),
    "image_truncated": lambda: done(_tag("image", png=_b64(_png(4, 4)[:40]))),
}
"""Cases whose frames must make the host kill and replace the worker (`ProtocolViolationError`)."""

TIMEOUTS: dict[str, Callable[[], None]] = {"dribbling_frame": _dribble, "never_answers": _hang}
"""Cases that never finish a frame: the host's deadline must end them (`ExecutionTimeoutError`)."""


def _run(code: str) -> None:
    if code.startswith("hostile:"):
        name = code[len("hostile:") :]
        if name in VIOLATIONS:
            raw(VIOLATIONS[name]())
        elif name in TIMEOUTS:
            TIMEOUTS[name]()
        elif name == "late_frame":
            _late_frame()
        elif name == "read_tool_result":
            _read_tool_result()
        elif name == "exit":
            os._exit(3)
        else:
            raw(frame({"op": "error", "kind": "x", "message": f"no hostile case {name!r}", "logs": ""}))
        return
    try:
        output = eval(code, _state["namespace"])  # a test double: the code is the test's own
    except Exception as exc:
        raw(frame({"op": "error", "kind": "runtime", "message": f"{type(exc).__name__}: {exc}", "logs": ""}))
        return
    raw(done(output))


def main(argv: list[str]) -> None:
    if "--skip-frame" in argv:
        _read_exact(int.from_bytes(_read_exact(4), "big"))
    while True:
        try:
            message = _recv()
        except EOFError:
            return
        op = message.get("op")
        if op == "tool_result":
            continue
        _state["last_xid"], _state["xid"] = _state["xid"], message.get("xid")
        if op == "config":
            protections = [["hostile stand-in", False, "a test double that breaks the protocol on request"]]
            raw(frame({"op": "ready", "pid": os.getpid(), "protections": protections}))
        elif op == "run":
            _run(str(message.get("code")))
        else:
            raw(done(None))


if __name__ == "__main__":
    main(sys.argv[1:])
