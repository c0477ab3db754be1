"""The wire protocol between an executor host and its sandboxed worker.

Why a protocol of its own: the host must never unpickle anything the sandbox produced (a pickle is
code). Every frame is a 4-byte big-endian length followed by a UTF-8 JSON object; values that JSON
cannot hold travel through a small tagged codec (`{"__smol__": tag, ...}`): bytes, tuples, sets,
complex numbers, dates and times, Decimal and Fraction, builtin classes (`int`, by name), numpy
arrays (raw bytes of non-object dtypes), pandas frames and series, PIL images (PNG bytes), and
handles to objects the host keeps (`host_object`: the user's instances, see host_objects.py).
Anything else crosses as a labelled repr (`UnserializableValue`). No pickle crosses in either
direction: a pickle runs code where it is loaded, and would carry a host object's whole state into
the sandbox. The host decodes worker values with executors/host/untrusted.py instead of `decode`
(exact types, budgets, deadline, handles only from its own table).

Frames themselves (length prefix, JSON, size and value limits) are framing.py's.

This module is stdlib-only on purpose: the same file runs inside the worker, and later inside Docker,
E2B or WebAssembly workers. numpy, pandas and PIL are used only when already imported.

Messages (field `op`):
  host → worker: `config`, `run` (code), `tools` (names, async flags), `vars`, `tool_result`, `reset`.
  worker → host: `ready`, `print` (a log chunk), `tool_call`, `final_answer`, `error`, `done`.
Each host → worker exchange carries a fresh random `xid`; the worker stamps it on every frame it sends
for that exchange, so frames written ahead of time cannot pass for the answer to a later one.

Two directions, two sets of limits. The worker trusts its host, so what it reads is bounded only by
`MAX_FRAME_BYTES`. The host trusts nothing the worker writes: its readers use `FrameReader.untrusted()`
(`UNTRUSTED_FRAME_BYTES`, `UNTRUSTED_ELEMENTS`, checked before a frame is parsed), and the worker
applies the same limits to what it sends, so a legitimate worker is refused politely, never killed.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import datetime as _dt
import sys
from collections.abc import Callable
from contextvars import ContextVar
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .host_objects import HostObject, host_object

TAG = "__smol__"
MAX_FRAME_BYTES = 512 * 1024 * 1024
"""Host → worker frames (the worker trusts its host: big `additional_args` may cross)."""
UNTRUSTED_FRAME_BYTES = 16 * 1024 * 1024
"""Worker → host frames: a frame, its text and the objects parsed from it stay within tens of MB."""
UNTRUSTED_ELEMENTS = 1_000_000
"""Worker → host frames: JSON values per frame (each costs the host a Python object)."""
UNTRUSTED_IMAGE_PIXELS = 1 << 23
"""Worker → host images (about a 4K screen); a bigger image crosses as its repr."""
UNTRUSTED_NUMBER_DIGITS = 4300
"""Digits of a Decimal or a Fraction term the host accepts; beyond, the value crosses as its repr."""
UNTRUSTED_EXPONENT = 10_000
MAX_DEPTH = 200
BUILTIN_TYPES = frozenset(
    {"bool", "bytearray", "bytes", "complex", "dict", "float", "frozenset", "int", "list", "object", "range"}
    | {"set", "slice", "str", "tuple", "type"}
)
"""Builtin classes that cross by name (`{"__smol__": "type", "name": "int"}`): `x = int` is data."""

__all__ = [
    "BUILTIN_TYPES",
    "MAX_FRAME_BYTES",
    "TAG",
    "UNTRUSTED_ELEMENTS",
    "UNTRUSTED_FRAME_BYTES",
    "ProtocolError",
    "UnserializableValue",
    "decode",
    "encode",
]


class ProtocolError(RuntimeError):
    """A frame was malformed, too large, or carried something the receiver refuses (pickle to the host)."""


class UnserializableValue:
    """A value that could not cross the boundary as data: only its type name and repr came across.

    `repr()` gives the original repr so that observations read naturally; `type_name` says what it was.
    """

    __slots__ = ("text", "type_name")

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, UnserializableValue)
            and other.type_name == self.type_name
            and other.text == self.text
        )

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))


def _type_name(value: object) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _safe_repr(value: object, limit: int = 20_000) -> str:
    try:
        text = repr(value)
    except BaseException as exc:  # a hostile or broken __repr__ must not break the channel
        text = f"<{_type_name(value)} (repr failed: {type(exc).__name__})>"
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    return text


def _tagged(tag: str, **fields: Any) -> dict[str, Any]:
    fields[TAG] = tag
    return fields


Hold = Callable[[Any], HostObject | None]
_HOLD: ContextVar[Hold | None] = ContextVar("smol_hold", default=None)


def encode(value: Any, *, hold: Hold | None = None, _depth: int = 0, _seen: set[int] | None = None) -> Any:
    """Turn `value` into JSON-ready data: a value the codec does not know crosses as its repr.

    `hold` (host side): for each such value, and each namedtuple, a handle to it (`smol_core.executors.host.held`)
    or None for its repr; the host keeps the value and the worker gets the handle."""
    if hold is not None:
        token = _HOLD.set(hold)
        try:
            return encode(value, _depth=_depth, _seen=_seen)
        finally:
            _HOLD.reset(token)
    cls = type(value)
    if value is None or cls is bool or cls is int or cls is float or cls is str:
        return value
    if _depth > MAX_DEPTH:
        return _tagged("repr", type=_type_name(value), repr="<too deeply nested>")
    if _seen is None:
        _seen = set()
    if cls is list or cls is tuple or cls in (set, frozenset) or cls is dict:
        if id(value) in _seen:
            return _tagged("repr", type=_type_name(value), repr="<recursive reference>")
        _seen.add(id(value))
        try:
            return _encode_container(value, _depth, _seen)
        finally:
            _seen.discard(id(value))
    special = _encode_special(value, _depth, _seen)
    if special is not None:
        return special
    return _held_or_repr(value)


def _held_subclass(value: Any) -> bool:
    """An image of a class of the host's own (`AgentImage`) where the host holds objects: it keeps
    its methods as a handle, while PIL's own images cross as PNG."""
    return _HOLD.get() is not None and not type(value).__module__.startswith("PIL.")


