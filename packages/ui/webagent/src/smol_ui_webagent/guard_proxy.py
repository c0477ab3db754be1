"""Every request the browser makes goes through smol's address policy: a proxy in the host.

The browser fetches what pages ask for (images, scripts, frames, XHR, redirects), not only what
`go_to` was given, and the page is a stranger. Checking navigation targets alone would let a page
on the internet load `http://127.0.0.1:8080/admin` into a frame, or redirect to a router's page, and
the screenshot would show it to the model. So the browser is started with this proxy as its only
way out (`--proxy-server`, with `<-loopback>` so that even loopback goes through it): the proxy
resolves each host itself, refuses it if any address it resolves to is not allowed (the same
`AddressPolicy` as the web tools, with the user's grants), and connects to the address it checked,
so a rebinding resolver gains nothing. HTTPS goes through as a CONNECT tunnel to a checked address;
the proxy never sees inside it. A refusal is a 403 page that says why.
"""

from __future__ import annotations

import contextlib
import select
import socket
import socketserver
import threading
from urllib.parse import urlsplit

from smol_core.plugin_api import AddressPolicy, literal_address, url_refusal

MAX_HEAD = 64 * 1024  # a request head larger than this is refused
CONNECT_TIMEOUT = 15.0
IDLE_TIMEOUT = 120.0


def _read_head(conn: socket.socket) -> bytes | None:
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD:
            return None
        chunk = conn.recv(8192)
        if not chunk:
            return None
        data += chunk
    return data


def _refuse(conn: socket.socket, reason: str) -> None:
    body = f"smol refused this address: {reason}\n".encode()
    head = (
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with contextlib.suppress(OSError):
        conn.sendall(head + body)


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes or both stay silent for `IDLE_TIMEOUT`."""
    sockets = [a, b]
    while True:
        readable, _, broken = select.select(sockets, [], sockets, IDLE_TIMEOUT)
        if broken or not readable:
            return
        for source in readable:
            target = b if source is a else a
            try:
                chunk = source.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            try:
                target.sendall(chunk)
            except OSError:
                return


def _connect_checked(policy: AddressPolicy, scheme: str, host: str, port: int) -> socket.socket | str:
    """A socket to an address of `host` the policy allows, or why there is none."""
    shown = f"[{host}]" if ":" in host else host
    url = f"{scheme}://{shown}:{port}/"
    reason = url_refusal(url, policy)
    if reason is not None:
        return reason
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        return f"cannot resolve {host!r}: {error}"
    rules = policy.with_environment()
    for _family, _type, _proto, _name, sockaddr in infos:  # check every answer, then connect to one
        ip = literal_address(str(sockaddr[0]))
        if ip is None:
            return f"{host!r} resolves to an unreadable address"
        refused = rules.refuse_address(host, port, ip)
        if refused is not None:
            return refused
    last = "no address"
    for family, kind, proto, _name, sockaddr in infos:
        upstream = socket.socket(family, kind, proto)
        upstream.settimeout(CONNECT_TIMEOUT)
        try:
            upstream.connect(sockaddr)
        except OSError as error:
            upstream.close()
            last = str(error)
            continue
        upstream.settimeout(None)
        return upstream
    return f"cannot connect to {host}:{port} ({last})"


class _Handler(socketserver.BaseRequestHandler):
    server: _ProxyServer

    def handle(self) -> None:
        conn: socket.socket = self.request
        conn.settimeout(IDLE_TIMEOUT)
        try:
            head = _read_head(conn)
        except OSError:
            return
        if head is None:
            return
        line, _, rest = head.partition(b"\r\n")
        try:
            method, target, version = line.decode("latin-1").split(" ")
        except ValueError:
            _refuse(conn, "a request the proxy cannot read")
            return
        policy = self.server.policy
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            host = host.strip("[]")
            if not port_text.isdigit() or not host:
                _refuse(conn, f"a tunnel to {target!r}")
                return
            upstream = _connect_checked(policy, "https", host, int(port_text))
            if isinstance(upstream, str):
                _refuse(conn, upstream)
                return
            with upstream:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _pipe(conn, upstream)
            return
        parts = urlsplit(target)
        if parts.scheme.lower() != "http" or not parts.hostname:
            _refuse(conn, f"only http and https addresses can be opened ({target[:200]})")
            return
        try:
            port = parts.port or 80
        except ValueError:
            _refuse(conn, f"an unreadable address ({target[:200]})")
            return
        upstream = _connect_checked(policy, "http", parts.hostname, port)
        if isinstance(upstream, str):
            _refuse(conn, upstream)
            return
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        headers = [
            h
            for h in rest.split(b"\r\n")
            if h and not h.lower().startswith((b"proxy-connection:", b"connection:", b"keep-alive:"))
        ]
        request = b"\r\n".join(
            [f"{method} {path} {version}".encode("latin-1"), *headers, b"Connection: close", b"", b""]
        )
        with upstream:
            upstream.sendall(request)
            _pipe(conn, upstream)


class _ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, policy: AddressPolicy) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.policy = policy


class GuardProxy:
    """The proxy for one browser: `start()` it, hand `address` to Chromium, `close()` it after."""

    def __init__(self, policy: AddressPolicy) -> None:
        self._server = _ProxyServer(policy)
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> str:
        host, port = self._server.server_address[:2]
        return f"{host!s}:{port}"

    @property
    def policy(self) -> AddressPolicy:
        return self._server.policy

    @policy.setter
    def policy(self, value: AddressPolicy) -> None:
        self._server.policy = value

    def start(self) -> GuardProxy:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="smol-browser-proxy", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chromium_flags(self) -> list[str]:
        """The flags that make the proxy the browser's only way out."""
        return [
            f"--proxy-server=http://{self.address}",
            "--proxy-bypass-list=<-loopback>",  # loopback too goes through the proxy (and is refused)
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--dns-prefetch-disable",
            "--disable-quic",
        ]
