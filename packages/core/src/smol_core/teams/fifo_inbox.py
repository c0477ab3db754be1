"""An agent's inbox as a named pipe (FIFO) in a private folder: what the `local` transport's own
inboxes are made of.

Why not multiprocessing queues (as before): every agent of a team may message every other, so each
was handed every inbox as it started: two pipe descriptors per inbox passed through the fork server
and three named semaphores reopened per inbox. That was about 3 ms of each agent's start in a team
of 64, growing with the team's size for every agent (so with its square for the team), and a team
of more than about 120 agents could not fork from the server at all (it passes 256 descriptors per
child). A FIFO is opened by its path, by whoever uses it, when it first does: an agent starts
holding nothing but paths, and opens the inboxes it writes to.

The wire: a message goes out as chunks of at most `PIPE_BUF` bytes, which the kernel writes whole
(a pipe write of at most `PIPE_BUF` bytes is never interleaved with another's), so writers need no
lock between them. A chunk's header names its writer (a random 32-bit id drawn by each process for
each inbox it writes to: a pid, as before, is reused once its process is gone, and a dead writer's
half-sent message would have swallowed the first chunks of the next process to get its pid), and the
reader puts each writer's chunks back together. A writer never blocks: what the pipe has no room for waits, in order, for a
flusher thread of the writing process (as multiprocessing's feeder thread did), and the process's
exit waits for it to be written (bounded by `EXIT_FLUSH_SECONDS`).

Who holds what open: the inbox's maker (the team's host, which also owns the folder) keeps each
FIFO open for reading and writing while the team lives, so an agent can open a peer's inbox before
that peer has started (a FIFO with no reader refuses a writer that will not wait for one); the
owner opens its own for reading and writing too, so its reads never see an end of file.
Only the maker's user can reach the folder (0700), and every message is sealed by its sender's
key anyway (identity.py): whatever a chunk's header says, the reader's checks decide.

A journaled inbox (`journal=True`, a durable team's) can give again what its reader took: a pipe
hands each byte over once, so a reader that died with messages read and not yet kept anywhere lost
them. Here every byte the reader takes from the pipe is first appended to a file beside it
(`PATH.taken`); the owner says when everything handed over has been dealt with (`settle`), and the
file is emptied then. A new reader (the agent started again after its process died) reads the file
first, so it is handed again what the dead one had taken and not settled: at-least-once, as a
transport with acknowledgements gives, and the receiver drops what it had handed over already.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import os
import queue
import secrets
import select
import stat
import struct
import threading
import time
from multiprocessing import util
from typing import Any

__all__ = ["EXIT_FLUSH_SECONDS", "FifoInbox", "InboxGoneError"]

_HEADER = struct.Struct("<IHB")  # writer id, payload bytes, flags
_LAST, _BYTES = 1, 2  # flags: the message's last chunk; the message is bytes, not text
_CHUNK_PAYLOAD = select.PIPE_BUF - _HEADER.size
_READ_SIZE = 1 << 16
_MAX_PARTIAL = 256
"""Writers whose message a reader is putting together at once. The header's writer id is whatever the
writer wrote: past this many, the oldest is cut (and refused), so the reader holds at most this many
messages' worth of partial bytes."""
_MAX_READY = 4096
"""Whole messages a reader holds that the agent has not taken yet: past this many it leaves the
rest in the pipe, whose writers then wait (a flood is held by the kernel and its senders, not here)."""
JOURNAL_COMPACT_BYTES = 1 << 20
"""A journal past this size is rewritten, when its inbox is settled, to hold only what the reader
still holds: a reader that always has more read ahead (a steady stream) is never empty, and its
journal would otherwise grow for as long as the stream lasts, and be read whole by a new reader."""
EXIT_FLUSH_SECONDS = 30.0
"""How long a process's exit waits for the messages it sent that the pipe had no room for yet."""


class InboxGoneError(OSError):
    """The inbox's FIFO is gone (its team ended) or nobody holds it open any more."""


