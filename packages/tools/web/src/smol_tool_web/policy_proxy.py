"""A proxy on 127.0.0.1 for one request sent with `requests`: it connects only where the policy allows.

Why it exists: smolagents' Exa engine sends its search with `requests.post`, and code written for
smolagents (its own tests among them) patches that function to stand in for Exa. smol's Exa engine
sends through the same call, so such a patch reaches it, and hands `requests` this proxy, so that
`requests` never opens a connection of its own. The proxy applies the check smol's guarded client
applies (`smol_core.plugin_api.guarded_request`): it resolves the host once, refuses it when any
address it resolves to is not allowed, and connects to the address it checked, so a rebinding
resolver cannot slip a second answer in. HTTPS goes through as a tunnel (CONNECT): TLS runs end to
end and `requests` still verifies the certificate against the host name.

Who may use it: only the request it was made for. Any local process can connect to a port on
127.0.0.1, so the proxy's URL carries a secret drawn for this request (`requests` sends it as
`Proxy-Authorization`); a connection without it is answered 407 and closed, and the proxy waits on
for its own request, so another process can neither take that request's place nor use the proxy
as a relay. The secret is removed from what is forwarded.

Limits: it serves one request (sent without following redirects), and only while the request is
under way; what the server sends is bounded by `max_bytes`, counted as it passes (headers and TLS
framing included). A local process that connects and sends nothing holds the proxy for up to
`timeout`, so it can delay the request (and make it time out), never redirect it.
"""

from __future__ import annotations

import base64
import contextlib
import hmac
import secrets
import selectors
import socket
import threading
from types import TracebackType
from urllib.parse import urlsplit

from smol_core.plugin_api import AddressPolicy, resolve_host

HEAD_LIMIT = 64 * 1024  # a request head longer than this is not one `requests` sends
REFUSED = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
UNREACHABLE = b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
NOT_YOURS = b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
USER = "smol"


