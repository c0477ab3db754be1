"""Which addresses a tool may fetch: public ones only, unless the user allows more.

The one address policy of smol: the web tools, the webagent's browser, the Hub/Space tools and the
MCP client over HTTP all check here (through `smol_core.plugin_api`), so a rule added once holds
for every surface that fetches.

The model chooses the URLs a fetching tool opens, and a page (or a prompt injection on it) can
steer the model, so a fetch is a request made *from the host* on a stranger's behalf. Without a rule it
reaches what only the host can reach: a database on 127.0.0.1, the router at 192.168.1.1, or the
cloud metadata service at 169.254.169.254, which hands out credentials (SSRF). So every address a
fetch connects to must be public; loopback, private, link-local, CGNAT, multicast, unspecified and
reserved addresses are refused, including their IPv6 spellings (`::ffff:127.0.0.1`, 6to4, NAT64),
and the well-known metadata host names are refused by name.

The user opts in explicitly: `allow_private_addresses=True` (everything), or an allow-list of
`host`, `host:port`, IP, `IP:port`, `[IPv6]:port` or network (`10.0.0.0/8`) entries, on the tool or
in `SMOL_WEB_ALLOW_PRIVATE` (read by every fetching tool; "1" for everything, or entries separated by commas or spaces). Entries
with a port are exact, so a test can allow one stand-in server and still see a redirect to another
port on the same machine refused.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union
from urllib.parse import urlsplit

from smol_core.errors import SmolError

IPAddress = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]  # noqa: UP007 - a runtime alias
IPNetwork = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]  # noqa: UP007
AllowSetting = Union[bool, str, Iterable[str], None]  # noqa: UP007

ENV_VAR = "SMOL_WEB_ALLOW_PRIVATE"
ADDRESS_POLICY_ENV = ENV_VAR  # its public name: what a user sets to allow more addresses

# Names that cloud providers resolve to their instance-metadata service (credentials live there).
METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
        "metadata.platformequinix.com",
    }
)
# Metadata services that live at addresses of their own (AWS, Azure, GCP, Oracle, Alibaba).
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_TRUE = {"1", "true", "yes", "on", "all", "*"}
_FALSE = {"", "0", "false", "no", "off", "none"}


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped, 6to4, Teredo, NAT64, IPv4-compatible)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    packed = ip.packed
    if ip in _NAT64 or (packed[:12] == bytes(12) and int(ip) > 1):
        return ipaddress.IPv4Address(packed[12:])
    return None


def address_class(ip: IPAddress) -> str | None:
    """Why `ip` is not a public address ("loopback addresses", ...), or None when it is public."""
    inner = _embedded_ipv4(ip)
    if inner is not None:
        return address_class(inner)
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "loopback addresses"
    if ip in METADATA_ADDRESSES:
        return "cloud metadata addresses"
    if ip.is_link_local:
        return "link-local addresses"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "shared (CGNAT) addresses"
    if ip.is_multicast:
        return "multicast addresses"
    if ip.is_private:
        return "private addresses"
    if ip.is_reserved or not ip.is_global:
        return "reserved (non-public) addresses"
    return None


def describe(ip: IPAddress) -> str:
    """The address as a message shows it, with the IPv4 address an IPv6 spelling hides."""
    inner = _embedded_ipv4(ip)
    return f"{inner} written as {ip}" if inner is not None else str(ip)


def literal_address(host: str) -> IPAddress | None:
    """`host` as an IP address, in any spelling the resolver accepts: `2130706433`, `0x7f.1`, `127.1`."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class AllowEntry:
    """One allow-list entry: a host name, or an address or network, with an optional exact port."""

    text: str
    host: str | None = None
    network: IPNetwork | None = None
    port: int | None = None

    @classmethod
    def parse(cls, text: str) -> AllowEntry:
        raw = text.strip()
        if not raw:
            raise ValueError("An empty entry in the list of allowed addresses.")
        try:  # a bare address or network, IPv6 included (its colons are not a port)
            return cls(raw, network=ipaddress.ip_network(raw, strict=False))
        except ValueError:
            pass
        host, port = raw, None
        if raw.startswith("["):
            inside, _, rest = raw[1:].partition("]")
            host = inside
            if rest:
                if not rest.startswith(":") or not rest[1:].isdigit():
                    raise ValueError(f"Cannot read the allowed address {raw!r}: use [IPv6]:port.")
                port = int(rest[1:])
        elif ":" in raw:
            head, _, tail = raw.rpartition(":")
            if not tail.isdigit():
                raise ValueError(
                    f"Cannot read the allowed address {raw!r}: use host, host:port or a network."
                )
            host, port = head, int(tail)
        try:
            return cls(raw, network=ipaddress.ip_network(host, strict=False), port=port)
        except ValueError:
            return cls(raw, host=host.lower().rstrip("."), port=port)

    def matches(self, host: str, port: int, ip: IPAddress | None) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.host is not None:
            return host.lower().rstrip(".") == self.host
        if self.network is not None and ip is not None:
            if ip.version != self.network.version:
                inner = _embedded_ipv4(ip)
                return inner is not None and inner in self.network
            return ip in self.network
        return False


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses only, plus what the user allowed (`allow_all`, or `entries`)."""

    allow_all: bool = False
    entries: tuple[AllowEntry, ...] = ()

    @classmethod
    def parse(cls, setting: AllowSetting) -> AddressPolicy:
        """From a tool's `allow_private_addresses=`: a bool, or entries (a list, or one string)."""
        if setting is None or setting is False:
            return cls()
        if setting is True:
            return cls(allow_all=True)
        if isinstance(setting, str):
            word = setting.strip().lower()
            if word in _TRUE:
                return cls(allow_all=True)
            if word in _FALSE:
                return cls()
            setting = setting.replace(",", " ").split()
        return cls(entries=tuple(AllowEntry.parse(item) for item in setting))

    def with_environment(self) -> AddressPolicy:
        """This policy widened by `SMOL_WEB_ALLOW_PRIVATE`, read at each fetch (so tests can set it)."""
        extra = AddressPolicy.parse(os.environ.get(ENV_VAR))
        if not extra.allow_all and not extra.entries:
            return self
        return AddressPolicy(self.allow_all or extra.allow_all, self.entries + extra.entries)

    def allowed(self, host: str, port: int, ip: IPAddress | None) -> bool:
        return self.allow_all or any(entry.matches(host, port, ip) for entry in self.entries)

    def refuse_name(self, host: str, port: int) -> str | None:
        """Why `host` itself may not be fetched (a metadata name, or a non-public literal address)."""
        name = host.lower().rstrip(".").strip("[]")
        ip = literal_address(name)
        if self.allowed(name, port, ip):
            return None
        if name in METADATA_HOSTS:
            return f"cloud metadata hosts are not allowed ({name})"
        if ip is not None:
            reason = address_class(ip)
            if reason:
                return f"{reason} are not allowed ({describe(ip)})"
        return None

    def refuse_address(self, host: str, port: int, ip: IPAddress) -> str | None:
        """Why `host`, which resolved to `ip`, may not be connected to; None when it may.

        A cloud metadata address is unlocked only by `allow_all` or an entry naming the address (or
        its network): an allowed host *name* that resolves there (a rebinding resolver, a hostile
        record) must not hand out the machine's credentials.
        """
        reason = address_class(ip)
        if reason is None:
            return None
        if reason == "cloud metadata addresses":
            by_address = self.allow_all or any(
                entry.network is not None and entry.matches(host, port, ip) for entry in self.entries
            )
            if by_address:
                return None
        elif self.allowed(host.strip("[]"), port, ip):
            return None
        if literal_address(host) == ip:
            return f"{reason} are not allowed ({describe(ip)})"
        return f"{reason} are not allowed ({host} resolves to {describe(ip)})"


