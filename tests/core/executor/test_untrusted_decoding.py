"""The host's side of the codec: legitimate values still cross whole, and nothing secret crosses out."""

from __future__ import annotations

import datetime
import io
import json
import time
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from smol_core.executors.base import InterpreterError, ProtocolViolationError
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.untrusted import decode_untrusted, png_checked
from smol_core.executors.worker.protocol import ProtocolError, UnserializableValue, encode

LIMITS = ProtocolLimits()


def through_the_wire(value: Any) -> Any:
    """What the host gets for a value the worker encoded: JSON text, parsed, then decoded untrusted."""
    return decode_untrusted(json.loads(json.dumps(encode(value))), LIMITS, time.monotonic() + 10)


SAMPLES = [
    None,
    True,
    -(2**100),
    1.5,
    "ünï",
    [1, [2, [3]]],
    (1, "a"),
    {"a": 1},
    {1: "int key"},
    {(1, 2): {3}},
    {"__smol__": "not a tag"},
    frozenset({"x"}),
    b"\x00\xff",
    bytearray(b"ab"),
    3 + 4j,
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC),
    datetime.date(2020, 2, 29),
    datetime.time(1, 2),
    datetime.timedelta(days=1, seconds=2, microseconds=3),
    Decimal("1.10"),
    Decimal("NaN"),
    Fraction(1, 3),
]


@pytest.mark.parametrize("value", SAMPLES, ids=[type(v).__name__ for v in SAMPLES])
def test_legitimate_values_decode_whole(value: Any) -> None:
    back = through_the_wire(value)
    if value == value:  # NaN aside
        assert back == value
    assert type(back) is type(value)


def test_library_values_decode_whole() -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    image_module = pytest.importorskip("PIL.Image")
    for arr in (np.arange(6, dtype=np.int16).reshape(2, 3), np.array(["a", "bc"]), np.zeros((0, 3))):
        back = through_the_wire(arr)
        assert back.dtype == arr.dtype and back.shape == arr.shape
        np.testing.assert_array_equal(back, arr)
    assert list(through_the_wire(np.array([{"a": 1}, None], dtype=object))) == [{"a": 1}, None]
    frame = pd.DataFrame(
        {"a": [1, 2], "b": ["x", None], "c": pd.to_datetime(["2024-01-01", "2024-01-02"])}, index=["r1", "r2"]
    )
    pd.testing.assert_frame_equal(through_the_wire(frame), frame)
    series = pd.Series([1.0, 2.0], name="s", index=[10, 20])
    pd.testing.assert_series_equal(through_the_wire(series), series)
    image = image_module.new("RGB", (4, 3), (255, 0, 0))
    back = through_the_wire(image)
    assert back.size == (4, 3) and back.getpixel((0, 0)) == (255, 0, 0) and back.format == "PNG"


def test_png_text_chunks_are_dropped_before_decoding() -> None:
    image_module = pytest.importorskip("PIL.Image")
    png_info = pytest.importorskip("PIL.PngImagePlugin")
    info = png_info.PngInfo()
    info.add_text("comment", "x" * 10_000, zip=True)
    buffer = io.BytesIO()
    image_module.new("L", (2, 2)).save(buffer, format="PNG", pnginfo=info)
    clean, width, height = png_checked(buffer.getvalue(), LIMITS.max_image_pixels)
    assert (width, height) == (2, 2) and b"zTXt" not in clean and len(clean) < 200


def test_decoding_stops_at_the_deadline() -> None:
    with pytest.raises(ProtocolError, match="deadline"):
        decode_untrusted({"__smol__": "set", "items": list(range(20_000))}, LIMITS, time.monotonic() - 1)


_MODULUS = 2**61 - 1  # ints hash modulo this on a 64-bit host


