"""Decoding the values a worker sends, on the host: by exact type, under a budget and a deadline.

Why not `protocol.decode`: that decoder serves the worker, which trusts its host. Here every value
comes from code that may be hostile, and a small frame must not become a big cost: `1E999999999` as a
Decimal, an array whose shape claims more than its bytes, a Series whose one value is broadcast to a
long index, a PNG that is really EPS (Ghostscript) or a decompression bomb, a set of ints that all
hash alike. So each kind is checked before it is built, values count against `max_elements`, binary
data against `max_decoded_bytes`, the clock against the action's deadline, and any failure, of ours
or of a library's, is a `ProtocolError` (the host then replaces the worker).

Plain lists and dicts are decoded in place: the objects the JSON parser made are kept, not copied.
"""

from __future__ import annotations

import base64
import builtins
import datetime as _dt
import importlib
import io
import re
import struct
import sys
import time
from decimal import Decimal
from fractions import Fraction
from typing import Any

from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.held import HeldObjects
from smol_core.executors.worker.protocol import BUILTIN_TYPES, TAG, ProtocolError, UnserializableValue

__all__ = ["UntrustedDecoder", "decode_untrusted", "png_checked"]

_CHECK_EVERY = 256  # values between two looks at the clock
_ISO_MAX = 64
_NUMERIC_DTYPE = re.compile(
    r"[<>|=]?(?:b1|[iu][1248]|f(?:2|4|8|16)|c(?:8|16|32)|[SU][1-9][0-9]{0,6}"
    r"|[mM]8(?:\[[0-9]{0,3}(?:Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\])?)"
)
_PANDAS_DTYPE = re.compile(
    r"u?int(?:8|16|32|64)|U?Int(?:8|16|32|64)|float(?:16|32|64)|Float(?:32|64)|complex(?:64|128)"
    r"|bool|boolean|object|string|category|(?:datetime|timedelta)64\[(?:s|ms|us|ns)(?:, [\w/+:-]{1,40})?\]"
)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,9})?|[+-]?(?:NaN|Infinity)")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_KEEP = frozenset({b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"})
_LIBRARIES = {
    "ndarray": "numpy",
    "ndarray_obj": "numpy",
    "dataframe": "pandas",
    "series": "pandas",
    "image": "PIL.Image",
}
_OPTIONAL = frozenset(_LIBRARIES)


def decode_untrusted(
    data: Any, limits: ProtocolLimits, deadline: float | None, held: HeldObjects | None = None
) -> Any:
    """The value `data` (parsed JSON from a worker) stands for; ProtocolError if it breaks a rule.

    `held`: the objects the host handed to this worker's code; a handle to one of them decodes to
    the object itself. Without it (a file, another worker), any handle is a ProtocolError."""
    return UntrustedDecoder(limits, deadline, held).decode(data)


