"""How the host reaches a worker: the `WorkerLink` contract, and the read loop every link shares.

Why a base class for the read loop: a link to a local process, to a container's attached stream and
to a remote sandbox's command all wait the same way: for the worker's next frame, for the driver's
wake-up descriptor (a coroutine tool finished), or for the deadline, whichever comes first, with the
worker's bytes bounded by the executor's frame limits before they are parsed. Written once in
`FramedLink`, a link says only what to wait on and how to take in what arrived; a fix to the loop
(a deadline, a wake-up, a limit) then reaches every executor.
"""

from __future__ import annotations

import select
import time
from abc import ABC, abstractmethod
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from smol_core.executors.worker.framing import FrameReader

if TYPE_CHECKING:
    from smol_core.executors.host.frames import ProtocolLimits

__all__ = ["FramedLink", "WorkerLink"]


class WorkerLink(Protocol):
    """A byte channel to one running worker, plus the means to kill it and say how it died."""

    @property
    def pid(self) -> int:
        """An identifier of the worker (a process id; containers may return their own)."""
        ...

    def send(self, message: dict[str, Any]) -> None:
        """Write one framed message; EOFError when the worker is gone."""
        ...

    def read(self, deadline: float | None, wake_fd: int | None = None) -> dict[str, Any] | None:
        """Next message; None when `wake_fd` became readable; TimeoutError past `deadline`; EOFError on close."""
        ...

    def alive(self) -> bool: ...

    def kill(self) -> None:
        """Stop the worker now (the running code with it). Idempotent."""
        ...

    def close(self) -> None:
        """Kill and release everything the link holds. Idempotent."""
        ...

    def stderr_tail(self, limit: int = 1500) -> str: ...

    def exit_description(self) -> str:
        """After the worker died on its own: how ("exit code 1", "killed by signal 9 (likely out of memory)")."""
        ...

    # Optional, found with getattr (a link without them gets the defaults):
    #   set_frame_limits(limits: ProtocolLimits) -> None: bound the link's frame reader by these limits
    #     (links use `FrameReader.untrusted()` by default);
    #   has_unread() -> bool: whether the worker sent bytes not yet read as a message (checked
    #     without waiting when an exchange ends, and between actions).


class Selectable(Protocol):
    """What `select` can wait on besides a file descriptor: a socket, a file."""

    def fileno(self) -> int: ...


class FramedLink(ABC):
    """A `WorkerLink`'s reading half: pending messages, the frame reader and its limits, and `read`.

    A subclass provides `_source` (what to wait on) and `_receive` (take in what arrived there,
    feeding the worker's bytes to `self._reader` and queueing the messages on `self._pending`; an
    EOFError when the stream ended), and may override `_next_message` to report an ended stream or
    a broken one once the queued messages are taken. The rest of `WorkerLink` is its own.
    """

    def __init__(self) -> None:
        self._reader = FrameReader.untrusted()  # the worker is hostile: bounded frames
        self._pending: deque[dict[str, Any]] = deque()

    @abstractmethod
    def _source(self) -> int | Selectable:
        """What `read` waits on for the worker's bytes (a pipe, a socket, a wake-up pipe)."""

    @abstractmethod
    def _receive(self) -> None:
        """Take in what `_source` has ready: messages onto `_pending`; EOFError when it ended."""

    def _next_message(self) -> dict[str, Any] | None:
        """The oldest message read and not yet taken, or None when there is none."""
        return self._pending.popleft() if self._pending else None

    def read(self, deadline: float | None, wake_fd: int | None = None) -> dict[str, Any] | None:
        """Next message; None when `wake_fd` became readable; TimeoutError past `deadline`.

        The reader's limits apply before a frame is buffered or parsed: ProtocolError when broken.
        """
        source = self._source()
        waits: list[int | Selectable] = [source] if wake_fd is None else [source, wake_fd]
        while True:
            message = self._next_message()
            if message is not None:
                return message
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                raise TimeoutError
            ready, _, _ = select.select(waits, [], [], timeout)
            if wake_fd is not None and wake_fd in ready:
                return None
            if source in ready:
                self._receive()

    def set_frame_limits(self, limits: ProtocolLimits) -> None:
        """Bound what is read from the worker by the executor's limits (before anything was read)."""
        self._reader = limits.reader()

    def has_unread(self) -> bool:
        """Whether the worker sent bytes not yet taken as a message (frames written out of turn)."""
        return bool(self._pending) or self._reader.buffered > 0
