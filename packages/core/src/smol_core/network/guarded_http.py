"""An httpx client that checks every address it connects to, at the moment it connects.

Needs httpx (and httpcore): the plugins that fetch over HTTP depend on it; smol-core does not, so
this module is imported only by them (through `smol_core.plugin_api`).

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
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from smol_core.network.address_policy import (
    AddressPolicy,
    AddressRefusedError,
    IPAddress,
    refusal_message,
    resolve_host,
)
from smol_core.network.errors import BlockedAddressError, DownloadTooLargeError, TooManyRedirectsError

DEFAULT_MAX_BYTES = 10 * 1024 * 1024  # a download larger than this is refused, not read


def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to, in the resolver's order (an IP literal is itself)."""
    try:
        return resolve_host(host, port)
    except (OSError, UnicodeError) as error:
        raise httpcore.ConnectError(f"cannot resolve {host!r}: {error}") from error


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


def check_hop(policy: AddressPolicy, url: httpx.URL) -> None:
    """Refuse a hop before it is sent: a scheme other than http(s), no host, a metadata host, a
    non-public address written into the URL (in any spelling). Host names are checked where they
    connect (`GuardedBackend`), which a rebinding resolver cannot get around."""
    reason: str | None = None
    if url.scheme not in ("http", "https"):
        reason = f"only http and https addresses can be fetched, not {url.scheme or 'this'}:"
    elif not url.host:
        reason = "the address names no host"
    else:
        reason = policy.refuse_name(url.host, url.port or (443 if url.scheme == "https" else 80))
    if reason is not None:
        raise AddressRefusedError(refusal_message(str(url), reason, "fetch"), reason, str(url))


def read_bounded(response: httpx.Response, max_bytes: int | None) -> bytes:
    """The body of a streamed `response`, refusing (and closing) it past `max_bytes`: a page that
    sends gigabytes, or a Content-Length that says so, never fills the host's memory."""
    if max_bytes is not None:
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            response.close()
            raise DownloadTooLargeError(
                f"{response.url} is {int(declared)} bytes, more than the {max_bytes} allowed."
            )
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if max_bytes is not None and size > max_bytes:
            response.close()
            raise DownloadTooLargeError(f"{response.url} sent more than the {max_bytes} bytes allowed.")
        chunks.append(chunk)
    body = b"".join(chunks)
    response._content = body  # what .content / .text / .json() read
    return body


def guarded_request(
    method: str,
    url: str | httpx.URL,
    *,
    policy: AddressPolicy | None = None,
    timeout: float = 30.0,
    max_redirects: int = 10,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    follow_redirects: bool = True,
    **request_kwargs: Any,
) -> httpx.Response:
    """One request under the address policy, its body read (at most `max_bytes`).

    Every hop of a redirect chain is checked before it is sent (`check_hop`) and again where its
    connection opens (`GuardedBackend`). Raises `AddressRefusedError`, `TooManyRedirectsError`,
    `DownloadTooLargeError` or httpx's own errors.
    """
    rules = (policy or AddressPolicy()).with_environment()
    with guarded_client(rules, timeout) as client:
        outgoing = client.build_request(method, url, **request_kwargs)
        for _hop in range(max_redirects + 1):
            check_hop(rules, outgoing.url)
            try:
                response = client.send(outgoing, stream=True)
            except BlockedAddressError as error:
                hop = str(outgoing.url)
                raise AddressRefusedError(
                    refusal_message(hop, error.reason, "fetch"), error.reason, hop
                ) from None
            if not (follow_redirects and response.is_redirect and response.next_request is not None):
                break
            response.close()
            outgoing = response.next_request
        else:
            raise TooManyRedirectsError(
                f"{url} redirected more than {max_redirects} times (last to {outgoing.url})."
            )
        try:
            read_bounded(response, max_bytes)
        finally:
            response.close()
    return response
