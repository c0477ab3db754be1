"""An httpx client that checks every address it connects to, at the moment it connects.

Checking a URL's host and then letting the HTTP library resolve it again leaves a gap: a hostile
DNS server answers the check with a public address and the connection with 127.0.0.1 (DNS
rebinding). So the check lives in the connect path itself: the network backend resolves the host
once, refuses it if *any* address it resolves to is not allowed, and opens the socket to the
address it checked. TLS still verifies the certificate against the host name (httpcore passes the
name to `start_tls`), and every redirect hop opens its connection through the same backend.

Proxies from the environment are not used: through a proxy the proxy resolves the host, and the
check would see only the proxy's address.
"""

from __future__ import annotations

import functools
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from smol_tool_web.address_policy import AddressPolicy, IPAddress, literal_address


class BlockedAddressError(Exception):
    """A connection was refused by the address policy; `reason` says which rule refused it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to, in the resolver's order (an IP literal is itself)."""
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise httpcore.ConnectError(f"cannot resolve {host!r}: {error}") from error
    found: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        ip = literal_address(str(sockaddr[0]))
        if ip is not None and ip not in found:
            found.append(ip)
    if not found:
        raise httpcore.ConnectError(f"{host!r} resolves to no address")
    return found


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, connecting only to addresses the policy allows."""

    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = resolve(host, port)
        for ip in addresses:  # one bad answer refuses the host: a rebinding resolver mixes them
            reason = self.policy.refuse_address(host, port, ip)
            if reason is not None:
                raise BlockedAddressError(reason)
        last: Exception | None = None
        for ip in addresses:
            try:
                return super().connect_tcp(str(ip), port, timeout, local_address, socket_options)
            except httpcore.ConnectError as error:
                last = error
        assert last is not None
        raise last


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One verified TLS context for every fetch (loading the CA bundle costs more than a request)."""
    return httpx.create_ssl_context()


class GuardedTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` whose connection pool connects through a `GuardedBackend`."""

    def __init__(self, policy: AddressPolicy) -> None:
        context = _ssl_context()
        super().__init__(verify=context, trust_env=False)
        self._pool = httpcore.ConnectionPool(ssl_context=context, network_backend=GuardedBackend(policy))


def guarded_client(policy: AddressPolicy, timeout: float) -> httpx.Client:
    """A client for one fetch: guarded connections, redirects left to the caller (each hop is checked)."""
    return httpx.Client(
        transport=GuardedTransport(policy), timeout=timeout, follow_redirects=False, trust_env=False
    )
