"""`ContainerLink`: the smol worker protocol over a container's attached stdin/stdout.

Why attach rather than a socket in a mounted folder: an attached stream works wherever the engine is
(a remote DOCKER_HOST, Docker Desktop's VM), needs no writable mount, and ends when the container
does. Docker multiplexes stdout and stderr on the attached stream (8-byte headers: stream, size);
stdout carries protocol frames, stderr is kept (bounded) for crash reports.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
from typing import Any

from smol_core.plugin_api import FramedLink, encode_message

_HEADER = struct.Struct(">BxxxI")
_STDERR_KEEP = 16_384


class _Demux:
    """Splits Docker's multiplexed attach stream into stdout and stderr bytes."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, chunk: bytes) -> tuple[bytes, bytes]:
        self.buffer += chunk
        out, err = bytearray(), bytearray()
        while len(self.buffer) >= _HEADER.size:
            stream, size = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            payload = self.buffer[_HEADER.size : _HEADER.size + size]
            del self.buffer[: _HEADER.size + size]
            (err if stream == 2 else out).extend(payload)
        return bytes(out), bytes(err)


class ContainerLink(FramedLink):
    """One running container with the worker inside; satisfies `smol_core.executors.host.WorkerLink`."""

    def __init__(self, client: Any, container_id: str, attached: Any) -> None:
        super().__init__()
        self.client = client
        self.container_id = container_id
        self._attached = attached  # keeps the SDK's response (and so the socket) alive
        self.sock: socket.socket = getattr(attached, "_sock", attached)
        self.sock.setblocking(True)
        self._demux = _Demux()
        self._stderr = bytearray()
        self._eof = False
        self._removed = False
        self.killed_by_us = False

    @property
    def pid(self) -> int:
        """Containers have no host pid; a stable number derived from the container id instead."""
        return int(self.container_id[:12], 16)

    def alive(self) -> bool:
        """False once the stream ended (checked without blocking) or we removed the container."""
        if self._eof or self._removed:
            return False
        with contextlib.suppress(OSError):
            readable, _, _ = select.select([self.sock], [], [], 0)
            if readable and not self.sock.recv(1, socket.MSG_PEEK):
                self._eof = True
        return not self._eof

    def send_raw(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:
            self._eof = True
            raise EOFError(f"container stream closed: {exc}") from None

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(encode_message(message))

    def _source(self) -> socket.socket:
        return self.sock

    def _next_message(self) -> dict[str, Any] | None:
        message = super()._next_message()
        if message is None and self._eof:
            raise EOFError("the container's stream ended")
        return message

    def _receive(self) -> None:
        try:
            chunk = self.sock.recv(1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            raise EOFError("the container's stream ended")
        out, err = self._demux.feed(chunk)
        if err:
            self._stderr += err
            del self._stderr[:-_STDERR_KEEP]
        if out:
            self._pending.extend(self._reader.feed(out))

    def kill(self) -> None:
        """Remove the container now (SIGKILL and delete in one engine call): the running code stops."""
        if self._removed:
            return
        self.killed_by_us = True
        self._remove()

    def close(self) -> None:
        self._remove()

    def _remove(self) -> None:
        if not self._removed:
            self._removed = True
            with contextlib.suppress(Exception):
                self.client.api.remove_container(self.container_id, force=True)
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(Exception):
            self._attached.close()

    def stderr_tail(self, limit: int = 1500) -> str:
        return bytes(self._stderr[-limit:]).decode("utf-8", "replace").strip()

    def exit_description(self) -> str:
        """Why the container stopped: its exit code, and the engine's OOM verdict when it has one."""
        try:
            self.client.api.wait(self.container_id, timeout=10)
            state = self.client.api.inspect_container(self.container_id).get("State", {})
        except Exception as exc:
            return f"container gone: {type(exc).__name__}"
        code = state.get("ExitCode")
        how = f"container exit code {code}"
        if code == 137:
            how = "container killed by signal 9"
        if state.get("OOMKilled"):
            how += ", out of memory: raise mem_limit"
        elif code == 137:
            how += ", sent from outside (the engine reports no out-of-memory kill: `docker kill`, or another process)"
        return how
