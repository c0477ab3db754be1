"""A few megabytes the worker holds back for itself, given up when the code runs out of memory.

Why: code that fills the memory limit and keeps what it filled (a list it appends to until a
`MemoryError`, which it catches or which leaves the list bound) left the worker nothing to format
the error or send the reply with. The worker died there (exit code 1, nothing said), and the code's
variables with it. Released at a `MemoryError`, the reserve gives the worker room to report it and
to serve the next action, where the code can `del` what it holds; it is taken back after each
reply, once there is room again. It is address space only (never written), so it costs no memory
the machine has to find, only a little of the worker's limit.
"""

from __future__ import annotations

import contextlib

RESERVE_BYTES = 4 * 1024 * 1024

_reserve: bytearray | None = None


def hold() -> None:
    """Take the reserve, if it is not held and there is room for it and as much again: taken with
    the memory nearly full, it would leave the next action (the code's `del`) no room to run."""
    global _reserve
    if _reserve is None:
        try:
            room = bytearray(2 * RESERVE_BYTES)
        except MemoryError:
            return
        del room
        with contextlib.suppress(MemoryError):
            _reserve = bytearray(RESERVE_BYTES)


def release() -> None:
    """Give the reserve back to the allocator: the worker's room to finish what it is doing."""
    global _reserve
    _reserve = None
