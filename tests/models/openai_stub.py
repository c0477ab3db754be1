"""A scripted OpenAI-compatible server on 127.0.0.1 for what a 135M model cannot be made to do on cue.

The real llama.cpp server covers the ordinary paths; this one answers exactly what a test scripts
(a tool call, a 429 with `Retry-After`, a 400 refusing `stop`, a stream of tool-call pieces, a body
cut short, a dropped connection, a server that never answers) and records each request and when it
came, so the client's handling of those replies is tested deterministically. A completion asked for
as a stream is sent as the chunks that spell it (`as_chunks`); `default` answers when the script
has run out (a plain completion unless set).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(content: str | None = "ok", tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [
            {"index": 0, "finish_reason": "tool_calls" if tool_calls else "stop", "message": message}
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12},
    }


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def chunk(
    delta: dict[str, Any] | None = None,
    usage: dict[str, int] | None = None,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """One streamed chunk. OpenAI ends every choice's stream with a chunk carrying its finish_reason
    (and an empty delta); clients such as LiteLLM >= 1.110 treat a stream without one as cut off."""
    body: dict[str, Any] = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub"}
    body["choices"] = (
        [{"index": 0, "delta": delta, "finish_reason": finish_reason}] if delta is not None else []
    )
    if usage:
        body["usage"] = usage
    return body


def as_chunks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """A completion as OpenAI streams it: the role, the text in word-sized pieces, each tool call,
    the finish reason, then the usage."""
    choice = reply["choices"][0] if reply.get("choices") else {"message": {}, "finish_reason": "stop"}
    message = choice["message"]
    content = message.get("content") or ""
    pieces = [chunk({"role": "assistant", "content": ""})]
    pieces += [chunk({"content": word}) for word in re.findall(r"\S+\s*|\s+", content)]
    for index, call in enumerate(message.get("tool_calls") or []):
        pieces.append(chunk({"tool_calls": [{"index": index, **call}]}))
    pieces.append(chunk({}, finish_reason=choice.get("finish_reason") or "stop"))
    if reply.get("usage"):
        pieces.append(chunk(usage=reply["usage"]))
    return pieces


@dataclass
class Error:
    status: int
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Truncated:
    """A 200 whose body stops halfway: `Content-Length` promises more, then the connection closes."""

    reply: dict[str, Any] = field(default_factory=lambda: completion())


@dataclass
class Dropped:
    """The connection closes after the request is read, with no answer at all."""


@dataclass
class Silent:
    """The request is read and never answered (until the stub closes)."""


@dataclass
class Stub:
    replies: list[Any] = field(default_factory=list)
    default: Any = field(default_factory=completion)
    requests: list[dict[str, Any]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    url: str = ""
    server: ThreadingHTTPServer | None = None
    closing: threading.Event = field(default_factory=threading.Event)

    def wait_for_requests(self, count: int, within: float = 30.0) -> list[dict[str, Any]]:
        """The requests once `count` have been read: a `Silent` request is recorded by the server's
        own thread, which a loaded machine may run after the client has already given up on it."""
        end = time.monotonic() + within
        while len(self.requests) < count and time.monotonic() < end:
            time.sleep(0.01)
        return self.requests

    def close(self) -> None:
        self.closing.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def start_stub(*replies: Any) -> Stub:
    """Replies: a completion dict, a list of chunk dicts (sent as SSE), or an `Error`."""
    stub = Stub(list(replies))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            stub.requests.append(body)
            stub.times.append(time.monotonic())
            reply = stub.replies.pop(0) if stub.replies else stub.default
            if isinstance(reply, dict) and "choices" in reply and body.get("stream"):
                reply = as_chunks(reply)
            if isinstance(reply, Error):
                body = json.dumps({"error": {"message": reply.message}})
                self._send(reply.status, "application/json", body, reply.headers)
            elif isinstance(reply, Truncated):
                data = json.dumps(reply.reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) + 100))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
            elif isinstance(reply, Dropped):
                self.close_connection = True
            elif isinstance(reply, Silent):
                stub.closing.wait(60)
                self.close_connection = True
            elif isinstance(reply, list):
                events = "".join(f"data: {json.dumps(c)}\n\n" for c in reply) + "data: [DONE]\n\n"
                self._send(200, "text/event-stream", events)
            else:
                self._send(200, "application/json", json.dumps(reply))

        def _send(
            self, status: int, content_type: str, text: str, headers: dict[str, str] | None = None
        ) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    stub.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.url = f"http://127.0.0.1:{stub.server.server_address[1]}/v1"
    threading.Thread(target=stub.server.serve_forever, args=(0.02,), daemon=True).start()  # quick shutdown()
    return stub
