"""`SafeSerializer`: smolagents' JSON-with-markers format, pickle only on explicit opt-in."""

from __future__ import annotations

import base64
import json
import pickle
import warnings
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from smol_core import SafeSerializer, SerializationError


class Opaque:
    """A class JSON cannot hold (module level, so pickle can)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque)

    __hash__ = object.__hash__


@dataclass
class Point:
    x: int
    y: int


def test_round_trips_the_marked_types() -> None:
    value = {
        "tuple": (1, 2),
        "set": {3},
        "bytes": b"\x00\xff",
        "complex": 1 + 2j,
        "when": datetime(2024, 1, 2, 3, 4, 5),
        "decimal": Decimal("1.10"),
        "path": Path("/tmp/x"),
        (1, 2): "tuple key",
    }
    text = SafeSerializer.dumps(value)
    assert text.startswith("safe:")
    assert SafeSerializer.loads(text) == value


def test_a_dict_holding_a_type_key_is_not_taken_for_a_marker() -> None:
    value = {"__type__": "bytes", "data": "aGk="}
    assert SafeSerializer.loads(SafeSerializer.dumps(value)) == value


def test_dataclasses_come_back_as_dicts_never_as_their_class() -> None:
    back = SafeSerializer.loads(SafeSerializer.dumps(Point(1, 2)))
    assert back == {"__dataclass__": "Point", "__module__": __name__, "x": 1, "y": 2}


def test_pickle_is_refused_without_opt_in_both_ways() -> None:
    with pytest.raises(SerializationError, match="Cannot safely serialize object of type Opaque"):
        SafeSerializer.dumps(Opaque())
    for data in (
        "pickle:" + base64.b64encode(pickle.dumps(1)).decode(),
        base64.b64encode(pickle.dumps(1)).decode(),
    ):
        with pytest.raises(SerializationError, match="Pickle data rejected"):
            SafeSerializer.loads(data)


def test_pickle_with_opt_in_warns_each_way() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = SafeSerializer.dumps(Opaque(), allow_pickle=True)
        assert SafeSerializer.loads(text, allow_pickle=True) == Opaque()
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    assert "insecure pickle" in str(caught[0].message)


def test_arrays_with_object_dtype_are_refused_on_load() -> None:
    numpy = pytest.importorskip("numpy")
    array = numpy.array([[1, 2], [3, 4]], dtype=numpy.int16)
    back = SafeSerializer.loads(SafeSerializer.dumps(array))
    assert back.dtype == array.dtype and (back == array).all()
    hostile = 'safe:{"__type__": "ndarray", "data": [1], "dtype": "O"}'
    with pytest.raises(ValueError, match="refused ndarray dtype"):
        SafeSerializer.loads(hostile)


def test_images_are_decoded_only_as_png() -> None:
    image_module = pytest.importorskip("PIL.Image")
    import io

    image = image_module.new("RGB", (4, 3), "red")
    assert SafeSerializer.loads(SafeSerializer.dumps(image)).size == (4, 3)
    buffer = io.BytesIO()
    image.save(buffer, format="BMP")
    marker = {"__type__": "PIL.Image", "data": base64.b64encode(buffer.getvalue()).decode()}
    bmp = "safe:" + json.dumps(marker)
    with pytest.raises(Exception, match="cannot identify image"):
        SafeSerializer.loads(bmp)


def test_generated_sandbox_code_decodes_what_dumps_writes() -> None:
    namespace: dict[str, object] = {}
    exec(SafeSerializer.get_deserializer_code(allow_pickle=False), namespace)
    decode = namespace["_deserialize"]
    assert callable(decode)
    assert decode(SafeSerializer.dumps({"t": (1, b"x")})) == {"t": (1, b"x")}
    with pytest.raises(Exception, match="Pickle data rejected"):
        decode("pickle:" + base64.b64encode(pickle.dumps(1)).decode())
    full: dict[str, object] = {}
    exec(SafeSerializer.get_safe_serializer_code(), full)
    serializer = full["SafeSerializer"]
    assert serializer.loads(serializer.dumps({"s": {1}})) == {"s": {1}}  # type: ignore[attr-defined]


def test_agent_values_are_written_as_their_plain_value() -> None:
    from smol_core import AgentText

    assert SafeSerializer.loads(SafeSerializer.dumps({"answer": AgentText("done")})) == {"answer": "done"}
    namespace: dict[str, object] = {}
    exec(SafeSerializer.get_safe_serializer_code(), namespace)
    assert namespace["SafeSerializer"].dumps([1]) == "safe:[1]"  # type: ignore[attr-defined]
