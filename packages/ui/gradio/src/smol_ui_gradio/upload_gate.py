"""The door in front of Gradio's upload endpoint: a file is refused before Gradio stores anything.

Why: Gradio's `/gradio_api/upload` (and, for features this page does not use, two more endpoints,
which the door closes to files) takes a file from anyone who reaches the port, with no session,
and writes it into its cache before any handler of the page runs. `file_types` only filters the
browser's file picker, so a file of a type the page refuses, up to the size limit, was kept (for an
hour, until Gradio's cache clean-up) as often as someone sent one. This ASGI middleware reads the
request first, and passes it on to Gradio only when it is well formed and every file in it is of an
accepted type, by its name and by its bytes (`content_types.py`), read as Gradio reads it (a part
that names its file twice, which two readers may read differently, is refused). It also bounds how
many files one client address may upload in a window of time (each file of a request counts), how
many requests it holds in memory at once (each one at most the size limit), and how many of those
one address may hold, and how long a body may take to arrive (so clients sending bodies slowly
cannot keep every slot): flooding the
endpoint fills neither the disk nor the memory. The address is the connection's, as uvicorn gives it:
an `X-Forwarded-For` header counts only from a proxy uvicorn trusts (127.0.0.1 by default,
`FORWARDED_ALLOW_IPS`), so a client cannot make itself many addresses.

The page's own handler then applies the session's limits (count and bytes, `UploadPolicy`) before it
copies the file into the session's folder, and deletes Gradio's copy either way.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from python_multipart.multipart import MultipartParser, parse_options_header

from smol_ui_gradio.uploads import UploadPolicy, UploadRejected, safe_name

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MULTIPART_OVERHEAD = 64 * 1024
"""Bytes a request may hold beyond its file (part headers, boundaries)."""
DEFAULT_UPLOADS_PER_CLIENT = 30
DEFAULT_WINDOW_SECONDS = 600.0
DEFAULT_CONCURRENT_UPLOADS = 4
DEFAULT_CONCURRENT_PER_CLIENT = 2
DEFAULT_BODY_IDLE_SECONDS = 30.0
DEFAULT_BODY_SECONDS = 600.0
"""How long an upload's body may pause between two chunks, and take in all: a client that stops
sending (or sends a byte now and then) gives its slot back instead of holding it while it stays
connected."""
"""Uploads one client address may have in flight at once: a client that sends bodies slowly, or never
finishes them, holds at most this many of the `concurrent_uploads` slots, never all of them."""


class _Refused(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


class UploadGate:
    """ASGI middleware: checks every request to a path ending in `/upload` against `policy` first."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        policy: UploadPolicy,
        uploads_per_client: int = DEFAULT_UPLOADS_PER_CLIENT,
        window_seconds: float = DEFAULT_WINDOW_SECONDS,
        concurrent_uploads: int = DEFAULT_CONCURRENT_UPLOADS,
        concurrent_per_client: int = DEFAULT_CONCURRENT_PER_CLIENT,
        body_idle_seconds: float = DEFAULT_BODY_IDLE_SECONDS,
        body_seconds: float = DEFAULT_BODY_SECONDS,
    ) -> None:
        self.app = app
        self.policy = policy
        self.uploads_per_client = uploads_per_client
        self.window_seconds = window_seconds
        self.concurrent_per_client = concurrent_per_client
        self.body_idle_seconds = body_idle_seconds
        self.body_seconds = body_seconds
        self._slots = asyncio.Semaphore(concurrent_uploads)
        self._in_flight: collections.Counter[str] = collections.Counter()
        self._recent: dict[str, collections.deque[float]] = {}
        self._swept = time.monotonic()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        if not str(scope.get("path")).endswith("/upload"):
            if "multipart/" in (_header(scope, b"content-type") or "").lower():
                # Gradio reads files at other endpoints too (a screen recording, a component's
                # files), with no session and no bound; the page uses none of them
                await _answer(send, 415, "This page takes files at its upload endpoint only.")
                return
            await self.app(scope, receive, send)
            return
        address = _address(scope)
        if self._in_flight[address] >= self.concurrent_per_client:
            await _answer(send, 429, f"Too many uploads at once from {address}: wait for one to finish.")
            return
        if self._slots.locked():
            await _answer(send, 503, "Too many uploads at once: try again in a moment.")
            return
        self._in_flight[address] += 1
        try:
            async with self._slots:
                body = await self._admitted(scope, receive, address)
        except _Refused as refused:
            await _answer(send, refused.status, refused.text)
            return
        finally:
            self._in_flight[address] -= 1
            if not self._in_flight[address]:
                del self._in_flight[address]
        await self.app(scope, _replay(body, receive), send)

    async def _admitted(self, scope: Scope, receive: Receive, address: str) -> bytes:
        """The request's body, once it is well formed, its files are of accepted types and the
        address has room for them; `_Refused` otherwise. Every file counts toward the address's
        bound, not every request (one request may carry up to 1,000 files); a refused request counts
        as one, so a flood of refused files is bounded too."""
        self._charge(address, 0)  # an address over its bound is refused before its body is read
        try:
            async with asyncio.timeout(self.body_seconds):
                body = await self._body(scope, receive)
        except TimeoutError:
            raise _Refused(408, "The upload took too long to arrive: try again.") from None
        try:
            files = _files(_header(scope, b"content-type") or "", body)
            self._charge(address, len(files))
            self._check(files)
        except _Refused:
            self._record(address, 1)
            raise
        self._record(address, len(files))
        return body

    def _recent_of(self, address: str) -> collections.deque[float]:
        now = time.monotonic()
        recent = self._recent.setdefault(address, collections.deque())
        while recent and now - recent[0] > self.window_seconds:
            recent.popleft()
        self._sweep(now)
        return self._recent.setdefault(address, recent)

    def _charge(self, address: str, files: int) -> None:
        """Refuse (429) when `address` has no room for `files` more files (for one more, when 0)."""
        if len(self._recent_of(address)) + max(files, 1) > self.uploads_per_client:
            raise _Refused(
                429,
                f"Too many uploads from {address}: at most {self.uploads_per_client} files in "
                f"{self.window_seconds:.0f} seconds.",
            )

    def _record(self, address: str, files: int) -> None:
        now = time.monotonic()
        self._recent_of(address).extend([now] * files)

    def _sweep(self, now: float) -> None:
        """Forget the addresses with no upload in the window (once a minute): the table stays as
        small as the set of recent clients."""
        if now - self._swept < 60.0:
            return
        self._swept = now
        for address in list(self._recent):
            recent = self._recent[address]
            if not recent or now - recent[-1] > self.window_seconds:
                del self._recent[address]

    async def _body(self, scope: Scope, receive: Receive) -> bytes:
        limit = self.policy.max_bytes + MULTIPART_OVERHEAD
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            raise _Refused(413, "The file is over the maximum allowed size.")
        chunks, size = [], 0
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.body_idle_seconds) as idle:  # moved on with each chunk
                while True:
                    message = await receive()
                    idle.reschedule(loop.time() + self.body_idle_seconds)
                    if message["type"] == "http.disconnect":
                        raise _Refused(400, "The upload was cut off.")
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        raise _Refused(413, "The file is over the maximum allowed size.")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return b"".join(chunks)
        except TimeoutError:
            raise _Refused(408, "The upload stopped arriving: try again.") from None

    def _check(self, files: list[tuple[str, bytes]]) -> None:
        if not files:
            raise _Refused(400, "No file in the upload.")
        for name, data in files:
            shown = safe_name(name)
            try:
                self.policy.check(shown, len(data))
                self.policy.check_content(shown, data)
            except UploadRejected as rejected:
                raise _Refused(415, str(rejected)) from None


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _files(content_type: str, body: bytes) -> list[tuple[str, bytes]]:
    """The (file name, content) of each part of a multipart body, read by the parser Gradio uses
    (`python_multipart`), so both read the same parts; a part without a file name is refused."""
    kind, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise _Refused(400, "An upload is a multipart form.")
    parts: list[tuple[list[tuple[bytes, bytes]], list[bytes]]] = []
    field: list[bytes] = []
    value: list[bytes] = []

    def begin() -> None:
        parts.append(([], []))

    def header_field(data: bytes, start: int, end: int) -> None:
        field.append(data[start:end])

    def header_value(data: bytes, start: int, end: int) -> None:
        value.append(data[start:end])

    def header_end() -> None:
        parts[-1][0].append((b"".join(field).lower(), b"".join(value)))
        field.clear()
        value.clear()

    def part_data(data: bytes, start: int, end: int) -> None:
        parts[-1][1].append(data[start:end])

    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": begin,
            "on_header_field": header_field,
            "on_header_value": header_value,
            "on_header_end": header_end,
            "on_part_data": part_data,
        },
    )
    try:
        parser.write(body)
        parser.finalize()
    except Exception:
        raise _Refused(400, "The upload is not a well-formed multipart form.") from None
    files = []
    for headers, data in parts:
        dispositions = [value for name, value in headers if name == b"content-disposition"]
        if len(dispositions) > 1:  # Gradio reads the last, a reader may read the first: refused
            raise _Refused(400, "A part of the upload has more than one Content-Disposition header.")
        _, disposition = parse_options_header(dispositions[0] if dispositions else b"")
        name = disposition.get(b"filename")
        if not name:
            raise _Refused(400, "Every part of an upload must be a file with a name.")
        files.append((name.decode("utf-8", "replace"), b"".join(data)))
    return files


def _replay(body: bytes, server: Receive) -> Receive:
    """A `receive` that gives the app the body already read, then the server's messages (a
    disconnect, when the client goes)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await server()

    return receive


async def _answer(send: Send, status: int, text: str) -> None:
    payload = text.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
