"""The wire protocol: frames, and a codec that never unpickles on the host."""

from __future__ import annotations

import datetime
import os
import pickle
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smol_core.executors.worker.framing import (
    FrameReader,
    decode_message,
    encode_message,
    read_message,
    write_message,
)
from smol_core.executors.worker.protocol import TAG, ProtocolError, UnserializableValue, decode, encode

SAMPLES = [
    None,
    True,
    0,
    -(2**100),
    1.5,
    float("inf"),
    "text",
    "ünï",
    [],
    [1, [2, [3]]],
    (1, "a"),
    {"a": 1},
    {1: "int key"},
    {(1, 2): {3}},
    {TAG: "not a tag"},
    {1, 2},
    frozenset({"x"}),
    b"\x00\xff",
    bytearray(b"ab"),
    3 + 4j,
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
    datetime.date(2020, 2, 29),
    datetime.time(1, 2),
    datetime.timedelta(days=1, seconds=2, microseconds=3),
    Decimal("1.10"),
    Fraction(1, 3),
    datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC),
]


@pytest.mark.parametrize("value", SAMPLES, ids=[type(v).__name__ for v in SAMPLES])
def test_round_trip(value):
    back = decode(encode(value))
    assert back == value and type(back) is type(value)


def test_nan_round_trips():
    import math

    assert math.isnan(decode(encode(float("nan"))))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda children: (
        st.lists(children)
        | st.tuples(children, children)
        | st.dictionaries(st.text() | st.integers(), children)
        | st.frozensets(st.integers())
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_round_trip_property(value):
    assert decode(encode(value)) == value


def test_unknown_objects_cross_as_labelled_repr():
    class Weird:
        def __repr__(self):
            return "<weird>"

    back = decode(encode(Weird()))
    assert isinstance(back, UnserializableValue) and repr(back) == "<weird>" and "Weird" in back.type_name


def test_broken_repr_does_not_break_the_channel():
    class Broken:
        def __repr__(self):
            raise RuntimeError("boom")

    assert "repr failed" in repr(decode(encode(Broken())))


def test_recursive_structures():
    a: list = []
    a.append(a)
    back = decode(encode(a))
    assert isinstance(back[0], UnserializableValue)


def test_host_refuses_pickle():
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    payload = {TAG: "pickle", "b64": __import__("base64").b64encode(pickle.dumps(Evil())).decode()}
    with pytest.raises(ProtocolError, match="refusing to unpickle"):
        decode(payload)


def test_no_pickle_crosses_either_way():
    """A value the codec does not know is its repr, never a pickle; a pickle payload is refused by the
    worker's decoder too (the user's objects cross as handles instead: test_user_objects.py)."""
    import collections

    value = collections.deque([1, 2])
    assert isinstance(decode(encode(value)), UnserializableValue)
    with pytest.raises(ProtocolError):
        decode({"__smol__": "pickle", "b64": "gASVBAAAAAAAAABLAS4="})


def test_numpy_and_pandas_round_trip():
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    for arr in (
        np.arange(6, dtype=np.int16).reshape(2, 3),
        np.array([1.5, np.nan]),
        np.array(["a", "bc"]),
        np.array([True, False]),
        np.zeros((0, 3)),
    ):
        back = decode(encode(arr))
        assert back.dtype == arr.dtype and back.shape == arr.shape
        np.testing.assert_array_equal(back, arr)
    obj = decode(encode(np.array([{"a": 1}, None], dtype=object)))
    assert list(obj) == [{"a": 1}, None]
    assert decode(encode(np.float64(2.5))) == 2.5
    df = pd.DataFrame(
        {"a": [1, 2], "b": ["x", None], "c": pd.to_datetime(["2024-01-01", "2024-01-02"])}, index=["r1", "r2"]
    )
    pd.testing.assert_frame_equal(decode(encode(df)), df)
    s = pd.Series([1.0, 2.0], name="s", index=[10, 20])
    pd.testing.assert_series_equal(decode(encode(s)), s)


def test_pil_image_as_png():
    Image = pytest.importorskip("PIL.Image")
    img = Image.new("RGB", (4, 3), (255, 0, 0))
    back = decode(encode(img))
    assert back.size == (4, 3) and back.getpixel((0, 0)) == (255, 0, 0)


def test_frames_survive_partial_reads():
    frames = encode_message({"op": "a", "v": 1}) + encode_message({"op": "b", "v": "x" * 1000})
    reader = FrameReader()
    got = []
    for i in range(0, len(frames), 7):
        got += reader.feed(frames[i : i + 7])
    assert [m["op"] for m in got] == ["a", "b"]


def test_malformed_frames():
    with pytest.raises(ProtocolError):
        decode_message(b"not json")
    with pytest.raises(ProtocolError):
        decode_message(b"[1, 2]")
    with pytest.raises(ProtocolError):
        FrameReader().feed(b"\xff\xff\xff\xff")


def test_pipe_read_write():
    r, w = os.pipe()
    try:
        write_message(w, {"op": "x", "n": 1})
        write_message(w, {"op": "y"})
        reader, pending = FrameReader(), []
        assert read_message(r, reader, pending)["op"] == "x"
        assert read_message(r, reader, pending)["op"] == "y"
        os.close(w)
        w = -1
        with pytest.raises(EOFError):
            read_message(r, reader, pending)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