def _held_or_repr(value: Any) -> dict[str, Any]:
    hold = _HOLD.get()
    handle = hold(value) if hold is not None else None
    if handle is not None:
        return _tagged("host_object", id=handle._smol_handle, type=handle._smol_type)
    return _tagged("repr", type=_type_name(value), repr=_safe_repr(value))


def _encode_container(value: Any, depth: int, seen: set[int]) -> Any:
    def enc(v: Any) -> Any:
        return encode(v, _depth=depth + 1, _seen=seen)

    cls = type(value)
    if cls is list:
        return [enc(v) for v in value]
    if cls is tuple:
        return _tagged("tuple", items=[enc(v) for v in value])
    if cls is set or cls is frozenset:
        return _tagged(cls.__name__, items=[enc(v) for v in value])
    if all(type(k) is str for k in value) and TAG not in value:
        return {k: enc(v) for k, v in value.items()}
    return _tagged("dict", items=[[enc(k), enc(v)] for k, v in value.items()])


def _encode_special(value: Any, depth: int, seen: set[int]) -> Any:
    """Known non-JSON types; None when `value` is none of them."""
    if type(value) is HostObject:  # the host's object: its handle, never its contents
        return _tagged("host_object", id=value._smol_handle, type=value._smol_type)
    if type(value) is type and value.__name__ in BUILTIN_TYPES and getattr(builtins, value.__name__) is value:
        return _tagged("type", name=value.__name__)
    if isinstance(value, bool | int | float | str):
        # subclasses (IntEnum, str enums, numpy.float64 is a float subclass) cross as their base value
        for scalar in (bool, int, float, str):
            if isinstance(value, scalar):
                return scalar(value)
    if isinstance(value, tuple) and hasattr(type(value), "_fields") and _HOLD.get() is not None:
        return _held_or_repr(value)  # a namedtuple the host holds keeps `.x` (a copy would not)
    for container in (tuple, list, dict, set, frozenset):
        if isinstance(value, container):  # namedtuples, OrderedDict, Counter, defaultdict: their data
            return encode(container(value), _depth=depth + 1, _seen=seen)
    if isinstance(value, bytes | bytearray | memoryview):
        return _tagged(
            type(value).__name__ if not isinstance(value, memoryview) else "bytes",
            b64=base64.b64encode(bytes(value)).decode("ascii"),
        )
    if isinstance(value, complex):
        return _tagged("complex", re=value.real, im=value.imag)
    if isinstance(value, _dt.datetime):
        return _tagged("datetime", iso=value.isoformat())
    if isinstance(value, _dt.date):
        return _tagged("date", iso=value.isoformat())
    if isinstance(value, _dt.time):
        return _tagged("time", iso=value.isoformat())
    if isinstance(value, _dt.timedelta):
        return _tagged("timedelta", days=value.days, seconds=value.seconds, us=value.microseconds)
    if isinstance(value, Decimal):
        if value.is_finite() and (
            abs(value.adjusted()) > UNTRUSTED_EXPONENT
            or len(value.as_tuple().digits) > UNTRUSTED_NUMBER_DIGITS
        ):
            return _tagged(
                "repr", type=_type_name(value), repr="<a Decimal beyond the exponent or digit limits>"
            )
        return _tagged("decimal", s=str(value))
    if isinstance(value, Fraction):
        if max(value.numerator.bit_length(), value.denominator.bit_length()) > UNTRUSTED_NUMBER_DIGITS * 3:
            return _tagged("repr", type=_type_name(value), repr="<a Fraction beyond the digit limit>")
        return _tagged("fraction", s=str(value))
    # Library types are recognised by their real classes, never by the `__module__` a class claims:
    # a class that says it is numpy's must not get numpy's treatment (nor have its `save` called).
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray | np.generic):
        return _encode_numpy(value, depth, seen)
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(value, pd.DataFrame | pd.Series | pd.Timestamp | pd.Timedelta):
        return _encode_pandas(value, depth, seen)
    pil = sys.modules.get("PIL.Image")
    if pil is not None and isinstance(value, pil.Image) and not _held_subclass(value):
        import io

        if value.width * value.height > UNTRUSTED_IMAGE_PIXELS:
            return _tagged("repr", type=_type_name(value), repr=_safe_repr(value))

        buf = io.BytesIO()
        try:
            value.save(buf, format="PNG")
        except Exception:
            return None
        return _tagged("image", png=base64.b64encode(buf.getvalue()).decode("ascii"))
    return None


