"""Hostile values for the file readers' fuzz tests: what a file someone hands you may hold."""

from __future__ import annotations

import base64
import json
import math
import struct
import zlib
from typing import Any

from hypothesis import strategies as st

TAG = "__smol__"


def png(width: int, height: int) -> bytes:
    """A grayscale PNG of one colour: a few kB of compressed bytes for millions of pixels."""
    row = b"\x00" + bytes(width)
    body = zlib.compress(row * height, 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def image_value(width: int = 2896, height: int = 2896) -> dict[str, Any]:
    """An image in the typed codec: about 8 million pixels (the most one image may have), 8 kB."""
    return {TAG: "image", "png": base64.b64encode(png(width, height)).decode()}


_BOMB = image_value()


def image_bomb(count: int) -> list[Any]:
    """`count` images that each fit the one-image limit; together, far more than a file's budget."""
    return [_BOMB] * count


class RawJSON:
    """JSON text put into a document as is (`to_json`): nesting too deep for `json.dumps` to write."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name

    def __repr__(self) -> str:
        return self.name


def deep(depth: int) -> RawJSON:
    return RawJSON("[" * depth + "0" + "]" * depth, f"<{depth} nested lists>")


def to_json(document: Any) -> str:
    """`document` as JSON text, NaN and infinities included, with each RawJSON's text in its place."""
    raws: list[RawJSON] = []

    def mark(value: Any) -> Any:
        if isinstance(value, RawJSON):
            raws.append(value)
            return f"\x00RAW{len(raws) - 1}\x00"
        if isinstance(value, dict):
            return {key: mark(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mark(item) for item in value]
        return value

    text = json.dumps(mark(document), allow_nan=True)
    for n, raw in enumerate(raws):
        text = text.replace(f'"\\u0000RAW{n}\\u0000"', raw.text)
    return text


SCALARS: list[Any] = [
    math.inf,
    -math.inf,
    math.nan,
    1e300,
    -1,
    10**30,
    True,
    None,
    "",
    "\x00\x1b[2J\r\n",
    {},
    [],
    [1, 2],
    {"a": 1},
]
"""Cheap hostile values, each put in every place of a document in turn."""

HOSTILE_VALUES = st.one_of(
    st.sampled_from(
        [
            math.inf,
            -math.inf,
            math.nan,
            1e300,
            -1e300,
            -1,
            -(10**30),
            10**30,
            0,
            True,
            False,
            None,
            "",
            "\x00\x1b[2J\x1b]0;pwned\x07\r\n\u202e",
            "x" * 100_000,
            {},
            [],
            [1, 2],
            [None, None],
            {"a": 1},
            {TAG: "image", "png": "AAAA"},
            {TAG: "decimal", "s": "1E999999999"},
            {TAG: "no such tag"},
            {TAG: "pickle", "b64": "gASVAAAAAAAAAAA="},
            {TAG: "ndarray", "dtype": "f8", "shape": [10**9], "b64": ""},
            RawJSON(json.dumps(image_value()), "<an image of 8M pixels>"),
            RawJSON(json.dumps(image_bomb(12)), "<12 images of 8M pixels>"),
        ]
    ),
    st.builds(deep, st.sampled_from([50, 500, 5000])),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.lists(st.integers(), max_size=3),
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a parsed JSON document a hostile value could go."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths(item, (*prefix, index)))
    return found


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    """`document` with the value at `path` replaced (the root, if `path` is empty)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        return {**document, head: replaced(document[head], rest, value)}
    copy = list(document)
    copy[head] = replaced(copy[head], rest, value)
    return copy