class FifoInbox:
    """One agent's inbox: `put`/`put_nowait` in any process, `get`/`get_nowait` in its owner's.

    The queue-like methods are those the `local` transport uses (and smolagents' code calls on its
    own queues). Text goes out as UTF-8; bytes as they are (what a hostile peer could write, refused
    by the receiver's checks). Pickles as its path: each process opens what it uses.
    """

    def __init__(self, path: str, max_message_bytes: int, make: bool = False, journal: bool = False) -> None:
        self.path = path
        self.max_message_bytes = max_message_bytes
        """A message longer than this (its chunks put together) is cut there and handed over as
        bytes, which the receiver refuses; the reader never holds more for one writer."""
        self.journal = journal
        self._keeper: int | None = None
        self._writer: _Writer | None = None
        self._reader: _Reader | None = None
        self._lock = threading.Lock()
        if make:
            os.mkfifo(path, 0o600)
            self._keeper = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "max_message_bytes": self.max_message_bytes, "journal": self.journal}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["max_message_bytes"], journal=state.get("journal", False))  # type: ignore[misc]

    # --- writing ------------------------------------------------------------------------------

    def put(self, item: str | bytes, block: bool = True, timeout: float | None = None) -> None:
        """Send `item`; returns at once (what the pipe cannot take yet is written in the background)."""
        writer = self._writing()
        writer.write(_frames(item, writer.writer_id))

    def put_nowait(self, item: str | bytes) -> None:
        self.put(item, block=False)

    def _writing(self) -> _Writer:
        with self._lock:
            if self._writer is not None and self._writer.pid != os.getpid():
                self._writer = None  # a forked child's copy: its own end, its own id, its own flusher
            if self._writer is None:
                self._writer = _Writer(self.path)
            return self._writer

    # --- reading ------------------------------------------------------------------------------

    def get(self, block: bool = True, timeout: float | None = None) -> str | bytes:
        """The next whole message; `queue.Empty` when none came within `timeout` (or at once)."""
        with self._lock:
            if self._reader is None:
                self._reader = _Reader(self.path, self.max_message_bytes, self.journal)
            reader = self._reader
        return reader.next_message(timeout if block else 0.0)

    def settle(self) -> None:
        """Everything handed over so far has been dealt with: a journaled inbox forgets it (unless the
        reader still holds part of a message, or whole ones not handed over yet)."""
        with self._lock:
            reader = self._reader
        if reader is not None:
            reader.settle()

    def get_nowait(self) -> str | bytes:
        return self.get(block=False)

    # --- ending -------------------------------------------------------------------------------

    def close(self, flush_seconds: float = EXIT_FLUSH_SECONDS) -> None:
        """Release this process's ends: what it sent is written first (for at most `flush_seconds`)."""
        with self._lock:
            writer, reader, keeper = self._writer, self._reader, self._keeper
            self._writer = self._reader = self._keeper = None
        if writer is not None:
            writer.close(flush_seconds)
        if reader is not None:
            reader.close()
        if keeper is not None:
            os.close(keeper)


def _wait_for(fd: int, event: int, seconds: float | None) -> None:
    """Until `fd` is ready for `event` or `seconds` pass (poll: any descriptor number, unlike select)."""
    poller = select.poll()
    poller.register(fd, event)
    poller.poll(None if seconds is None else max(0, int(seconds * 1000) + 1))


def _frames(item: str | bytes, writer_id: int) -> list[bytes]:
    """`item` as chunks of at most PIPE_BUF bytes, each written whole by the kernel."""
    if isinstance(item, str):
        data, kind = item.encode("utf-8", "surrogatepass"), 0
    elif isinstance(item, bytes | bytearray):
        data, kind = bytes(item), _BYTES
    else:
        raise TypeError(f"an inbox carries text or bytes, not {type(item).__name__}")
    chunks = [data[at : at + _CHUNK_PAYLOAD] for at in range(0, len(data), _CHUNK_PAYLOAD)] or [b""]
    last = len(chunks) - 1
    return [
        _HEADER.pack(writer_id, len(chunk), kind | (_LAST if n == last else 0)) + chunk
        for n, chunk in enumerate(chunks)
    ]


