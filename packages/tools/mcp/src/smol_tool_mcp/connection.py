"""One open MCP session, held by a task on the client's loop thread.

anyio (under the MCP SDK) requires a session's task group to be entered and left by the same task,
so a long-lived "holder" task opens the session and waits; tool calls run as other tasks on the same
loop. A call races against the holder's end, so a server that dies mid-call fails that call at once
(and every later call with the same clear message) instead of leaving the agent waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import AsyncIterator
from typing import Any

from smol_core.plugin_api import AllowSetting, SmolError
from smol_tool_mcp.results import MCPToolError

DEFAULT_TIMEOUT = 60.0
DEFAULT_CONNECT_TIMEOUT = 30.0
# How long closing may wait for a session to end by itself, then again once cancelled.
CLOSE_TIMEOUT = 5.0


class MCPConnectionError(SmolError):
    """An MCP server could not be started or reached, or did not list its tools in time."""


def server_label(params: Any) -> str:
    """A short human name for a server, used in every error message."""
    if isinstance(params, str):
        return params
    if isinstance(params, dict):
        return str(params.get("url", params))
    command = getattr(params, "command", None)
    if command is not None:
        return shlex.join([command, *getattr(params, "args", [])])
    return repr(params)


REFUSED_STATUSES = (401, 403)


def refused_message(label: str, status: int) -> str:
    """What to do when an HTTP MCP server refuses the client's credentials (the SDK only says
    "Server returned an error response")."""
    from smol_tool_mcp.http_security import TOKEN_ENV

    return (
        f"The MCP server {label!r} answered HTTP {status} "
        f"({'Unauthorized' if status == 401 else 'Forbidden'}): it needs a token this client did not "
        f"send or that is wrong. Set {TOKEN_ENV} to the server's token (`smol mcp serve` prints it) or "
        "pass headers={'Authorization': 'Bearer <token>'}."
    )


def _status_recorder(statuses: list[int]) -> Any:
    async def record(response: Any) -> None:
        if response.status_code in REFUSED_STATUSES:
            statuses.append(int(response.status_code))

    return record


@contextlib.asynccontextmanager
async def open_client(
    params: Any,
    timeout: float,
    statuses: list[int] | None = None,
    refusals: list[str] | None = None,
    allow_private_addresses: AllowSetting = None,
) -> AsyncIterator[Any]:
    """An entered `mcp.Client` for stdio parameters, a URL, or a `{"url", "transport", "headers"}` dict.

    Over HTTP, connections go through smol's address policy (`guarded_http`: the configured endpoint
    and `allow_private_addresses`); `statuses` collects the 401/403 answers the server gave and
    `refusals` the policy's refusals, so that either can be reported as what it is.
    """
    from mcp import Client, StdioServerParameters

    if isinstance(params, str) and params.startswith(("http://", "https://")):
        params = {"url": params}
    if isinstance(params, StdioServerParameters | str):
        async with Client(params, read_timeout_seconds=timeout) as client:
            yield client
        return
    if not isinstance(params, dict) or "url" not in params:
        raise MCPConnectionError(
            "MCP server parameters must be a StdioServerParameters, a URL, or a dict with a 'url' "
            f"(and optionally 'transport': 'streamable-http' | 'sse', 'headers'), got {params!r}."
        )
    transport = params.get("transport", "streamable-http")
    headers = params.get("headers")
    url = str(params["url"])
    if not url.lower().startswith(("http://", "https://")):
        raise MCPConnectionError(f"An MCP server URL must be http:// or https://, not {url[:200]!r}.")
    from smol_tool_mcp.guarded_http import endpoint_policy, guarded_client_factory

    http_client_factory = guarded_client_factory(
        endpoint_policy(url, allow_private_addresses),
        refusals if refusals is not None else [],
        [_status_recorder(statuses if statuses is not None else [])],
    )

    if transport == "sse":
        from mcp.client.sse import sse_client

        sse = sse_client(params["url"], headers=headers, httpx_client_factory=http_client_factory)
        async with Client(sse, read_timeout_seconds=timeout) as client:
            yield client
        return
    if transport not in ("streamable-http", "http"):
        raise MCPConnectionError(f"Unknown MCP transport {transport!r}: use 'streamable-http' or 'sse'.")
    from mcp.client.streamable_http import streamable_http_client

    async with http_client_factory(headers=headers or None) as http_client:
        transport_cm = streamable_http_client(params["url"], http_client=http_client)
        async with Client(transport_cm, read_timeout_seconds=timeout) as client:
            yield client


def _plain(error: BaseException) -> BaseException:
    """The first leaf of an exception group: anyio wraps transport failures in groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