class PolicyProxy:
    """`with PolicyProxy(policy, max_bytes, timeout) as proxy: requests.post(..., proxies=proxy.proxies)`.

    After the request, `refusal_reason` says why the address was refused, `unreachable` why the
    connection could not be made, and `too_large` whether the server sent more than `max_bytes`:
    the caller reports those rather than `requests`' own error."""

    def __init__(self, policy: AddressPolicy, max_bytes: int, timeout: float) -> None:
        self.policy = policy
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.refusal_reason: str | None = None
        self.unreachable: str | None = None
        self.too_large = False
        self._secret = secrets.token_urlsafe(24)
        self._token = base64.b64encode(f"{USER}:{self._secret}".encode())
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(timeout)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve_one, name="smol-web-proxy", daemon=True)

    @property
    def proxies(self) -> dict[str, str]:
        url = f"http://{USER}:{self._secret}@127.0.0.1:{self._listener.getsockname()[1]}"
        return {"http": url, "https": url}

    def proxies_for(self, url: str) -> dict[str, str]:
        """`proxies` for a request to `url`, keyed by its scheme and host too: `requests` prefers a
        `<scheme>://<host>` entry, and would take one from the environment (`<scheme>://<host>_proxy`)
        over the scheme-wide one, going round the proxy."""
        parts = urlsplit(url)
        proxies = self.proxies
        if parts.hostname:
            proxies[f"{parts.scheme.lower()}://{parts.hostname}"] = proxies["http"]
        return proxies

    def __enter__(self) -> PolicyProxy:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):  # shutdown wakes an accept() still waiting (close alone does not)
            self._listener.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(timeout=5)

    def _serve_one(self) -> None:
        """Serve the first connection that holds this proxy's secret; answer 407 to any other."""
        try:
            while not self._closed.is_set():
                try:
                    client, _ = self._listener.accept()
                except OSError:  # closed unused (a patched `requests.post` never connects), or timed out
                    return
                with client:
                    client.settimeout(self.timeout)
                    if self._serve(client):
                        return
        finally:
            with contextlib.suppress(OSError):
                self._listener.close()

    def _serve(self, client: socket.socket) -> bool:
        """Serve `client`'s request; False when it is not the request this proxy was made for."""
        try:
            head, rest = _read_head(client)
        except (OSError, ValueError):
            return False
        head, authorization = _without_authorization(head)
        scheme, _, token = authorization.partition(b" ")
        if scheme.lower() != b"basic" or not hmac.compare_digest(token.strip(), self._token):
            with contextlib.suppress(OSError):
                client.sendall(NOT_YOURS)
            return False
        with contextlib.suppress(OSError, ValueError):  # a port out of range, a client gone: anyone's text
            self._forward(client, head, rest)
        return True

    def _forward(self, client: socket.socket, head: bytes, rest: bytes) -> None:
        """Connect where the request asks, if the policy allows it, and relay both ways."""
        method, target, version = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        if method == "CONNECT":
            host, port, first = *_authority(target, 443), b""
        else:
            parts = urlsplit(target)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            host, port = parts.hostname or "", parts.port or 80
            first = f"{method} {path} {version}".encode("latin-1") + head[head.index(b"\r\n") :]
            if parts.scheme != "http":
                host = ""  # refused below: only http is forwarded, https comes as CONNECT
        upstream = self._connect(host, port)
        if upstream is None:
            client.sendall(REFUSED if self.refusal_reason else UNREACHABLE)
            return
        with upstream:
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n" if not first else b"")
            upstream.sendall(first + rest)
            self._relay(client, upstream)

    def _connect(self, host: str, port: int) -> socket.socket | None:
        """A socket to an address of `host` the policy allows, or None (and why, in the attributes)."""
        reason = self.policy.refuse_name(host, port) if host else "the address names no host"
        addresses = []
        if reason is None:
            try:
                addresses = resolve_host(host, port)
            except (OSError, UnicodeError) as error:
                self.unreachable = f"cannot resolve {host!r}: {error}"
                return None
            # one bad answer refuses the host: a rebinding resolver mixes them
            reasons = (self.policy.refuse_address(host, port, ip) for ip in addresses)
            reason = next((why for why in reasons if why is not None), None)
        if reason is not None:
            self.refusal_reason = reason
            return None
        for ip in addresses:
            try:
                return socket.create_connection((str(ip), port), timeout=self.timeout)
            except OSError as error:
                self.unreachable = str(error)
        return None

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        """Copy both ways until either side closes, at most `max_bytes` from the server."""
        received = 0
        with selectors.DefaultSelector() as selector:
            selector.register(client, selectors.EVENT_READ, upstream)
            selector.register(upstream, selectors.EVENT_READ, client)
            while not self._closed.is_set():
                for key, _ in selector.select(timeout=0.2):
                    source, target = key.fileobj, key.data
                    assert isinstance(source, socket.socket)
                    try:
                        chunk = source.recv(65536)
                        if not chunk:
                            return
                        if source is upstream:
                            received += len(chunk)
                            if received > self.max_bytes:
                                self.too_large = True
                                return
                        target.sendall(chunk)
                    except OSError:
                        return


def _without_authorization(head: bytes) -> tuple[bytes, bytes]:
    """`head` without its Proxy-Authorization line (never forwarded), and that line's value."""
    kept, value = [], b""
    for line in head.split(b"\r\n"):
        name, sep, rest = line.partition(b":")
        if sep and name.strip().lower() == b"proxy-authorization":
            value = rest.strip()
        else:
            kept.append(line)
    return b"\r\n".join(kept), value


def _read_head(client: socket.socket) -> tuple[bytes, bytes]:
    """The request head (up to its blank line) and whatever came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        if not chunk or len(data) > HEAD_LIMIT:
            raise ValueError("no request head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head + b"\r\n\r\n", rest


def _authority(target: str, default_port: int) -> tuple[str, int]:
    """`host:port` (or `[v6]:port`) of a CONNECT line."""
    parts = urlsplit(f"//{target}")
    return parts.hostname or "", parts.port or default_port
