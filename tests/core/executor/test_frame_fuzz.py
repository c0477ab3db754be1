"""Fuzzing the host's reading of worker frames: bytes, frames, schemas and tagged values.

Whatever a worker writes, the host's reader (`FrameReader.untrusted`), frame checks (`check_frame`)
and value decoder (`decode_untrusted`) may only succeed or raise `ProtocolError`, and decoding one
frame may only cost memory in proportion to the frame (traced with tracemalloc).
"""

from __future__ import annotations

import base64
import json
import struct
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smol_core.executors.host.exchange import RUN_OPS
from smol_core.executors.host.frames import ProtocolLimits, check_frame
from smol_core.executors.host.held import ACTIONS, HeldObjects, HostObjectRefusedError, serve
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.worker.framing import FrameReader, encode_message
from smol_core.executors.worker.protocol import TAG, ProtocolError, encode

pytest.importorskip("numpy")
pytest.importorskip("pandas")
pytest.importorskip("PIL.Image")  # imported now, so that tracing a decode never counts an import

XID = "0123456789abcdef"
LIMITS = ProtocolLimits()
TAGS = [
    "tuple", "set", "frozenset", "dict", "bytes", "bytearray", "complex", "datetime", "date", "time",
    "timedelta", "decimal", "fraction", "repr", "pickle", "ndarray", "ndarray_obj", "dataframe",
    "series", "image", "host_object", "bogus",
]  # fmt: skip
FIELD_VALUES = {
    "b64": st.binary(max_size=64).map(lambda b: base64.b64encode(b).decode()) | st.text(max_size=8),
    "png": st.binary(max_size=64).map(lambda b: base64.b64encode(b"\x89PNG\r\n\x1a\n" + b).decode()),
    "dtype": st.sampled_from(
        ["<f8", "|O", "<i4", "|S0", "<U3", "|b1", "<M8[ns]", "V8", "float64", "category"]
    ),
    "shape": st.lists(st.integers(min_value=-2, max_value=10**12), max_size=4),
    "iso": st.sampled_from(["2024-01-02", "2024-01-02T03:04:05", "01:02", "x" * 70, ""]),
    "s": st.sampled_from(["1.5", "1E999999999", "sNaN", "NaN", "1/3", "1/0", "9" * 5000, "-0", "1e5"]),
    "re": st.floats() | st.integers(),
    "im": st.floats() | st.integers(),
    "days": st.integers(),
    "seconds": st.integers(),
    "us": st.integers(),
    "by_column": st.booleans(),
    "id": st.integers(min_value=-2, max_value=3) | st.booleans() | st.text(max_size=2) | st.floats(),
}


def _tagged(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    listy = {
        name: st.lists(children, max_size=4) | children for name in ("items", "columns", "index", "data")
    }
    fields = {
        **listy,
        **FIELD_VALUES,
        "name": children,
        "index_name": children,
        "dtypes": st.lists(st.text(max_size=12)),
    }
    return st.fixed_dictionaries({TAG: st.sampled_from(TAGS)}, optional=fields)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=5), children, max_size=4)
        | _tagged(children)
    ),
    max_leaves=25,
)

messages = st.fixed_dictionaries(
    {"op": st.sampled_from([*sorted(RUN_OPS), "ready", "run", "bogus"])},
    optional={
        "xid": st.sampled_from([XID, XID, XID, "ffffffffffffffff", None, 1]),
        "id": st.integers(min_value=-5, max_value=2**60) | st.booleans() | st.floats(),
        "name": st.text(max_size=10) | st.integers(),
        "args": values,
        "kwargs": values,
        "output": values,
        "value": values,
        "logs": st.text(max_size=10) | st.integers(),
        "text": st.text(max_size=10),
        "host_value": st.booleans() | st.integers(),
        "message": st.text(max_size=10) | st.none(),
        "kind": st.text(max_size=5),
        "object": st.integers(min_value=-2, max_value=3) | st.text(max_size=2),
        "action": st.sampled_from([*sorted(ACTIONS), "bogus"]),
    },
)


class _Held:
    """The one object the fuzzed frames' handles may name (handle 1)."""

    title = "held"


HELD = HeldObjects()
HELD.hold(_Held())