class Connection:
    def __init__(self, params: Any, timeout: float, allow_private_addresses: AllowSetting = None) -> None:
        self.params = params
        self.allow_private_addresses = allow_private_addresses
        self.label = server_label(params)
        self.timeout = timeout
        self.client: Any = None
        self.failure: BaseException | None = None
        self._refusals: list[int] = []
        self._blocked: list[str] = []
        self._stop: asyncio.Event | None = None
        self._closed: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None

    async def open(self, connect_timeout: float) -> list[Any]:
        """Start the session and return the server's tools (every page)."""
        self.failure = None
        self._stop, self._closed = asyncio.Event(), asyncio.Event()
        ready: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        # Mark the outcome as seen even when nobody waits any more (after a timeout): asyncio would
        # otherwise log "exception was never retrieved" with a traceback from the loop thread.
        ready.add_done_callback(lambda future: future.cancelled() or future.exception())
        self._holder = asyncio.create_task(self._hold(ready))
        try:
            return await asyncio.wait_for(asyncio.shield(ready), connect_timeout)
        except TimeoutError:
            await self.close()
            raise MCPConnectionError(
                f"The MCP server {self.label!r} did not start and list its tools within {connect_timeout:g} s."
            ) from None
        except MCPConnectionError:
            raise
        except Exception as error:
            await self.close()
            cause = _plain(error)
            if self._blocked:
                raise MCPConnectionError(
                    f"Could not connect to the MCP server {self.label!r}: {self._blocked[0]}"
                ) from cause
            if self._refusals:
                raise MCPConnectionError(refused_message(self.label, self._refusals[0])) from cause
            raise MCPConnectionError(
                f"Could not connect to the MCP server {self.label!r}: {type(cause).__name__}: {cause}"
            ) from cause

    async def _hold(self, ready: asyncio.Future[list[Any]]) -> None:
        assert self._stop is not None and self._closed is not None
        try:
            self._refusals.clear()
            self._blocked.clear()
            async with open_client(
                self.params, self.timeout, self._refusals, self._blocked, self.allow_private_addresses
            ) as client:
                tools: list[Any] = []
                cursor = None
                for _ in range(1000):  # a paginator that never ends must not hang the connection
                    page = await client.list_tools(cursor=cursor)
                    tools += page.tools
                    cursor = page.next_cursor
                    if not cursor:
                        break
                self.client = client
                ready.set_result(tools)
                await self._stop.wait()
        except BaseException as error:  # recorded for later calls; the holder must always end cleanly
            self.failure = _plain(error)
            if not ready.done():
                if isinstance(self.failure, Exception):
                    ready.set_exception(self.failure)
                else:
                    ready.cancel()
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self.client = None
            self._closed.set()

    def _gone(self, tool: str) -> MCPToolError:
        reason = f" ({type(self.failure).__name__}: {self.failure})" if self.failure else ""
        return MCPToolError(
            f"The MCP server {self.label!r} is no longer connected{reason}; the tool {tool!r} cannot run. "
            "It may have crashed; the host can call MCPClient.reconnect() to start it again."
        )

    async def call(self, name: str, arguments: dict[str, Any], timeout: float | None = None) -> Any:
        timeout = self.timeout if timeout is None else timeout
        client = self.client
        if client is None or self._closed is None or self._closed.is_set():
            raise self._gone(name)
        call = asyncio.ensure_future(client.call_tool(name, arguments, read_timeout_seconds=timeout))
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            done, _ = await asyncio.wait({call, closed}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
        if call in done:
            try:
                return call.result()
            except Exception as error:
                cause = _plain(error)
                if "closed" in str(cause).lower():
                    self.failure = self.failure or cause
                    self.client = None
                    raise MCPToolError(
                        f"The MCP server {self.label!r} closed the connection while running the tool "
                        f"{name!r} (it may have crashed): {cause}"
                    ) from cause
                raise MCPToolError(
                    f"The MCP tool {name!r} on {self.label!r} failed: {type(cause).__name__}: {cause}"
                ) from cause
        call.cancel()
        if closed in done or self._closed.is_set():
            raise self._gone(name)
        raise MCPToolError(
            f"The MCP tool {name!r} on {self.label!r} did not answer within {timeout:g} s; "
            "the call was cancelled (pass a larger `timeout=` if it is just slow)."
        )

    async def close(self) -> None:
        """End the session: gracefully once it is open, by cancelling while it is still starting."""
        if self._stop is not None:
            self._stop.set()
        holder = self._holder
        if holder is None or holder.done():
            return
        if self.client is not None:
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(holder), CLOSE_TIMEOUT)
        if not holder.done():
            holder.cancel()
            with contextlib.suppress(TimeoutError, BaseException):
                await asyncio.wait_for(holder, CLOSE_TIMEOUT)
