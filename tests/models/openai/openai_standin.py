"""A stand-in OpenAI/Azure HTTP server on 127.0.0.1 for what a local llama.cpp server cannot show:
Azure's URL scheme and headers, scripted failures (503, 429, 401), tool calls, and the exact request.

It records every request (method, path, query, headers, JSON body) and answers from a script of
`Reply`s; when the script runs out it answers with a plain completion.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | None = None
    stream: list[dict[str, Any]] | None = None  # SSE chunks


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, Any]


def completion(
    content: str | None = "Hello!", tool_calls: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": 0,
        "model": "standin",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def chunks(*pieces: str, tool_calls: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 0, "model": "standin"}
    out = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}}]}
        for piece in pieces
    ]
    for call in tool_calls or []:
        out.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out.append(
        {
            **base,
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": len(pieces), "total_tokens": 5 + len(pieces)},
        }
    )
    return out


@dataclass
class StandIn:
    script: list[Reply] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    required_headers: dict[str, str] = field(default_factory=dict)
    path_prefix: str = ""

    def __post_init__(self) -> None:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                standin.requests.append(
                    Recorded(
                        "POST",
                        parts.path,
                        parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()},
                        json.loads(raw or b"{}"),
                    )
                )
                for name, value in standin.required_headers.items():
                    if self.headers.get(name) != value:
                        self._json(
                            401, {"error": {"message": f"bad {name}", "type": "invalid_request_error"}}
                        )
                        return
                if standin.path_prefix and not parts.path.startswith(standin.path_prefix):
                    self._json(404, {"error": {"message": f"no route {parts.path}"}})
                    return
                reply = standin.script.pop(0) if standin.script else Reply(body=completion())
                if reply.stream is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for chunk in reply.stream:
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    return
                self._json(reply.status, reply.body or completion())

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(0.02,), daemon=True
        )  # quick shutdown()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
