"""The worker's end of the protocol: framed messages over two file descriptors, tool calls included.

Why its own module: tool calls from the code are synchronous (block until the host answers) or
asynchronous (many in flight at once under `asyncio.gather`). Both share one byte stream, so the same
reader serves blocking reads and an event-loop reader callback; results that arrive for another call
are parked until their caller asks. Stdlib-only.

Why frames carry an `xid`: the host opens each exchange with a fresh random id and refuses any frame
that does not carry it, so frames written ahead of time (by code that reached this channel) cannot
pass for the answer to a later exchange. The channel stamps the open exchange's id on all it sends,
and refuses to send what the host would refuse (its frame limits, told in `config`).
"""

from __future__ import annotations

import builtins
import itertools
import os
from typing import Any

from .framing import FrameReader, read_message, write_message
from .host_objects import HostMethod
from .protocol import UNTRUSTED_ELEMENTS, UNTRUSTED_FRAME_BYTES, ProtocolError, decode, encode
from .views import SandboxViolation


class ToolError(Exception):
    """A tool raised on the host; the code may catch this."""


def _host_error(message: dict[str, Any]) -> Exception:
    """The exception an operation on a host object raised there, as the same builtin exception here
    (`obj[2]` on an object that is not subscriptable is a TypeError, a missing attribute an
    AttributeError); a refusal by the host's guard as a SandboxViolation; another as a RuntimeError."""
    text = str(message.get("error"))
    if message.get("exc_type") == "SandboxViolation":
        return SandboxViolation(text)
    kind = getattr(builtins, str(message.get("exc_type")), None)
    if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
        try:
            return kind(text)
        except Exception:
            pass
    return RuntimeError(text)


class FinalAnswerSignal(BaseException):
    """Raised inside the code by `final_answer`: unwinds everything up to the runner."""

    def __init__(self, value: Any, host_holds_value: bool) -> None:
        super().__init__("final_answer")
        self.value = value
        self.host_holds_value = host_holds_value


class Channel:
    def __init__(self, in_fd: int, out_fd: int) -> None:
        self.in_fd = in_fd
        self.out_fd = out_fd
        self._reader = FrameReader()
        self._pending: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._results: dict[int, dict[str, Any]] = {}
        self._waiters: dict[int, Any] = {}
        self._loops_reading: set[int] = set()
        self.final_called: FinalAnswerSignal | None = None
        self.xid: str | None = None  # the open exchange's id, stamped on every frame sent
        self.max_bytes = UNTRUSTED_FRAME_BYTES
        self.max_elements: int | None = UNTRUSTED_ELEMENTS
        self.where = "descriptors where the host put them"  # told in the protections report

    def open_exchange(self, message: dict[str, Any]) -> None:
        """A message from the host opens an exchange: answer it under its id (none if it has none)."""
        xid = message.get("xid")
        self.xid = xid if type(xid) is str else None

    def set_limits(self, limits: Any) -> None:
        """The host's frame limits, from `config` (absent: the defaults, which are the host's own)."""
        if type(limits) is dict:
            if type(limits.get("max_bytes")) is int:
                self.max_bytes = limits["max_bytes"]
            if type(limits.get("max_elements")) is int:
                self.max_elements = limits["max_elements"]

    def pending_final(self) -> FinalAnswerSignal | None:
        """The final answer given during this run, even if the code swallowed its signal."""
        return self.final_called

    def send(self, message: dict[str, Any]) -> None:
        """One frame, stamped with the open exchange's id; ProtocolError if the host would refuse it."""
        if self.xid is not None:
            message = {**message, "xid": self.xid}
        write_message(self.out_fd, message, self.max_bytes, self.max_elements)

    def send_reply(self, message: dict[str, Any]) -> None:
        """An exchange's last frame; if the host would refuse it (too big), an error that says so instead."""
        try:
            self.send(message)
        except ProtocolError as exc:
            self.send(
                {
                    "op": "error",
                    "kind": "too_large",
                    "message": f"The result (with what was printed) is too large to return: {exc}. "
                    "Return or print a smaller part of it.",
                    "logs": "",
                }
            )

    def recv(self) -> dict[str, Any]:
        return read_message(self.in_fd, self._reader, self._pending)

    # --- tool calls ------------------------------------------------------------------------
    def _request(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
        call_id = next(self._ids)
        self.send(
            {
                "op": "tool_call",
                "id": call_id,
                "name": name,
                "args": encode(list(args)),
                "kwargs": encode(kwargs),
            }
        )
        return call_id

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("op") != "tool_result":
            raise RuntimeError(f"unexpected message during a run: {message.get('op')!r}")
        call_id = int(message["id"])
        waiter = self._waiters.pop(call_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(message)
        else:
            self._results[call_id] = message

    def _unpack(self, name: str, message: dict[str, Any]) -> Any:
        if message.get("final"):
            signal = FinalAnswerSignal(None, host_holds_value=True)
            self.final_called = signal
            raise signal
        if not message.get("ok"):
            raise ToolError(f"tool '{name}' failed: {message.get('error')}")
        return decode(message.get("value"))

    def call_object(
        self, handle: int, action: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """One operation on an object kept on the host (host_objects.py), done there; blocks until done."""
        call_id = next(self._ids)
        self.send(
            {
                "op": "object_call",
                "id": call_id,
                "object": handle,
                "action": action,
                "name": name,
                "args": encode(list(args)),
                "kwargs": encode(kwargs),
            }
        )
        while call_id not in self._results:
            self._dispatch(self.recv())
        message = self._results.pop(call_id)
        if not message.get("ok"):
            raise _host_error(message)
        if message.get("method"):
            return HostMethod(handle, name)
        return decode(message.get("value"))

    def call_sync(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        call_id = self._request(name, args, kwargs)
        while call_id not in self._results:
            self._dispatch(self.recv())
        return self._unpack(name, self._results.pop(call_id))

    async def call_async(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        import asyncio

        loop = asyncio.get_running_loop()
        call_id = self._request(name, args, kwargs)
        if call_id in self._results:
            return self._unpack(name, self._results.pop(call_id))
        future = loop.create_future()
        self._waiters[call_id] = future
        if id(loop) not in self._loops_reading:
            loop.add_reader(self.in_fd, self._on_readable)
            self._loops_reading.add(id(loop))
        try:
            message = await future
        finally:
            self._waiters.pop(call_id, None)
            if not self._waiters:
                loop.remove_reader(self.in_fd)
                self._loops_reading.discard(id(loop))
        return self._unpack(name, message)

    def _on_readable(self) -> None:
        chunk = os.read(self.in_fd, 1 << 20)
        if not chunk:
            for waiter in self._waiters.values():
                if not waiter.done():
                    waiter.set_exception(EOFError("host closed the channel"))
            return
        self._pending.extend(self._reader.feed(chunk))
        while self._pending:
            self._dispatch(self._pending.pop(0))