class UntrustedDecoder:
    """One budget (values, decoded bytes and pixels, the clock) spent by every value it decodes.

    Why shared: a budget per value lets many small values each take the whole of it. A worker's
    message is decoded under one; a file someone may hand you (a checkpoint, a cassette) under one
    for the whole file (`durable/file_format.py`), so a thousand small compressed images in it cost
    at most `max_decoded_bytes` together, not each.
    """

    def __init__(
        self, limits: ProtocolLimits, deadline: float | None = None, held: HeldObjects | None = None
    ) -> None:
        self.limits = limits
        self.held = held
        self.deadline = deadline
        self.elements = 0
        self.next_check = _CHECK_EVERY
        self.spent = 0

    def decode(self, data: Any) -> Any:
        """The value `data` stands for, charged to this budget; ProtocolError if it breaks a rule."""
        try:
            return self.value(data, 0)
        except ProtocolError:
            raise
        except (Exception, RecursionError) as exc:  # a library's own refusal of a malformed value
            raise ProtocolError(
                f"a value from the worker could not be decoded ({type(exc).__name__})"
            ) from None

    # --- budgets ---------------------------------------------------------------------------
    def tick(self, n: int = 1) -> None:
        self.elements += n
        if self.elements >= self.next_check:
            self.next_check = self.elements + _CHECK_EVERY
            if self.elements > self.limits.max_elements:
                raise ProtocolError(
                    f"a value from the worker holds more than {self.limits.max_elements} values"
                )
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise ProtocolError("a value from the worker took past the action's deadline to decode")

    def spend(self, n: int) -> None:
        self.spent += n
        if self.spent > self.limits.max_decoded_bytes:
            raise ProtocolError(
                f"values from the worker decode to more than {self.limits.max_decoded_bytes} bytes"
            )

    def b64(self, text: Any) -> bytes:
        if type(text) is not str:
            raise ProtocolError("binary data from the worker is not base64 text")
        self.spend(len(text) * 3 // 4)
        return base64.b64decode(text, validate=True)

    # --- values ----------------------------------------------------------------------------
    def value(self, data: Any, depth: int) -> Any:
        self.tick()
        cls = type(data)
        if cls is str or cls is int or cls is float or cls is bool or data is None:
            return data
        if depth > self.limits.max_depth:
            raise ProtocolError(f"a value from the worker is nested more than {self.limits.max_depth} deep")
        if cls is list:
            for i, item in enumerate(data):
                data[i] = self.value(item, depth + 1)
            return data
        if cls is dict:
            tag = data.get(TAG)
            if tag is None:
                for key, item in data.items():
                    data[key] = self.value(item, depth + 1)
                return data
            return self.tagged(tag, data, depth + 1)
        raise ProtocolError(f"unexpected {cls.__name__} in a value from the worker")

    def items(self, data: dict[str, Any], depth: int, field: str = "items") -> list[Any]:
        items = data.get(field)
        if type(items) is not list:
            raise ProtocolError(f"a tagged value from the worker has no list {field!r}")
        return [self.value(item, depth + 1) for item in items]

    def tagged(self, tag: Any, data: dict[str, Any], depth: int) -> Any:
        if tag == "tuple":
            return tuple(self.items(data, depth))
        if tag in ("set", "frozenset"):
            return self.hashed(tag, self.items(data, depth))
        if tag == "dict":
            return self.mapping(self.items(data, depth))
        if tag in ("bytes", "bytearray"):
            raw = self.b64(data.get("b64"))
            return raw if tag == "bytes" else bytearray(raw)
        if tag == "complex":
            return complex(_number(data.get("re")), _number(data.get("im")))
        if tag == "datetime":
            return _dt.datetime.fromisoformat(_short_str(data.get("iso"), _ISO_MAX))
        if tag == "date":
            return _dt.date.fromisoformat(_short_str(data.get("iso"), _ISO_MAX))
        if tag == "time":
            return _dt.time.fromisoformat(_short_str(data.get("iso"), _ISO_MAX))
        if tag == "timedelta":
            days, seconds, us = (_int(data.get(k)) for k in ("days", "seconds", "us"))
            return _dt.timedelta(days=days, seconds=seconds, microseconds=us)
        if tag == "decimal":
            return self.decimal(data.get("s"))
        if tag == "fraction":
            return self.fraction(data.get("s"))
        if tag == "type":  # a builtin class, by a name from a fixed list: nothing of the worker's is built
            name = data.get("name")
            if type(name) is not str or name not in BUILTIN_TYPES:
                raise ProtocolError(f"the worker sent an unknown builtin type {str(name)[:40]!r}")
            return getattr(builtins, name)
        if tag == "repr":
            return UnserializableValue(
                _short_str(data.get("type", "?"), 1000), _short_str(data.get("repr", ""), 100_000)
            )
        if tag == "pickle":
            raise ProtocolError("the worker sent a pickle; the host never unpickles")
        if tag == "host_object":  # only a handle this host gave out: never an object made from the frame
            handle = data.get("id")
            if self.held is None or type(handle) is not int or handle not in self.held:
                raise ProtocolError("the worker sent a handle to a host object it was never given")
            return self.held.get(handle)
        if tag in _OPTIONAL:
            return self.optional(tag, data, depth)
        raise ProtocolError(f"unknown value tag {str(tag)[:40]!r} from the worker")

    def hashed(self, tag: str, items: list[Any]) -> set[Any] | frozenset[Any]:
        """Built one by one, counting keys that hash alike: those make each insertion slower."""
        out: set[Any] = set()
        alike: dict[int, int] = {}
        for n, item in enumerate(items):
            size = len(out)
            out.add(item)
            if len(out) != size:
                self.count_alike(alike, item)
            if n % 64 == 63:
                self.tick(64)
        return out if tag == "set" else frozenset(out)

    def mapping(self, pairs: list[Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        alike: dict[int, int] = {}
        for n, pair in enumerate(pairs):
            if type(pair) is not list or len(pair) != 2:
                raise ProtocolError("a dict item from the worker is not a [key, value] pair")
            size = len(out)
            out[pair[0]] = pair[1]
            if len(out) != size:
                self.count_alike(alike, pair[0])
            if n % 64 == 63:
                self.tick(64)
        return out

    def count_alike(self, alike: dict[int, int], key: Any) -> None:
        """Refuses a set or dict once too many of its distinct keys share one hash.

        Why not only the clock: a deadline catches a slow decode on a slow host, but how slow
        depends on the machine, and each colliding insertion costs more than the last. Counting is
        exact, and stops the quadratic build after `max_alike_hashes` keys whatever the hardware.
        """
        key_hash = hash(key)
        seen = alike.get(key_hash, 0) + 1
        if seen > self.limits.max_alike_hashes:
            raise ProtocolError(
                f"a set or dict from the worker has more than {self.limits.max_alike_hashes} keys "
                "with the same hash (a hash-collision attack)"
            )
        alike[key_hash] = seen

    def decimal(self, text: Any) -> Decimal:
        text = _short_str(text, self.limits.max_number_digits + 16)
        if not _DECIMAL.fullmatch(text):
            raise ProtocolError("a Decimal from the worker is not a plain number")
        value = Decimal(text)
        if value.is_finite() and (
            abs(value.adjusted()) > self.limits.max_exponent
            or len(value.as_tuple().digits) > self.limits.max_number_digits
        ):
            raise ProtocolError("a Decimal from the worker is beyond the digit or exponent limits")
        return value

    def fraction(self, text: Any) -> Fraction:
        digits = self.limits.max_number_digits
        text = _short_str(text, 2 * digits + 2)
        if not re.fullmatch(rf"-?[0-9]{{1,{digits}}}(?:/[0-9]{{1,{digits}}})?", text):
            raise ProtocolError("a Fraction from the worker is not 'n/d' within the digit limit")
        return Fraction(text)

    # --- values that need numpy, pandas or PIL ---------------------------------------------
    def load_library(self, name: str) -> None:
        """Import numpy, pandas or PIL with the clock stopped: a first import takes a second or more
        on a loaded host, and an action's deadline is for what the worker's values cost to decode,
        not for the host's own start-up. A value that legitimately needs pandas must not become a
        protocol violation (and a killed worker) because it was the first one."""
        if name in sys.modules:
            return
        started = time.monotonic()
        try:
            importlib.import_module(name)
        except ImportError:
            return  # the decoder's own import says so, where it is handled
        finally:
            if self.deadline is not None:
                self.deadline += time.monotonic() - started

    def optional(self, tag: str, data: dict[str, Any], depth: int) -> Any:
        self.load_library(_LIBRARIES[tag])
        try:
            if tag == "image":
                return self.image(data)
            if tag == "ndarray":
                return self.ndarray(data)
            if tag == "ndarray_obj":
                return self.ndarray_obj(data, depth)
            if tag == "series":
                return self.series(data, depth)
            return self.dataframe(data, depth)
        except ImportError:
            return UnserializableValue(tag, f"<{tag} (numpy/pandas/PIL not installed on the host)>")

    def image(self, data: dict[str, Any]) -> Any:
        png, width, height = png_checked(self.b64(data.get("png")), self.limits.max_image_pixels)
        self.spend(width * height * 4)
        try:
            from PIL import Image  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            return png
        img = Image.open(io.BytesIO(png), formats=["PNG"])
        if img.format != "PNG" or img.size != (width, height):
            raise ProtocolError("an image from the worker is not the PNG it claims to be")
        img.load()
        return img

    def ndarray(self, data: dict[str, Any]) -> Any:
        import numpy as np  # type: ignore[import-not-found,import-untyped,unused-ignore]

        spec = _short_str(data.get("dtype"), 32)
        if not _NUMERIC_DTYPE.fullmatch(spec):
            raise ProtocolError(f"an array from the worker has a refused dtype {spec!r}")
        dtype = np.dtype(spec)
        if dtype.hasobject or dtype.fields is not None or dtype.itemsize == 0:
            raise ProtocolError("an array from the worker has a refused dtype")
        shape = _shape(data.get("shape"))
        raw = self.b64(data.get("b64"))
        count = 1
        for dim in shape:
            count *= dim
        if count * dtype.itemsize != len(raw):
            raise ProtocolError("an array from the worker has a shape that does not match its bytes")
        return np.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)

    def ndarray_obj(self, data: dict[str, Any], depth: int) -> Any:
        import numpy as np

        shape = _shape(data.get("shape"))
        items = self.items(data, depth)
        if not shape:
            scalar = np.empty((), dtype=object)
            scalar[()] = items
            return scalar
        arr = np.empty(len(items), dtype=object)
        for i, item in enumerate(items):
            arr[i] = item
        count = 1
        for dim in shape:
            count *= dim
        return arr.reshape(shape) if len(shape) == 1 and count == len(items) else arr

    def series(self, data: dict[str, Any], depth: int) -> Any:
        import pandas as pd  # type: ignore[import-not-found,import-untyped,unused-ignore]

        index = self.value(data.get("index"), depth + 1)
        values = self.value(data.get("data"), depth + 1)
        _same_length(values, index)
        series = pd.Series(values, index=index, name=self.value(data.get("name"), depth + 1))
        return _astype(series, data.get("dtype"))

    def dataframe(self, data: dict[str, Any], depth: int) -> Any:
        import pandas as pd

        columns = self.value(data.get("columns"), depth + 1)
        index = self.value(data.get("index"), depth + 1)
        if type(columns) is not list or type(index) is not list:
            raise ProtocolError("a DataFrame from the worker has no list of columns or index")
        body = self.value(data.get("data"), depth + 1)
        if type(body) is not list:
            raise ProtocolError("a DataFrame from the worker has no list of data")
        if data.get("by_column", True) is True:
            if len(body) != len(columns):
                raise ProtocolError("a DataFrame from the worker has more or fewer columns than names")
            for column in body:
                _same_length(column, index)
            frame = pd.DataFrame(dict(zip(range(len(columns)), body, strict=True)), index=index)
            frame.columns = columns
        else:
            _same_length(body, index)
            for row in body:
                _same_length(row, columns)
            frame = pd.DataFrame(body, index=index, columns=columns)
        frame.index.name = self.value(data.get("index_name"), depth + 1)
        dtypes = data.get("dtypes")
        if type(dtypes) is list:
            for n, dtype in enumerate(dtypes[: len(columns)]):
                frame.isetitem(n, _astype(frame.iloc[:, n], dtype))
        return frame


def png_checked(raw: bytes, max_pixels: int) -> tuple[bytes, int, int]:
    """The PNG's critical chunks only (ancillary text and profiles can be bombs), with its size.

    Refuses anything that is not a PNG (no other format is ever sniffed), and sizes beyond `max_pixels`
    before a single pixel is decoded.
    """
    if not raw.startswith(_PNG_SIGNATURE):
        raise ProtocolError("an image from the worker is not a PNG")
    pos, kept, size, ended = len(_PNG_SIGNATURE), [_PNG_SIGNATURE], None, False
    while pos + 12 <= len(raw) and not ended:
        length, kind = struct.unpack_from(">I4s", raw, pos)
        end = pos + 12 + length
        if end > len(raw) or (size is None and kind != b"IHDR"):
            raise ProtocolError("an image from the worker is a malformed PNG")
        if kind == b"IHDR" and size is None and length == 13:
            size = struct.unpack_from(">II", raw, pos + 8)
        if kind in _PNG_KEEP:
            kept.append(raw[pos:end])
        ended = kind == b"IEND"
        pos = end
    if size is None or not ended:
        raise ProtocolError("an image from the worker is a truncated PNG")
    width, height = size
    if width == 0 or height == 0 or width * height > max_pixels:
        raise ProtocolError(f"an image from the worker is {width}x{height}, beyond {max_pixels} pixels")
    return b"".join(kept), width, height


def _short_str(value: Any, limit: int) -> str:
    if type(value) is not str or len(value) > limit:
        raise ProtocolError("a tagged value from the worker has a missing or overlong text field")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise ProtocolError("a tagged value from the worker has a field that is not an int")
    return value


def _number(value: Any) -> float | int:
    if type(value) is not float and type(value) is not int:
        raise ProtocolError("a complex number from the worker has a part that is not a number")
    return value


def _shape(value: Any) -> list[int]:
    if type(value) is not list or len(value) > 32 or any(type(d) is not int or d < 0 for d in value):
        raise ProtocolError("an array from the worker has a malformed shape")
    return value


def _same_length(values: Any, index: list[Any]) -> None:
    """Data and index of a Series/column must match: a scalar would be broadcast to the whole index."""
    if not hasattr(values, "__len__") or isinstance(values, str | bytes | dict) or len(values) != len(index):
        raise ProtocolError("a Series or DataFrame from the worker has data and index of different lengths")


def _astype(series: Any, dtype: Any) -> Any:
    if type(dtype) is not str or not _PANDAS_DTYPE.fullmatch(dtype):
        return series
    try:
        return series.astype(dtype)
    except Exception:
        return series