class _Writer:
    """This process's writing end of one inbox: chunks in order, never blocking the sender."""

    def __init__(self, path: str) -> None:
        try:
            self.fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:  # ENOENT: the team's folder went; ENXIO: nobody reads it any more
            code = error.errno or errno.EIO
            raise InboxGoneError(code, f"the inbox at {path} is gone ({os.strerror(code)})") from None
        if not stat.S_ISFIFO(os.fstat(self.fd).st_mode):
            os.close(self.fd)
            raise InboxGoneError(errno.EINVAL, f"{path} is not an inbox (not a FIFO)")
        self.pid = os.getpid()
        self.writer_id = secrets.randbits(32)
        self.pending: collections.deque[bytes] = collections.deque()
        self.lock = threading.Condition()
        self.flusher: threading.Thread | None = None
        self.broken: OSError | None = None
        # at exit (multiprocessing's children run no atexit handlers, but do run these)
        self._finalizer = util.Finalize(self, _Writer._flush_at_exit, args=(self,), exitpriority=-5)

    def write(self, chunks: list[bytes]) -> None:
        with self.lock:
            if self.broken is not None:
                raise InboxGoneError(self.broken.errno, f"the inbox is gone ({self.broken.strerror})")
            if not self.pending:
                chunks = self._write_now(chunks)
            if chunks:
                self.pending.extend(chunks)
                if self.flusher is None:
                    self.flusher = threading.Thread(target=self._flush, name="smol-inbox-flush", daemon=True)
                    self.flusher.start()

    def _write_now(self, chunks: list[bytes]) -> list[bytes]:
        """Write what the pipe takes now; returns the rest (from the first chunk it had no room for)."""
        for n, chunk in enumerate(chunks):
            try:
                os.write(self.fd, chunk)  # at most PIPE_BUF bytes: all or nothing (EAGAIN)
            except BlockingIOError:
                return chunks[n:]
        return []

    def _flush(self) -> None:
        while True:
            with self.lock:
                try:
                    while self.pending:
                        os.write(self.fd, self.pending[0])
                        self.pending.popleft()
                except BlockingIOError:
                    pass
                except (
                    OSError
                ) as error:  # EPIPE cannot happen while the maker holds it; anything else ends it
                    self.broken = error
                    self.pending.clear()
                if not self.pending:
                    self.flusher = None
                    self.lock.notify_all()
                    return
            with contextlib.suppress(OSError, ValueError):
                _wait_for(self.fd, select.POLLOUT, 0.5)

    def wait_flushed(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        with self.lock:
            while self.pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.lock.wait(min(left, 0.5))
            return True

    @staticmethod
    def _flush_at_exit(writer: _Writer) -> None:
        writer.close(EXIT_FLUSH_SECONDS)

    def close(self, flush_seconds: float) -> None:
        self.wait_flushed(flush_seconds)
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1
            self.pending.clear()
            self.broken = self.broken or InboxGoneError(errno.EBADF, "closed")
        self._finalizer.cancel()


class _Reader:
    """The owner's end: chunks read as they come, put together per writer, whole messages queued."""

    def __init__(self, path: str, max_message_bytes: int, journal: bool = False) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)  # RDWR: never an end of file
        if not stat.S_ISFIFO(os.fstat(self.fd).st_mode):
            os.close(self.fd)
            raise InboxGoneError(errno.EINVAL, f"{path} is not an inbox (not a FIFO)")
        self.max_message_bytes = max_message_bytes
        self.buffer = bytearray()
        self.journal_path = f"{path}.taken"
        self.journal_fd = -1
        if journal:  # what a reader before this one took and never settled comes first
            self.journal_fd = _open_journal(self.journal_path)
            self.buffer += _read_all(self.journal_fd)
        self.partial: dict[int, bytearray] = {}
        self.cut: set[int] = set()  # writers whose current message went over the limit: dropped to its end
        self.ready: collections.deque[str | bytes] = collections.deque()
        self.lock = threading.Lock()
        """Held while bytes are taken in and put together: a receive the agent abandoned (its tool
        call timed out) may still be reading when the next one starts."""

    def next_message(self, timeout: float | None) -> str | bytes:
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while True:
            with self.lock:
                self._take_in()
                if self.ready:
                    return self.ready.popleft()
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise queue.Empty
            _wait_for(self.fd, select.POLLIN, wait)

    def _take_in(self) -> None:
        while len(self.ready) < _MAX_READY:
            try:
                data = os.read(self.fd, _READ_SIZE)
            except BlockingIOError:
                break
            if not data:
                break
            if self.journal_fd >= 0:
                _write_all(self.journal_fd, data)  # kept before anything is made of it
            self.buffer += data
            if len(data) < _READ_SIZE:
                break
        self._parse()

    def _parse(self) -> None:
        view, at = self.buffer, 0
        while len(view) - at >= _HEADER.size:
            writer, size, flags = _HEADER.unpack_from(view, at)
            end = at + _HEADER.size + size
            if end > len(view):
                break  # the rest of this chunk is still in the pipe
            self._chunk(writer, bytes(view[at + _HEADER.size : end]), flags)
            at = end
        del self.buffer[:at]

    def _chunk(self, writer: int, payload: bytes, flags: int) -> None:
        if writer in self.cut:
            if flags & _LAST:
                self.cut.discard(writer)
            return
        if writer not in self.partial and len(self.partial) >= _MAX_PARTIAL:
            oldest = next(iter(self.partial))
            self.ready.append(bytes(self.partial.pop(oldest)) + b"\xff")  # cut: not UTF-8, refused
            self._cut(oldest)
        whole = self.partial.setdefault(writer, bytearray())
        whole += payload
        if len(whole) > self.max_message_bytes:  # handed over cut, as bytes: the receiver refuses it
            del self.partial[writer]
            self.ready.append(bytes(whole[: self.max_message_bytes + 1]))
            if not flags & _LAST:
                self._cut(writer)
            return
        if flags & _LAST:
            del self.partial[writer]
            if flags & _BYTES:
                self.ready.append(bytes(whole))
            else:
                try:
                    self.ready.append(whole.decode("utf-8", "surrogatepass"))
                except UnicodeDecodeError:
                    self.ready.append(bytes(whole))

    def _cut(self, writer: int) -> None:
        """Drop `writer`'s chunks up to the end of its current message (a bounded set: an evicted one's
        further chunks then read as a new message, garbled, and are refused)."""
        if len(self.cut) >= _MAX_PARTIAL:
            self.cut.pop()
        self.cut.add(writer)

    def settle(self) -> None:
        """Everything handed over is dealt with: the journal keeps only what the reader still holds
        (whole messages not handed over yet, part of a message, bytes of a chunk). Empty when it
        holds nothing; past `JOURNAL_COMPACT_BYTES`, written again with just that, in a new file
        put in place whole, so a death at any moment leaves one journal or the other."""
        with self.lock:
            if self.journal_fd < 0:
                return
            if not (self.buffer or self.partial or self.ready):
                os.ftruncate(self.journal_fd, 0)
                return
            if os.fstat(self.journal_fd).st_size <= JOURNAL_COMPACT_BYTES:
                return
            held = bytearray()
            for item in self.ready:
                held += b"".join(_frames(item, 0))
            # (a writer whose message was cut is forgotten here: a new reader refuses its rest as garbled)
            for writer, part in self.partial.items():  # not last chunks: the pipe holds the rest
                for at in range(0, len(part), _CHUNK_PAYLOAD):
                    piece = part[at : at + _CHUNK_PAYLOAD]
                    held += _HEADER.pack(writer, len(piece), 0) + piece
            held += self.buffer
            fresh = _open_journal(f"{self.journal_path}.new", truncate=True)
            _write_all(fresh, bytes(held))
            os.replace(f"{self.journal_path}.new", self.journal_path)
            os.close(self.journal_fd)
            self.journal_fd = fresh

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.journal_fd >= 0:
            os.close(self.journal_fd)
            self.journal_fd = -1


def _open_journal(path: str, truncate: bool = False) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
    return os.open(path, flags | (os.O_TRUNC if truncate else 0), 0o600)


def _read_all(fd: int) -> bytes:
    whole = bytearray()
    while chunk := os.pread(fd, _READ_SIZE, len(whole)):
        whole += chunk
    return bytes(whole)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
