"""`MCPClient` and `ToolCollection.from_mcp`: the tools of one or several MCP servers as smol tools.

smol is synchronous and MCP is async: the client runs its sessions on a private event-loop thread
(`LoopThread`) and keeps them open across agent runs until `disconnect()`. Every tool call is bounded
by `timeout`, and a server that dies fails its calls with a clear `MCPToolError` at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from smol_core.plugin_api import AllowSetting, Tool, ToolCollection
from smol_tool_mcp._loop import LoopThread
from smol_tool_mcp.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    Connection,
    MCPConnectionError,
)
from smol_tool_mcp.results import MCPToolError
from smol_tool_mcp.schema import python_name
from smol_tool_mcp.tool import MCPTool

# The sync side waits this much longer than the async side, which reports timeouts itself (and may
# spend up to twice CLOSE_TIMEOUT closing a session that did not start).
_GRACE = 15.0


class MCPClient:
    """Connect to one or several MCP servers and use their tools as smol tools.

    Args:
        server_parameters: an `mcp.StdioServerParameters` (a command run as a subprocess), a URL,
            a dict `{"url": ..., "transport": "streamable-http" | "sse", "headers": {...}}`, or a
            list of these.
        adapter_kwargs: accepted for compatibility with smolagents; `connect_timeout` is honoured.
        structured_output: use a tool's `outputSchema`/`structuredContent` (values come back as dicts,
            primitives unwrapped). `None` (the default) and `True` do; `False` returns text content only.
        timeout: seconds a tool call may take before it fails with `MCPToolError`.
        connect_timeout: seconds a server may take to start and list its tools.
        allow_private_addresses: over HTTP, what the client may connect to besides public addresses
            and the endpoint it was given (True, or entries such as `"10.0.0.0/8"`; see
            `smol_core.plugin_api.AddressPolicy`). Every connection is checked where it opens.

    Example:
        with MCPClient(StdioServerParameters(command="python", args=["server.py"])) as tools:
            agent = CodeAgent(tools=tools, model=model)
    """

    def __init__(
        self,
        server_parameters: Any,
        adapter_kwargs: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float | None = None,
        allow_private_addresses: AllowSetting = None,
    ) -> None:
        params = server_parameters if isinstance(server_parameters, list) else [server_parameters]
        if not params:
            raise MCPConnectionError("MCPClient needs at least one server.")
        self.structured_output = structured_output is not False
        self.timeout = timeout
        self.connect_timeout = float(
            connect_timeout or (adapter_kwargs or {}).get("connect_timeout") or DEFAULT_CONNECT_TIMEOUT
        )
        self._connections = [Connection(p, timeout, allow_private_addresses) for p in params]
        self._loop: LoopThread | None = None
        self._tools: list[Tool] = []
        self.connect()

    # --- lifecycle ---------------------------------------------------------------------------------

    def connect(self) -> None:
        """Open every server's session and list its tools (done by `__init__`; again after `disconnect`)."""
        if self._loop is not None:
            return
        self._loop = LoopThread()
        tools: list[Tool] = []
        try:
            for connection in self._connections:
                listed = self._loop.run(
                    connection.open(self.connect_timeout), timeout=self.connect_timeout + _GRACE
                )
                for mcp_tool in listed:
                    tools.append(
                        MCPTool(
                            mcp_tool,
                            caller=self._caller(connection),
                            name=python_name(mcp_tool.name),
                            structured_output=self.structured_output,
                            server_label=connection.label,
                        )
                    )
        except TimeoutError:
            self.disconnect()
            raise MCPConnectionError("An MCP server did not start in time.") from None
        except BaseException:
            self.disconnect()
            raise
        self._tools = tools

    def _caller(self, connection: Connection) -> Any:
        def call(name: str, arguments: dict[str, Any]) -> Any:
            loop = self._loop
            if loop is None:
                raise MCPToolError(f"The MCP client is disconnected: the tool {name!r} cannot run.")
            try:
                return loop.run(connection.call(name, arguments), timeout=self.timeout + _GRACE)
            except TimeoutError:
                raise MCPToolError(
                    f"The MCP tool {name!r} on {connection.label!r} did not answer within {self.timeout:g} s."
                ) from None

        return call

    def disconnect(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        exc_traceback: TracebackType | None = None,
    ) -> None:
        """Close every session (stdio servers are stopped) and the loop thread. Safe to call twice."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        for connection in self._connections:
            with contextlib.suppress(Exception):
                loop.run(connection.close(), timeout=_GRACE)
        loop.stop()

    def reconnect(self) -> None:
        """Close and reopen every session (a crashed stdio server is started again).

        Tools already handed out keep working: they reach their server through this client.
        """
        self.disconnect()
        self.connect()

    @property
    def is_connected(self) -> bool:
        return self._loop is not None

    def get_tools(self) -> list[Tool]:
        """The smol tools of every connected server (names made unique, valid Python identifiers)."""
        if self._loop is None:
            raise MCPConnectionError("The MCP client is disconnected: call connect() first.")
        return list(self._tools)

    def __enter__(self) -> list[Tool]:
        return self.get_tools()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        exc_traceback: TracebackType | None,
    ) -> None:
        self.disconnect(exc_type, exc_value, exc_traceback)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.disconnect()


_TRUST_MESSAGE = (
    "Loading tools from an MCP server runs code you did not write: a stdio server is a command this "
    "process starts, and every tool call executes on the server with whatever access it has. Pass "
    "`trust_remote_code=True` once you trust the server: ToolCollection.from_mcp(..., trust_remote_code=True)."
)


@contextlib.contextmanager
def tool_collection_from_mcp(
    server_parameters: Any,
    trust_remote_code: bool = False,
    structured_output: bool | None = None,
    **client_kwargs: Any,
) -> Iterator[ToolCollection]:
    """What `ToolCollection.from_mcp` returns: the servers' tools, open for the `with` block."""
    if not trust_remote_code:
        raise ValueError(_TRUST_MESSAGE)
    client = MCPClient(server_parameters, structured_output=structured_output, **client_kwargs)
    try:
        yield ToolCollection(client.get_tools())
    finally:
        client.disconnect()
