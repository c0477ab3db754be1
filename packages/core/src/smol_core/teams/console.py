"""Console lines of a team: each agent's lines start with its id, so N agents on one terminal read apart."""

from __future__ import annotations

import sys
import threading
from typing import IO


class PrefixedStream:
    """A text stream that writes `prefix` at the start of every line, then passes the text on.

    What passes through was escaped already by the agent's logger; the prefix is ours. Writes are
    whole lines where the caller gives them (print does), so lines of two agents do not interleave
    mid-line on a shared terminal.
    """

    def __init__(self, prefix: str, target: IO[str] | None = None) -> None:
        self.prefix = prefix
        self._target = target
        self._at_line_start = True
        self._lock = threading.Lock()

    @property
    def target(self) -> IO[str]:
        return self._target if self._target is not None else sys.stderr

    def write(self, text: str) -> int:
        with self._lock:
            out: list[str] = []
            for piece in text.splitlines(keepends=True):
                if self._at_line_start:
                    out.append(self.prefix)
                out.append(piece)
                self._at_line_start = piece.endswith("\n")
            self.target.write("".join(out))
            if self._at_line_start:
                self.target.flush()
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())
