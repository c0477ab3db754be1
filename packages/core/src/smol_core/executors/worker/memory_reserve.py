"""A few megabytes of address space the worker holds back for itself, given up when the code runs
out of memory.

Why: code that fills the memory limit and keeps what it filled (a list it appends to until a
`MemoryError`, which it catches or which leaves the list bound) left the worker nothing to format
the error or send the reply with. The worker died there (exit code 1, nothing said), and the code's
variables with it. Released at a `MemoryError`, the reserve gives the worker room to report it and
to serve the next action, where the code can `del` what it holds; it is taken back after each
reply, once there is room for it and as much again.

An anonymous mapping, never written: it counts against the worker's address-space limit
(RLIMIT_AS, the memory limit) but occupies no memory, and unmapping it gives the room back at once
(a `bytearray` would be zero-filled, 4 MB resident in every worker). Mapping is refused to the
code by the audit hook, so it is done under the worker's own `trusted` context. Where there is no
`mmap` (WebAssembly), there is no reserve.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

RESERVE_BYTES = 4 * 1024 * 1024

_reserve: Any = None


def hold(trusted: Callable[[], contextlib.AbstractContextManager[Any]]) -> None:
    """Take the reserve, if it is not held and there is room for it and as much again: taken with
    the memory nearly full, it would leave the next action (the code's `del`) no room to run."""
    global _reserve
    if _reserve is not None:
        return
    try:
        import mmap

        with trusted():
            mmap.mmap(-1, 2 * RESERVE_BYTES).close()
            _reserve = mmap.mmap(-1, RESERVE_BYTES)
    except (ImportError, OSError, ValueError, MemoryError):
        _reserve = None


def release() -> None:
    """Give the reserve back: the worker's room to finish what it is doing."""
    global _reserve
    if _reserve is not None:
        _reserve.close()
        _reserve = None