@pytest.mark.parametrize(
    "keys",
    [
        [k * _MODULUS for k in range(1, 20_001)],  # ints that all hash to 0
        [{"__smol__": "tuple", "items": [k * _MODULUS]} for k in range(1, 20_001)],
    ],
    ids=["ints", "tuples_of_them"],
)
def test_keys_that_hash_alike_are_refused_whatever_the_clock(keys: list[Any]) -> None:
    """No deadline at all: the count stops the quadratic build, not the speed of the machine."""
    for wire in (
        {"__smol__": "set", "items": keys},
        {"__smol__": "frozenset", "items": keys},
        {"__smol__": "dict", "items": [[key, 1] for key in keys]},
    ):
        with pytest.raises(ProtocolError, match="same hash"):
            decode_untrusted(wire, LIMITS, None)  # without the count: minutes, then the test's time-out


def test_a_few_alike_hashes_are_ordinary_data() -> None:
    """-1 and -2 share a hash, as do 0, 0.0 and False's neighbours: real data has such pairs."""
    keys = [-1, -2, 2**61 - 1, 0.5, *[k * _MODULUS for k in range(2, 40)]]
    decoded = decode_untrusted({"__smol__": "set", "items": keys}, LIMITS, None)
    assert decoded == set(keys)
    as_dict = decode_untrusted({"__smol__": "dict", "items": [[k, str(k)] for k in keys]}, LIMITS, None)
    assert as_dict == {k: str(k) for k in keys}


def test_repeated_equal_keys_are_not_collisions() -> None:
    decoded = decode_untrusted({"__smol__": "set", "items": [7] * 5_000}, LIMITS, None)
    assert decoded == {7}


def test_library_classes_are_recognised_by_class_never_by_claimed_module() -> None:
    class FakeImage:
        __module__ = "PIL.Image"
        mode = "RGB"

        def save(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("the encoder called a stranger's save()")

    class FakeArray:
        __module__ = "numpy"

    for fake in (FakeImage(), FakeArray()):
        assert isinstance(through_the_wire(fake), UnserializableValue)


def test_a_result_too_large_for_the_host_is_an_error_and_the_state_stays(make_executor: Any) -> None:
    executor = make_executor()
    executor("kept = 41")
    with pytest.raises(InterpreterError, match="too large to return") as caught:
        executor("list(range(2_000_000))")
    assert not isinstance(caught.value, ProtocolViolationError)  # a polite worker is never killed
    assert executor("kept + 1").output == 42


def test_tool_results_reach_the_code_as_data_or_repr_never_pickled(make_executor: Any) -> None:
    secret = "host-secret-3f9a"

    class Client:
        def __init__(self) -> None:
            self.token = secret

        def __repr__(self) -> str:
            return "<Client>"

    executor = make_executor()
    executor.send_tools(
        {"client": Client, "data": lambda: {"rows": [(1, "a")], "when": datetime.date(2024, 1, 1)}}
    )
    assert executor("data()").output == {"rows": [(1, "a")], "when": datetime.date(2024, 1, 1)}
    seen = executor("c = client()\n[repr(c), str(c)]").output
    assert seen == ["<Client>", "<Client>"]
    assert secret not in repr(executor("dir(c)").output)


def test_importing_a_library_for_a_value_does_not_count_against_the_deadline(monkeypatch) -> None:
    """The first DataFrame of a host imports pandas (seconds on a loaded machine): that is the host's
    own start-up, not the cost of the worker's value, so a short deadline does not refuse it."""
    np = pytest.importorskip("numpy")
    import types

    from smol_core.executors.host import untrusted

    def slow_import(name: str) -> types.ModuleType:
        time.sleep(1.5)
        return types.ModuleType(name)

    monkeypatch.setitem(untrusted._LIBRARIES, "ndarray", "smol_not_yet_imported")  # numpy is, here
    monkeypatch.setattr(untrusted.importlib, "import_module", slow_import)
    value = [np.arange(3), *range(1000)]  # values after the array: the clock is looked at again
    wire = json.loads(json.dumps(encode(value)))
    decoded = decode_untrusted(wire, LIMITS, time.monotonic() + 1.0)
    assert decoded[0].tolist() == [0, 1, 2] and decoded[1:] == list(range(1000))
