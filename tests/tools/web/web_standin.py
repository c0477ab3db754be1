"""Stand-in web servers on 127.0.0.1: each test routes paths to recorded-looking pages, status codes
or slow answers, and reads back what the tool sent."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

PAGES = Path(__file__).parent / "pages"


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def arg(self, name: str) -> str | None:
        return self.query.get(name, [None])[0]


Route = Reply | Callable[[Seen], Reply]


def allow_address(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Let web tools fetch this one `host:port` (added to `SMOL_WEB_ALLOW_PRIVATE` for the test)."""
    parts = urlsplit(url)
    entries = os.environ.get("SMOL_WEB_ALLOW_PRIVATE", "")
    monkeypatch.setenv("SMOL_WEB_ALLOW_PRIVATE", f"{entries},{parts.hostname}:{parts.port}".lstrip(","))


def page(name: str, **kwargs: Any) -> Reply:
    return Reply(body=(PAGES / name).read_bytes(), **kwargs)


def as_json(payload: Any, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(payload), content_type="application/json")


class StandInWeb:
    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Route] = {}
        self.seen: list[Seen] = []
        web = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def handle_any(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                query = parse_qs(parts.query)
                if body and "form-urlencoded" in self.headers.get("Content-Type", ""):
                    query = {**query, **parse_qs(body.decode())}
                seen = Seen(
                    self.command, parts.path, query, {k.lower(): v for k, v in self.headers.items()}, body
                )
                web.seen.append(seen)
                route = web.routes.get((self.command, parts.path))
                reply = route(seen) if callable(route) else route or Reply(404, "no such page", "text/plain")
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = handle_any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def url(self, path: str = "/") -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}{path}"

    def route(self, method: str, path: str, reply: Route) -> str:
        self.routes[(method, path)] = reply
        return self.url(path)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