def _encode_numpy(value: Any, depth: int, seen: set[int]) -> Any:
    np = sys.modules["numpy"]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biufcmMSU?" and not value.dtype.fields:
            arr = np.ascontiguousarray(value)
            return _tagged(
                "ndarray",
                dtype=arr.dtype.str,
                shape=list(arr.shape),
                b64=base64.b64encode(arr.tobytes()).decode("ascii"),
            )
        return _tagged(
            "ndarray_obj",
            shape=list(value.shape),
            items=encode(value.tolist(), _depth=depth + 1, _seen=seen),
        )
    if isinstance(value, np.generic):
        return encode(value.item(), _depth=depth + 1, _seen=seen)
    return None


def _encode_pandas(value: Any, depth: int, seen: set[int]) -> Any:
    pd = sys.modules["pandas"]

    def enc(v: Any) -> Any:
        return encode(v, _depth=depth + 1, _seen=seen)

    if isinstance(value, pd.DataFrame):
        return _tagged(
            "dataframe",
            columns=enc(list(value.columns)),
            index=enc(list(value.index)),
            index_name=enc(value.index.name),
            dtypes=[str(t) for t in value.dtypes],
            data=[enc(value[c].to_numpy()) for c in value.columns]
            if value.columns.is_unique
            else enc(value.to_numpy().tolist()),
            by_column=bool(value.columns.is_unique),
        )
    if isinstance(value, pd.Series):
        return _tagged(
            "series",
            name=enc(value.name),
            index=enc(list(value.index)),
            dtype=str(value.dtype),
            data=enc(value.to_numpy()),
        )
    if isinstance(value, pd.Timestamp):
        return _tagged("datetime", iso=value.isoformat())
    if isinstance(value, pd.Timedelta):
        return enc(value.to_pytimedelta())
    return None


def decode(data: Any) -> Any:
    """Inverse of `encode`, for the worker (which trusts its host). A pickle is refused: none crosses."""
    cls = type(data)
    if cls is list:
        return [decode(v) for v in data]
    if cls is not dict:
        return data
    tag = data.get(TAG)
    if tag is None:
        return {k: decode(v) for k, v in data.items()}
    return _decode_tagged(tag, data)


