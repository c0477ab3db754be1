"""Reading a file a user was handed (a trace, a team run): bounded before anything is parsed.

Why one module: `smol trace` and `smol team` show files that come from anywhere (a colleague, a CI
artifact, a download), and both went wrong the same ways: a 50 MB file took gigabytes once parsed
whole, a deep chain of brackets or spans overflowed the stack, a FIFO or `/dev/zero` never ended.
So a viewer opens the file here (a regular file only, its size checked before it is read and again
while it is read), reads it in lines of bounded length, and hands each piece of JSON to
`loads_shaped`, which counts the values and the nesting of the text in one linear pass *before* the
decoder builds a single object. Anything past a bound is a one-line `UntrustedFileError`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from smol_core.errors import SmolError
from smol_core.json_limits import MAX_JSON_DEPTH, JSONLimitError, loads_bounded
from smol_core.terminal import escape_controls

__all__ = [
    "UntrustedFileError",
    "json_shape",
    "loads_shaped",
    "open_untrusted",
    "read_untrusted",
    "untrusted_lines",
]

# One JSON token the shape count looks at: a whole string (skipped over, with its escapes), or a
# bracket or comma. Every value but the first of a container follows a comma or an opening bracket.
# A string that never ends runs to the end of the text (and a lone backslash is taken as an escape):
# each attempt then succeeds and consumes what it read, so the pass stays linear on any input.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.?[^"\\]*)*(?:"|\Z)|[\[\]{},]', re.DOTALL)


class UntrustedFileError(SmolError, ValueError):
    """A file a viewer was given that it will not read: too large, too deep, not a file, not text."""


def _shown(path: str | os.PathLike[str]) -> str:
    return escape_controls(str(path)).replace("\n", "\\n")


def open_untrusted(path: str | os.PathLike[str], max_bytes: int) -> IO[bytes]:
    """`path` opened for reading in binary, if it is a regular file of at most `max_bytes` (a FIFO,
    a device or `/dev/zero` would never end)."""
    source = Path(path)
    try:
        # non-blocking: opening a FIFO would otherwise wait for a writer before anything is checked
        descriptor = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise UntrustedFileError(f"Cannot read {_shown(source)}: {error.strerror or error}.") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedFileError(f"{_shown(source)} is not a regular file.")
        if info.st_size > max_bytes:
            raise UntrustedFileError(
                f"{_shown(source)} is {info.st_size} bytes; this viewer reads at most {max_bytes}."
            )
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_untrusted(path: str | os.PathLike[str], max_bytes: int) -> str:
    """The whole text of `path` (UTF-8), at most `max_bytes` whatever its size said when opened."""
    with open_untrusted(path, max_bytes) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise UntrustedFileError(f"{_shown(path)} grew past {max_bytes} bytes while it was read.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UntrustedFileError(f"{_shown(path)} is not UTF-8 text (byte {error.start}).") from None


def untrusted_lines(
    path: str | os.PathLike[str], max_bytes: int, max_line_bytes: int
) -> Iterator[str | None]:
    """The lines of `path` as text (undecodable bytes replaced), one at a time; a line longer than
    `max_line_bytes` is never held whole: it is skipped and yields None in its place. Stops after
    `max_bytes` in all."""
    with open_untrusted(path, max_bytes) as handle:
        total = 0
        while total <= max_bytes:
            line = handle.readline(max_line_bytes + 1)
            if not line:
                return
            total += len(line)
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                while True:  # the rest of the long line, read in bounded pieces and dropped
                    rest = handle.readline(max_line_bytes)
                    total += len(rest)
                    if not rest or rest.endswith(b"\n") or total > max_bytes:
                        break
                yield None
                continue
            yield line.decode("utf-8", errors="replace")


def json_shape(text: str, max_values: int, max_depth: int = MAX_JSON_DEPTH) -> tuple[int, int]:
    """How many values and how deep the JSON `text` would be once decoded, counted without decoding
    it (one linear pass; stops as soon as a bound is passed): `JSONLimitError` past a bound."""
    values = 1
    depth = deepest = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            values += 1
            if depth > max_depth:
                raise JSONLimitError(f"the JSON is nested more than {max_depth} levels deep")
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
        elif token == ",":
            values += 1
        if values > max_values:
            raise JSONLimitError(f"the JSON holds more than {max_values} values")
    return values, deepest


def loads_shaped(text: str, max_values: int, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads(text)` for text from a file: its shape is checked first (`json_shape`), so a
    refused text costs no memory beyond itself. `JSONLimitError` or `json.JSONDecodeError` (both
    `ValueError`s) for a text that is refused or is not JSON."""
    json_shape(text, max_values, max_depth)
    return loads_bounded(text, max_depth)


def decode_error(error: json.JSONDecodeError) -> str:
    """A decoder's error in one line, without the text it was decoding."""
    return f"{error.msg} at line {error.lineno} column {error.colno}"
