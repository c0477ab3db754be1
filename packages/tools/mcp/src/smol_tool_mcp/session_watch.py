"""The HTTP side of a served agent's sessions: which ids the server issued, and when they end.

`AgentSessions` keys agents by session id, and the only ids it accepts are those this server handed
out: this ASGI middleware sees the server's answer to a client's opening request, and when the SDK
issued a new `Mcp-Session-Id` there it opens that session's slot (`AgentSessions.open`). It also
refuses a new session up front, with a clear JSON-RPC error, when every slot is taken by a live
session (no session is ever evicted to make room), keeps a session from expiring while its client
is active (`touch`), and drops a session's agent when it ends: the client's DELETE, or the SDK
answering 404 for its id (ended or expired there).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from smol_tool_mcp.agent_sessions import is_stateless

Scope = dict[str, Any]
ASGIApp = Callable[..., Any]


class SessionTable(Protocol):
    def open(self, key: str) -> None: ...
    def touch(self, key: str) -> None: ...
    def end(self, key: str) -> None: ...
    def has_room(self) -> bool: ...
    def full_message(self) -> str: ...


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class SessionWatcher:
    """ASGI middleware between the bearer-token gate and the SDK's streamable-HTTP app."""

    def __init__(self, app: ASGIApp, sessions: SessionTable) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import anyio

        method = scope.get("method", "")
        claimed = _header(scope, b"mcp-session-id")
        stateless = is_stateless(_header(scope, b"mcp-protocol-version"))
        if claimed and not stateless:
            self.sessions.touch(claimed)
        opening = method == "POST" and not claimed and not stateless
        if opening and not await anyio.to_thread.run_sync(self.sessions.has_room):
            await self._refuse_full(scope, receive, send)
            return
        status: list[int] = []
        issued: list[str] = []

        async def watch(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
                given = _header(message, b"mcp-session-id")
                if opening and given and int(message["status"]) < 400:
                    issued.append(given)
                    self.sessions.open(given)  # before the client can use the id
            await send(message)

        await self.app(scope, receive, watch)
        ended = bool(status) and ((method == "DELETE" and status[0] < 400) or status[0] == 404)
        if claimed and not stateless and ended:
            await anyio.to_thread.run_sync(self.sessions.end, claimed)

    async def _refuse_full(self, scope: Scope, receive: Any, send: Any) -> None:
        from starlette.responses import Response

        body = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32000, "message": self.sessions.full_message()},
        }
        response = Response(json.dumps(body), status_code=503, media_type="application/json")
        await response(scope, receive, send)