def _decode_tagged(tag: str, data: dict[str, Any]) -> Any:
    def dec(v: Any) -> Any:
        return decode(v)

    if tag == "tuple":
        return tuple(dec(v) for v in data["items"])
    if tag == "set":
        return {dec(v) for v in data["items"]}
    if tag == "frozenset":
        return frozenset(dec(v) for v in data["items"])
    if tag == "dict":
        return {dec(k): dec(v) for k, v in data["items"]}
    if tag in ("bytes", "bytearray"):
        raw = base64.b64decode(data["b64"])
        return raw if tag == "bytes" else bytearray(raw)
    if tag == "complex":
        return complex(data["re"], data["im"])
    if tag == "datetime":
        return _dt.datetime.fromisoformat(data["iso"])
    if tag == "date":
        return _dt.date.fromisoformat(data["iso"])
    if tag == "time":
        return _dt.time.fromisoformat(data["iso"])
    if tag == "timedelta":
        return _dt.timedelta(days=data["days"], seconds=data["seconds"], microseconds=data["us"])
    if tag == "decimal":
        return Decimal(data["s"])
    if tag == "fraction":
        return Fraction(data["s"])
    if tag == "type":
        if data.get("name") not in BUILTIN_TYPES:
            raise ProtocolError(f"unknown builtin type {str(data.get('name'))[:40]!r}")
        return getattr(builtins, data["name"])
    if tag == "repr":
        return UnserializableValue(str(data.get("type", "?")), str(data.get("repr", "")))
    if tag == "host_object":  # only the host sends these to a worker (its decoder refuses unknown ones)
        return host_object(int(data["id"]), str(data.get("type", "?")))
    if tag == "pickle":
        raise ProtocolError("refusing to unpickle: no pickle crosses between host and worker")
    if tag in ("ndarray", "ndarray_obj", "dataframe", "series", "image"):
        return _decode_optional(tag, data, dec)
    raise ProtocolError(f"unknown value tag {tag!r}")


def _decode_optional(tag: str, data: dict[str, Any], dec: Any) -> Any:
    """Values whose natural type needs numpy, pandas or PIL; without the library they degrade gracefully."""
    try:
        if tag == "image":
            png = base64.b64decode(data["png"])
            try:
                import io

                from PIL import Image  # type: ignore[import-not-found,import-untyped,unused-ignore]

                img = Image.open(io.BytesIO(png))
                img.load()
                return img
            except ImportError:
                return png
        import numpy as np  # type: ignore[import-not-found,import-untyped,unused-ignore]

        if tag == "ndarray":
            raw = base64.b64decode(data["b64"])
            return np.frombuffer(raw, dtype=np.dtype(data["dtype"])).reshape(data["shape"]).copy()
        if tag == "ndarray_obj":
            arr = np.empty(len(data["items"]) if data["shape"] else (), dtype=object)
            items = dec(data["items"])
            if not data["shape"]:
                arr[()] = items
                return arr
            arr = np.array(items, dtype=object)
            return arr.reshape(data["shape"]) if arr.size == int(np.prod(data["shape"])) else arr
        import pandas as pd  # type: ignore[import-not-found,import-untyped,unused-ignore]

        if tag == "series":
            s = pd.Series(dec(data["data"]), index=dec(data["index"]), name=dec(data["name"]))
            return _astype(s, data["dtype"])
        columns = dec(data["columns"])
        if data.get("by_column", True):
            cols = [dec(c) for c in data["data"]]
            df = pd.DataFrame(dict(zip(range(len(columns)), cols)), index=dec(data["index"]))
            df.columns = columns
        else:
            df = pd.DataFrame(dec(data["data"]), index=dec(data["index"]), columns=columns)
        df.index.name = dec(data.get("index_name"))
        for col, dtype in zip(df.columns, data["dtypes"]):
            with contextlib.suppress(Exception):
                df[col] = df[col].astype(dtype)
        return df
    except ImportError:
        return UnserializableValue(tag, f"<{tag} (numpy/pandas not installed on this side)>")


def _astype(series: Any, dtype: str) -> Any:
    try:
        return series.astype(dtype)
    except Exception:
        return series
