"""The MCP client's HTTP connections, under smol's address policy.

The MCP SDK talks HTTP through `httpx2` (its own fork of httpx), so the core's guarded httpx client
cannot be handed to it; this is the same guard for `httpx2`: every connection resolves its host
once, is refused if any address it resolves to is not allowed, and opens a socket to the address
that was checked (a rebinding resolver gains nothing). The policy allows the endpoint the user
configured, as written (a literal address, or a host name), plus the user's grants
(`allow_private_addresses=`, `SMOL_WEB_ALLOW_PRIVATE`); a cloud metadata address is refused even
behind an allowed name. The SDK already keeps redirects and an SSE server's POST endpoint on the
configured origin. Proxies from the environment are not used: through a proxy the check would see
only the proxy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from smol_core.plugin_api import AddressPolicy, AllowEntry, AllowSetting, refusal_message


def endpoint_policy(url: str, allow_private_addresses: AllowSetting = None) -> AddressPolicy:
    """The user's grants plus the configured endpoint (its host and port, as the URL writes them)."""
    granted = AddressPolicy.parse(allow_private_addresses)
    parts = urlsplit(url)
    if not parts.hostname:
        return granted
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return AddressPolicy(granted.allow_all, (*granted.entries, AllowEntry.parse(f"{host}:{port}")))


def guarded_client_factory(
    policy: AddressPolicy, refusals: list[str], response_hooks: Iterable[Any] = ()
) -> Any:
    """An `McpHttpClientFactory` (the SDK's signature) whose clients connect under `policy`; each
    refusal's reason is appended to `refusals`, so the caller can say why the server was not reached."""
    import anyio
    import httpcore2
    import httpx2

    from smol_core.plugin_api import resolve_host

    class GuardedBackend(httpcore2.AnyIOBackend):
        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> Any:
            try:
                addresses = await anyio.to_thread.run_sync(resolve_host, host, port)
            except (OSError, UnicodeError) as error:
                raise httpcore2.ConnectError(f"cannot resolve {host!r}: {error}") from error
            rules = policy.with_environment()
            for ip in addresses:
                reason = rules.refuse_address(host, port, ip)
                if reason is not None:
                    refusals.append(refusal_message(f"{host}:{port}", reason, "connect to", "MCP clients"))
                    raise httpcore2.ConnectError(reason)
            last: Exception | None = None
            for ip in addresses:
                try:
                    return await super().connect_tcp(str(ip), port, timeout, local_address, socket_options)
                except httpcore2.ConnectError as error:
                    last = error
            assert last is not None  # resolve_host never answers an empty list
            raise last

    def factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

        transport = httpx2.AsyncHTTPTransport(trust_env=False)
        limits = httpx2.Limits(max_connections=100, max_keepalive_connections=20)
        transport._pool = httpcore2.AsyncConnectionPool(
            ssl_context=httpx2.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            network_backend=GuardedBackend(),
        )
        client = httpx2.AsyncClient(
            transport=transport,
            timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
            headers=headers,
            auth=auth,
            trust_env=False,
        )
        client.event_hooks["response"].extend(response_hooks)
        return client

    return factory