class AddressRefusedError(SmolError):
    """A URL (or a redirect hop, or a page a browser landed on) names an address the policy refuses;
    `reason` says which rule refused it."""

    def __init__(self, message: str, reason: str = "", url: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
        self.url = url


FETCH_SCHEMES = ("http", "https")


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address `host` resolves to (an IP literal is itself); OSError when it resolves to none."""
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        ip = literal_address(str(sockaddr[0]))
        if ip is not None and ip not in found:
            found.append(ip)
    if not found:
        raise OSError(f"{host!r} resolves to no address")
    return found


def url_refusal(
    url: str,
    policy: AddressPolicy | None = None,
    *,
    schemes: tuple[str, ...] = FETCH_SCHEMES,
    resolve: bool = True,
) -> str | None:
    """Why `url` may not be opened under `policy` (widened by the environment), or None when it may.

    Refused: a scheme outside `schemes` (`file:`, `data:`, `javascript:`, `chrome:`...), a URL with
    no host, a metadata host name, a non-public address written into the URL in any spelling and,
    when `resolve` is true, a host name that resolves to any non-public address (one bad answer
    refuses the host: a rebinding resolver mixes them). A name that does not resolve is not refused
    here: the fetch itself then fails to connect. Callers that connect themselves (httpx through
    `guarded_client`) check again at connect time, which closes the gap between check and use;
    callers that cannot (a browser) re-check the URL they landed on.
    """
    rules = (policy or AddressPolicy()).with_environment()
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        return f"the address cannot be read ({error})"
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        allowed = " and ".join(schemes)
        return f"only {allowed} addresses can be opened, not {scheme or 'this'}:"
    host = parts.hostname or ""
    if not host:
        return "the address names no host"
    port = port or (443 if scheme in ("https", "wss") else 80)
    reason = rules.refuse_name(host, port)
    if reason is not None or not resolve:
        return reason
    try:
        addresses = resolve_host(host, port)
    except (OSError, UnicodeError):
        return None
    for ip in addresses:
        reason = rules.refuse_address(host, port, ip)
        if reason is not None:
            return reason
    return None


def check_url(
    url: str,
    policy: AddressPolicy | None = None,
    *,
    schemes: tuple[str, ...] = FETCH_SCHEMES,
    resolve: bool = True,
    what: str = "open",
) -> None:
    """Raise `AddressRefusedError` when `url_refusal` refuses `url`; the message says what to do."""
    reason = url_refusal(url, policy, schemes=schemes, resolve=resolve)
    if reason is not None:
        raise AddressRefusedError(refusal_message(url, reason, what), reason, url)


def refusal_message(url: str, reason: str, what: str = "open", who: str = "smol's tools") -> str:
    """The words a refusal reaches the model (or the user) in."""
    return (
        f"refused to {what} {url}: {reason}; {who} only fetch public internet addresses. "
        f"Use a public URL instead (the user can allow this address with allow_private_addresses= "
        f"or {ENV_VAR})."
    )
