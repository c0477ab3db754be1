"""One format for the files a run writes: a versioned header, one codec, one budget per file.

Why one: checkpoints and cassettes outlive the process that wrote them and are files someone may
hand you. Each starts with the same header (`{"format": "smol.checkpoint", "format_version": 1,
"smol_version": "0.4.2", ...}`), carries its values in the worker protocol's typed codec, and is
read back under one budget for the whole file: its bytes, the JSON values it may make (counted
before it is parsed), the bytes and pixels its values decode to, and their nesting. A budget per
value would let a file of a thousand small compressed images cost a thousand budgets.

What loads is decided by the format version alone: a file of this format version written by
another smol (a patch or minor upgrade with runs in flight) loads; another format version is
refused in one line that names both. Every field is checked (type, finite, range) before it is
used; whatever is wrong with a file comes out as one line of the kind's own error
(`CheckpointFormatError`, `CassetteError`), never a traceback.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from smol_core.errors import SmolError
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.untrusted import UntrustedDecoder
from smol_core.executors.worker.framing import count_elements
from smol_core.executors.worker.protocol import ProtocolError
from smol_core.version import __version__

FILE_ELEMENTS = 4_000_000
"""JSON values one file may hold (each is a Python object once parsed), and values it may decode to."""
FILE_DECODED_BYTES = 512 * 1024 * 1024
"""Bytes the values of one file may decode to, all together: binary data, arrays, and 4 per image pixel
(about 130 screenshots of 1280 x 720)."""
MAX_COUNT = 10**12
"""The largest step number, token count or size a file may hold (a larger one is not a real run's)."""


class FieldError(ValueError):
    """One field of a file is not what the format says (its type, range, or a non-finite number)."""


@dataclass(frozen=True)
class FileKind:
    """A kind of file in this format: its mark, its format version, and the error that reports it."""

    mark: str
    format_version: int
    noun: str
    error: type[SmolError]


def header(kind: FileKind) -> dict[str, Any]:
    """The fields every file of `kind` starts with."""
    return {"format": kind.mark, "format_version": kind.format_version, "smol_version": __version__}


def dumps(document: dict[str, Any]) -> bytes:
    """A document as compact UTF-8 JSON (values already in the typed codec)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=True).encode("utf-8")


def dump(kind: FileKind, body: dict[str, Any]) -> bytes:
    """A whole file of `kind`: its header, then `body`'s fields."""
    return dumps({**header(kind), **body})


def file_limits(max_bytes: int) -> ProtocolLimits:
    """The budget of one file of at most `max_bytes`."""
    return ProtocolLimits(
        max_frame_bytes=max_bytes, max_elements=FILE_ELEMENTS, max_decoded_bytes=FILE_DECODED_BYTES
    )


class FileReader:
    """One file being read: where it is (for messages), its kind, and the budget all its values share."""

    def __init__(self, kind: FileKind, where: str, max_bytes: int) -> None:
        self.kind = kind
        self.where = where
        self.max_bytes = max_bytes
        self.limits = file_limits(max_bytes)
        self._decoder = UntrustedDecoder(self.limits)

    def error(self, what: str) -> SmolError:
        """`where` and `what`, as one line of the kind's error."""
        return self.kind.error(f"{self.where} {_one_line(what)}")

    def corrupt(self, detail: str) -> SmolError:
        return self.error(f"is corrupt ({detail}): it cannot be used as it is; delete it or use another copy")

    def value(self, data: Any) -> Any:
        """A value in the typed codec, charged to the file's budget (the caller reports failures)."""
        return self._decoder.decode(data)

    def check_bytes(self, data: bytes) -> None:
        """The file's size and its number of JSON values, before anything is parsed."""
        if len(data) > self.max_bytes:
            raise self.error(f"is {len(data):,} bytes, over the {self.max_bytes:,} a {self.kind.noun} may be")
        limit = self.limits.max_elements
        if count_elements(data, limit) > limit:
            raise self.error(f"holds more than {limit:,} values, the limit of one {self.kind.noun}")

    def parse(self, text: bytes | str) -> Any:
        """One JSON document (a whole file, or one line of a JSON-lines file)."""
        try:
            return json.loads(text)
        except (UnicodeDecodeError, ValueError, RecursionError, MemoryError):
            raise self.corrupt("not valid JSON") from None

    def check_header(self, document: Any, version_key: str = "format_version") -> str:
        """The version of smol that wrote `document`, once its mark and format version are this smol's."""
        if type(document) is not dict or document.get("format") != self.kind.mark:
            raise self.error(f"is not a smol {self.kind.noun} (no {self.kind.mark!r} format mark)")
        written_by = document.get("smol_version", "")
        if type(written_by) is not str or len(written_by) > 40 or not written_by.isprintable():
            raise self.corrupt("its smol_version is not a version")
        version = document.get(version_key)
        if type(version) is not int or version != self.kind.format_version:
            shown = str(version)[:10] if type(version) is int else "unknown"
            writer = f"smol {written_by}" if written_by else "an unknown smol"
            raise self.error(
                f"is in {self.kind.noun} format version {shown} (written by {writer}); this is smol "
                f"{__version__}, which reads format version {self.kind.format_version}: "
                "use the smol that wrote it, or delete it"
            )
        return written_by

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Whatever goes wrong inside (a bad field, a value over budget, a library's own refusal)
        comes out as one line of the kind's error."""
        try:
            yield
        except SmolError as error:
            if isinstance(error, self.kind.error) and str(error).startswith(self.where):
                raise  # this reader's own (made by `error`): already one line that says where
            raise self.corrupt(_worded(error)) from None
        except (Exception, RecursionError) as error:
            raise self.corrupt(_worded(error)) from None


def over_budget(data: bytes, max_bytes: int) -> str | None:
    """What a reader's budget would refuse in `data`, said before it is kept (None: nothing).

    Why at write time: a file written past what its reader accepts (a checkpoint of 200 screenshots)
    would be kept in place of the last good one and never load again. Checked without parsing: the
    size, the JSON values (as the reader counts them), and what the values decode to: at most 3/4 of
    the file's bytes for base64 data, plus 4 bytes per pixel of each image, read from its PNG header.
    """
    if len(data) > max_bytes:
        return f"{len(data):,} bytes, over the {max_bytes:,} it may be"
    if len(data) >= FILE_ELEMENTS and count_elements(data, FILE_ELEMENTS) > FILE_ELEMENTS:
        # each value counted is at least one byte: a smaller file cannot hold too many
        return f"more than {FILE_ELEMENTS:,} values, the most it may hold"
    decoded = len(data) * 3 // 4 + image_bytes(data)
    if decoded > FILE_DECODED_BYTES:
        return f"values that decode to {decoded:,} bytes (images, binary data), over the {FILE_DECODED_BYTES:,} it may"
    return None


_PNG_KEY = b'"png":"'
_PNG_HEAD = 44  # base64 characters of a PNG's first 33 bytes: signature and IHDR with its size


def image_bytes(data: bytes) -> int:
    """4 bytes per pixel of every image in the typed codec within `data` (JSON text), as the reader
    charges them. A `"png":"` in JSON text is always a key (quotes inside strings are escaped); one
    that is no image's is skipped."""
    total, position = 0, data.find(_PNG_KEY)
    while position != -1:
        start = position + len(_PNG_KEY)
        try:
            head = base64.b64decode(data[start : start + _PNG_HEAD], validate=True)
        except (binascii.Error, ValueError):
            head = b""
        if head[12:16] == b"IHDR" and len(head) >= 24:
            width, height = struct.unpack_from(">II", head, 16)
            total += width * height * 4
        position = data.find(_PNG_KEY, start)
    return total


def _worded(error: BaseException) -> str:
    text = str(error).replace("from the worker", "in it").replace("the worker", "the file")
    if isinstance(error, FieldError | ProtocolError):  # already say what is wrong, in the file's terms
        return text[:300]
    return f"{type(error).__name__}: {text[:300]}"


def _one_line(text: str) -> str:
    return " ".join(text.split()) if ("\n" in text or "\r" in text) else text


# --- fields -------------------------------------------------------------------------------------
def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def text(value: Any, field: str, limit: int = 1_000_000, *, line: bool = False) -> str:
    """A string of at most `limit` characters (`line`: and no control characters)."""
    if type(value) is not str or len(value) > limit or (line and not value.isprintable()):
        kind = "a line of text" if line else "text"
        raise FieldError(f"its {field} is {_shown(value)}, not {kind} of at most {limit:,} characters")
    return value


def optional_text(value: Any, field: str, limit: int = 1_000_000) -> str | None:
    return None if value is None else text(value, field, limit)


def whole(value: Any, field: str, low: int = 0, high: int = MAX_COUNT) -> int:
    """An int (not a bool, not a float) from `low` to `high`."""
    if type(value) is not int or not low <= value <= high:
        raise FieldError(f"its {field} is {_shown(value)}, not a whole number from {low} to {high:,}")
    return value


def optional_whole(value: Any, field: str, low: int = 0, high: int = MAX_COUNT) -> int | None:
    return None if value is None else whole(value, field, low, high)


def real(value: Any, field: str) -> float:
    """A finite number (an int or a float; not a bool, NaN or an infinity)."""
    if type(value) is int and abs(value) <= 2**63:
        return float(value)
    if type(value) is not float or not math.isfinite(value):
        raise FieldError(f"its {field} is {_shown(value)}, not a finite number")
    return value


def flag(value: Any, field: str) -> bool:
    if type(value) is not bool:
        raise FieldError(f"its {field} is {_shown(value)}, not true or false")
    return value


def choice(value: Any, field: str, options: frozenset[str]) -> str:
    if type(value) is not str or value not in options:
        raise FieldError(f"its {field} is {_shown(value)}, not one of {sorted(options)}")
    return value


def listed(value: Any, field: str, limit: int = FILE_ELEMENTS) -> list[Any]:
    if type(value) is not list or len(value) > limit:
        raise FieldError(f"its {field} is {_shown(value)}, not a list")
    return value


def mapping(value: Any, field: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise FieldError(f"its {field} is {_shown(value)}, not an object")
    return value
