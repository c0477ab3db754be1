"""What stands between an HTTP MCP server and the network: a bearer token, Host/Origin checks, a bind rule.

A served tool runs on this machine with this user's rights, and a served agent writes and runs
code: whoever can reach the port can use them. So over HTTP:

- every request must carry `Authorization: Bearer <token>` (compared in constant time), a token
  given by the user or generated at start and printed;
- the Host and Origin headers must name this server (the SDK's DNS-rebinding protection, on for
  every bind address, not only loopback): a web page the user visits cannot reach a server on
  127.0.0.1 through a hostile DNS name, nor post to it from its own origin;
- binding a non-loopback address needs a token the user chose, so nobody exposes an agent to the
  network by typing `--host 0.0.0.0` alone.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import os
import secrets
import socket
from collections.abc import Callable, Iterable
from typing import Any

from smol_core.plugin_api import SmolError

TOKEN_ENV = "SMOL_MCP_TOKEN"
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_token(token: str | None, host: str) -> tuple[str, bool]:
    """The token to require and whether it was generated here (then it must be shown to the user).

    `token`, else `SMOL_MCP_TOKEN`, else a new random one, but only on a loopback address: on any
    other the user must choose the token, knowing the server is reachable from the network.
    """
    chosen = token or os.environ.get(TOKEN_ENV) or None
    if chosen is not None:
        if len(chosen) < 16:
            raise SmolError(
                "An MCP server token must be at least 16 characters; generate one with `openssl rand -hex 32`."
            )
        return chosen, False
    if not is_loopback(host):
        raise SmolError(
            f"binding {host} exposes the agent to the network; pass --token (or set {TOKEN_ENV}) "
            "with a secret clients must send, or bind 127.0.0.1."
        )
    return secrets.token_urlsafe(32), True


def _host_forms(host: str) -> list[str]:
    """How a Host header can name `host`: IPv6 addresses go in brackets."""
    bare = host.strip("[]")
    try:
        if ipaddress.ip_address(bare).version == 6:
            return [f"[{bare}]"]
    except ValueError:
        pass
    return [bare]


def _interface_names() -> list[str]:
    """Names and addresses this machine answers to, for a server bound to every interface."""
    names = ["localhost", "127.0.0.1", "::1"]
    with contextlib.suppress(OSError):
        hostname = socket.gethostname()
        names += [hostname, socket.getfqdn()]
        names += [str(info[4][0]) for info in socket.getaddrinfo(hostname, None)]
    return list(dict.fromkeys(names))


def allowed_hosts_for(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The Host header values this server answers: its bind address and port (for 0.0.0.0 or ::,
    this machine's names and addresses), the loopback names for a loopback bind, plus `extra`."""
    bare = host.strip("[]")
    if bare in ("0.0.0.0", "::", ""):
        names = _interface_names()
    elif is_loopback(bare):
        names = ["127.0.0.1", "localhost", "::1", bare]
    else:
        names = [bare]
    hosts = [f"{form}:{port}" for name in dict.fromkeys(names) for form in _host_forms(name)]
    if port in (80, 443):  # clients leave the default port out of the Host header
        hosts += [form for name in names for form in _host_forms(name)]
    return list(dict.fromkeys([*hosts, *extra]))


def allowed_origins_for(hosts: Iterable[str], extra: Iterable[str] = ()) -> list[str]:
    """Browser pages allowed to call the server: only those served from the server's own host."""
    origins = [f"{scheme}://{entry}" for entry in hosts for scheme in ("http", "https")]
    return list(dict.fromkeys([*origins, *extra]))


def transport_security(
    host: str, port: int, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()
) -> Any:
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = allowed_hosts_for(host, port, allowed_hosts)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=allowed_origins_for(hosts, allowed_origins),
    )


Scope = dict[str, Any]
ASGIApp = Callable[..., Any]


class BearerTokenGate:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401 (every path, every
    method); only the server's own lifespan events pass without one."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, _, given = value.partition(b" ")
                if scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token):
                    return True
        return False

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # none are served; refuse before anything else could see it
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "http":
            from starlette.responses import JSONResponse

            response = JSONResponse(
                {"error": "unauthorized", "error_description": "Send Authorization: Bearer <token>."},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="smol-mcp"'},
            )
            await response(scope, receive, send)


class SessionEndWatcher:
    """ASGI middleware: calls `on_end(session_id)` after a client's DELETE ended its MCP session."""

    def __init__(self, app: ASGIApp, on_end: Callable[[str], Any]) -> None:
        self.app = app
        self.on_end = on_end

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "DELETE":
            await self.app(scope, receive, send)
            return
        session = dict(scope.get("headers", [])).get(b"mcp-session-id", b"").decode("latin-1")
        status: list[int] = []

        async def watch(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        await self.app(scope, receive, watch)
        if session and status and status[0] < 400:
            import anyio

            await anyio.to_thread.run_sync(self.on_end, session)
