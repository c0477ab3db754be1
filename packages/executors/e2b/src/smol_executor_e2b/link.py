"""`E2BLink`: the shared driver's `WorkerLink` over one E2B sandbox command.

The command is the relay (relay.py) started in the background with stdin open; host → worker frames
go out through `commands.send_stdin` and worker → host frames come back on the command's stdout
stream, both as base64 lines (the worker's prefixed with "smol:"). A reader thread decodes the
stream into protocol messages and wakes `read()` through a pipe, so `read()` can wait on the worker and on the driver's own wake-up
descriptor (async tools) with one `select`: the read loop every link shares (`FramedLink`).
"""

from __future__ import annotations

import base64
import contextlib
import os
import shlex
import threading
from collections import deque
from pathlib import Path
from typing import Any

from smol_core.plugin_api import FramedLink, ProtocolError, encode_message

RELAY_SOURCE = Path(__file__).with_name("relay.py").read_text("utf-8")
FRAME_PREFIX = "smol:"


def relay_command(worker_argv: list[str], worker_env: dict[str, str], python: str = "python3") -> str:
    """The shell line E2B runs: python3 -I -c RELAY ENV_JSON WORKER_ARGV..."""
    import json

    argv = [python, "-I", "-c", RELAY_SOURCE, json.dumps(worker_env), *worker_argv]
    return " ".join(shlex.quote(a) for a in argv)


class E2BLink(FramedLink):
    """One worker running in an E2B sandbox, reached through the SDK's command API."""

    def __init__(self, sandbox: Any, command: str, bundle: bytes, cwd: str | None = None) -> None:
        super().__init__()
        self._sandbox = sandbox
        self._handle = sandbox.commands.run(command, background=True, stdin=True, timeout=0, cwd=cwd)
        self._pid = int(self._handle.pid)
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._ended = False
        self._closed = False
        self._killed = False
        self._exit: str | None = None
        self._stderr: deque[str] = deque(maxlen=64)
        self._broken: str | None = None  # why the stream broke the protocol, for read() to raise
        self._taken = threading.Condition(self._lock)  # read() took messages: the pump may go on
        self._backlog = 0  # stream bytes received since the host last emptied `_pending`
        self._thread = threading.Thread(target=self._pump, name=f"smol-e2b-{self._pid}", daemon=True)
        self._thread.start()
        self._send_bytes(bundle)

    # --- the reader thread -----------------------------------------------------------------
    def _pump(self) -> None:
        partial = ""
        try:
            for stdout, stderr, _pty in self._handle:
                if stderr:
                    self._stderr.append(stderr)
                if not stdout:
                    continue
                lines = (partial + stdout).split("\n")
                partial = lines.pop()
                if (
                    len(partial) > 2 * self._reader.max_frame_bytes + 64
                ):  # base64 of the largest frame, and more
                    raise ProtocolError("a line of the worker's stream is longer than any frame")
                messages = []
                for line in lines:
                    if line.startswith(FRAME_PREFIX):
                        messages += self._reader.feed(base64.b64decode(line[len(FRAME_PREFIX) :]))
                    elif line.strip():
                        self._stderr.append(line[:2000] + "\n")  # a profile script's chatter, not ours
                if messages:
                    with self._lock:
                        self._pending.extend(messages)
                    self._wake()
                self._hold_back(len(stdout))
            self._exit = self._exit_code()
        except (ProtocolError, ValueError) as exc:
            self._exit = f"a garbled stream ({exc})"
            self._broken = f"a garbled stream: {str(exc)[:200]}"
        except Exception as exc:
            self._exit = f"the sandbox command stream failed ({type(exc).__name__}: {exc})"
        finally:
            with self._lock:
                self._ended = True
                closed = self._closed
            self._wake()
            if closed:
                self._close_pipe()

    def _hold_back(self, received: int) -> None:
        """Stop reading while the host has not taken what came: memory stays within about two frames.

        Why: this thread reads as fast as the stream delivers, and a worker that writes frames
        without waiting for answers would otherwise fill the host's memory with parsed messages.
        Waiting here leaves the rest in the stream (the SDK reads it on demand), as a pipe would.
        """
        with self._taken:
            self._backlog += received
            limit = 2 * self._reader.max_frame_bytes + (1 << 20)
            while self._pending and self._backlog > limit and not self._closed and not self._killed:
                self._taken.wait(0.2)

    def _exit_code(self) -> str:
        try:
            result = self._handle.wait()
            return f"exit code {result.exit_code}"
        except Exception as exc:
            code = getattr(exc, "exit_code", None)
            if code is None:
                return f"ended ({type(exc).__name__}: {exc})"
            return f"killed by signal {code - 128}" if code > 128 else f"exit code {code}"

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _close_pipe(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # --- WorkerLink ------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self._pid

    def _send_bytes(self, data: bytes) -> None:
        try:
            self._sandbox.commands.send_stdin(self._pid, base64.b64encode(data) + b"\n")
        except Exception as exc:
            raise EOFError(f"the sandbox command is gone ({type(exc).__name__}: {exc})") from None

    def send(self, message: dict[str, Any]) -> None:
        if self._ended or self._killed:
            raise EOFError("the sandbox worker has ended")
        self._send_bytes(encode_message(message))

    def _source(self) -> int:
        return self._wake_r  # the reader thread wakes it when messages came or the stream ended

    def _next_message(self) -> dict[str, Any] | None:
        with self._lock:
            if self._broken is not None:
                raise ProtocolError(self._broken)
            if self._pending:
                message = self._pending.popleft()
                if not self._pending:
                    self._backlog = 0
                    self._taken.notify_all()
                return message
            if self._ended:
                raise EOFError(f"the sandbox worker ended: {self._exit}")
        return None

    def _receive(self) -> None:
        with contextlib.suppress(OSError):
            os.read(self._wake_r, 4096)

    def alive(self) -> bool:
        return not (self._ended or self._killed)

    def has_unread(self) -> bool:
        """Whether messages the worker sent are waiting beyond its last one (out of turn)."""
        with self._lock:
            return super().has_unread() or self._broken is not None

    def kill(self) -> None:
        if self._killed or self._ended:
            return
        self._killed = True
        with contextlib.suppress(Exception):
            self._sandbox.commands.kill(self._pid)

    def close(self) -> None:
        self.kill()
        with self._lock:
            if self._closed:
                return
            self._closed = True
            ended = self._ended
        if ended:
            self._close_pipe()

    def stderr_tail(self, limit: int = 1500) -> str:
        return "".join(self._stderr)[-limit:].strip()

    def exit_description(self) -> str:
        self._thread.join(timeout=5)
        return self._exit or "the sandbox command ended"