def read_like_the_host(data: bytes, chunk: int) -> None:
    """Everything the host does with bytes from a worker, up to the decoded values."""
    reader = FrameReader.untrusted()
    for start in range(0, len(data), chunk):
        for message in reader.feed(data[start : start + chunk]):
            op = check_frame(message, XID, RUN_OPS)
            for field in ("output", "value", "args", "kwargs"):
                if field in message and op != "print":
                    decode_untrusted(message[field], LIMITS, time.monotonic() + 5, HELD)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200), st.integers(min_value=1, max_value=64))
def test_random_bytes_only_raise_protocol_errors(data: bytes, chunk: int) -> None:
    try:
        read_like_the_host(data, chunk)
    except ProtocolError:
        pass


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages, st.integers(min_value=1, max_value=128))
def test_random_frames_only_raise_protocol_errors(message: dict[str, Any], chunk: int) -> None:
    try:
        read_like_the_host(encode_message(message), chunk)
    except ProtocolError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages, st.data())
def test_garbled_frames_only_raise_protocol_errors(message: dict[str, Any], data: st.DataObject) -> None:
    frame = bytearray(encode_message(message))
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        at = data.draw(st.integers(min_value=0, max_value=len(frame) - 1))
        action = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        if action == "flip":
            frame[at] ^= data.draw(st.integers(min_value=1, max_value=255))
        elif action == "insert":
            frame[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif len(frame) > 1:
            del frame[at]
    try:
        read_like_the_host(bytes(frame), 4096)
    except ProtocolError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_decoding_costs_memory_in_proportion_to_the_frame(value: Any) -> None:
    frame = encode_message({"op": "done", "xid": XID, "output": value, "logs": ""})
    tracemalloc.start()
    try:
        read_like_the_host(frame, 1 << 20)
    except ProtocolError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= 1024 * 1024 + 64 * len(frame), (peak, len(frame))


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,  # nesting: the JSON parser's recursion
        b'{"op":"done","xid":"' + XID.encode() + b'","logs":"","output":[' + b"{}," * 300_000 + b"{}]}",
        b'{"op":"done","xid":"' + XID.encode() + b'","logs":"","output":' + b"1" * 4301 + b"}",
    ],
    ids=["deep", "many_small_objects", "long_int"],
)
def test_worst_frames_stay_within_their_budget(body: bytes) -> None:
    tracemalloc.start()
    try:
        read_like_the_host(struct.pack(">I", len(body)) + body, 1 << 20)
    except ProtocolError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= 64 * 1024 * 1024


def test_a_frame_of_too_many_values_is_refused_before_it_is_parsed() -> None:
    body = json.dumps(
        {"op": "done", "xid": XID, "logs": "", "output": [0] * (LIMITS.max_elements + 1)}
    ).encode()
    frame = struct.pack(">I", len(body)) + body
    tracemalloc.start()
    try:
        with pytest.raises(ProtocolError, match="more than"):
            FrameReader.untrusted().feed(frame)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= 3 * len(body)  # the frame's bytes, never a million parsed values


def test_strings_full_of_commas_are_counted_exactly() -> None:
    """A legitimate long text with many commas is not mistaken for many values."""
    text = "," * (LIMITS.max_elements + 10)
    body = encode_message({"op": "done", "xid": XID, "logs": "", "output": encode(text)})
    (message,) = FrameReader.untrusted().feed(body)
    assert message["output"] == text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=-2, max_value=3),
    st.sampled_from([*sorted(ACTIONS), "bogus"]),
    st.sampled_from(["title", "_x", "__class__", "__dict__", "mro", "gi_frame", "", "a b", "x" * 300])
    | st.text(max_size=8),
    st.lists(values, max_size=3),
)
def test_object_calls_only_refuse_or_raise_what_the_host_catches(
    handle: int, action: str, name: str, args: list[Any]
) -> None:
    """Whatever a worker asks of a held object, the host gets a result, a refusal or an ordinary
    exception (the model reads it), and the object's private side is never set."""
    try:
        serve(HELD, handle, action, name, list(args), {})
    except (HostObjectRefusedError, Exception):
        pass
    held = HELD.get(1)
    assert not any(key.startswith("_") for key in vars(held))
