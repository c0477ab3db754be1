"""Run an MCP server until interrupted: smol tools (`serve_tools`) or an agent (`serve_agent`),
over stdio or streamable HTTP.

Over HTTP the server treats every client as a stranger: a bearer token, Host/Origin checks and a
bind rule guard the port (`http_security`), and a served agent is one agent per session
(`agent_sessions`, with ids the server issues: `session_watch`), so clients never see each other's
memory or variables.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable
from typing import Any, Literal

from smol_tool_mcp.agent_server import build_agent_server
from smol_tool_mcp.agent_sessions import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    AgentFactory,
    AgentSessions,
    clone_agent,
    release,
)
from smol_tool_mcp.http_security import (
    TOKEN_ENV,
    BearerTokenGate,
    SessionEndWatcher,
    resolve_token,
    transport_security,
)
from smol_tool_mcp.server import build_server
from smol_tool_mcp.session_watch import SessionTable, SessionWatcher

Transport = Literal["stdio", "streamable-http", "http"]


def serve_tools(
    tools: Iterable[Any],
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str = "smol",
    instructions: str | None = None,
    *,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
) -> None:
    """Serve `tools` until interrupted: over stdio, or streamable HTTP at `http://host:port/path`.

    Over HTTP every request needs `Authorization: Bearer <token>`: `token`, else `SMOL_MCP_TOKEN`,
    else one generated and printed to stderr (only on a loopback address: any other needs a token
    chosen by the user). Host and Origin headers must name the server (`allowed_hosts`/
    `allowed_origins` add more, e.g. a reverse proxy's name). Over stdio, the process's stdout
    carries the protocol; the SDK diverts what tools print to stderr.
    """
    server = build_server(tools, name=name, instructions=instructions)
    run_server(
        server,
        transport=transport,
        host=host,
        port=port,
        path=path,
        token=token,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )


def serve_agent(
    agent: Any = None,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    tool_name: str = "run",
    description: str | None = None,
    *,
    agent_factory: AgentFactory | None = None,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> None:
    """Serve an agent as an MCP server with one tool, `run(task, keep_memory=False)`.

    Each client session gets an agent of its own (memory, executor variables): built by
    `agent_factory()`, or cloned from `agent` (same model, tools and settings). At most
    `max_sessions` sessions at once. HTTP security as in `serve_tools`.
    """
    factory, template = _agent_factory(agent, agent_factory)
    sessions = AgentSessions(factory, max_sessions=max_sessions)
    server = build_agent_server(
        sessions,
        name=getattr(template, "name", None) or "smol",
        tool_name=tool_name,
        description=description or getattr(template, "description", None),
    )
    try:
        run_server(
            server,
            transport=transport,
            host=host,
            port=port,
            path=path,
            token=token,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            max_sessions=max_sessions,
            agent_sessions=sessions,
        )
    finally:
        sessions.close()


def _agent_factory(agent: Any, agent_factory: AgentFactory | None) -> tuple[AgentFactory, Any]:
    """The per-session factory, and an agent to read the served name and description from.

    Either is built once here, so a factory or an agent that cannot be cloned fails at start,
    not at the first client.
    """
    if agent_factory is not None:
        if agent is not None:
            return agent_factory, agent
        sample = agent_factory()
        release(sample)
        return agent_factory, sample
    if agent is None:
        raise ValueError("serve_agent needs an agent or an agent_factory.")
    release(clone_agent(agent))
    return (lambda: clone_agent(agent)), agent


def run_server(
    server: Any,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    *,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    max_sessions: int | None = None,
    on_session_end: Callable[[str], Any] | None = None,
    agent_sessions: SessionTable | None = None,
) -> None:
    import anyio

    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def serve_stdio() -> None:
            # The SDK points fd 1 at stderr while serving, but Python's own stdout buffer would still
            # flush onto the wire at exit: send what tools and agents print straight to stderr.
            async with stdio_server() as (read_stream, write_stream):
                with contextlib.redirect_stdout(sys.stderr):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve_stdio)
        return
    if transport not in ("streamable-http", "http"):
        raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'streamable-http' (alias 'http').")
    import uvicorn

    secret, generated = resolve_token(token, host)
    app = build_http_app(
        server,
        host=host,
        port=port,
        path=path,
        token=secret,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        max_sessions=max_sessions,
        on_session_end=on_session_end,
        agent_sessions=agent_sessions,
    )
    # The URL a client on this machine should use: a wildcard bind is not an address to connect to.
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(
        host, f"[{host}]" if ":" in host else host
    )
    print(f"smol mcp: serving on http://{shown}:{port}{path}", file=sys.stderr)
    if generated:
        print(
            f"smol mcp: token (clients send 'Authorization: Bearer <token>'): {secret}\n"
            f'smol mcp: e.g. {TOKEN_ENV}={secret} smolagent "..." --tools mcp:http://{shown}:{port}{path}',
            file=sys.stderr,
        )
    uvicorn.run(app, host=host, port=port, log_level="warning")


def build_http_app(
    server: Any,
    *,
    host: str,
    port: int,
    token: str,
    path: str = "/mcp",
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    max_sessions: int | None = None,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    on_session_end: Callable[[str], Any] | None = None,
    agent_sessions: SessionTable | None = None,
) -> Any:
    """The ASGI app `run_server` serves over HTTP: the SDK's streamable-HTTP app with Host/Origin
    checks for this bind address, behind a bearer-token gate (and a session-end hook).

    `max_sessions` caps the SDK's sessions (None: the SDK's default); a served agent passes its own
    cap so that the SDK and `AgentSessions` agree on how many sessions are alive, and hands its
    `AgentSessions` as `agent_sessions`: its slots then open only for ids this server issued, a full
    table refuses new sessions with a clear error, and ended sessions drop their agents
    (`session_watch`).
    """
    limits: dict[str, Any] = {"session_idle_timeout": idle_timeout}
    if max_sessions is not None:
        limits["max_sessions"] = max_sessions
    app: Any = server.streamable_http_app(
        streamable_http_path=path,
        host=host,
        transport_security=transport_security(host, port, allowed_hosts, allowed_origins),
        **limits,
    )
    if agent_sessions is not None:
        app = SessionWatcher(app, agent_sessions)
    if on_session_end is not None:
        app = SessionEndWatcher(app, on_session_end)
    return BearerTokenGate(app, token)
