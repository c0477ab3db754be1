"""Web tools fetch public addresses only (no SSRF), on every redirect hop, unless the user allows more.

Stand-ins on 127.0.0.1 play both the allowed site and the internal service it must not reach;
a patched resolver plays hostile DNS. No test leaves the machine: refused addresses are refused
before any packet is sent.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from smol_tool_web import (
    AddressRefusedError,
    DuckDuckGoSearchTool,
    GoogleSearchTool,
    VisitWebpageTool,
    WebSearchTool,
    WebToolError,
    WikipediaSearchTool,
)
from smol_tool_web._http import request
from smol_tool_web.address_policy import AddressPolicy, AllowEntry, address_class, literal_address
from web_standin import Reply, StandInWeb

HOME = "<html><head><title>Home</title></head><body><p>welcome</p></body></html>"


@pytest.fixture
def internal() -> Iterator[StandInWeb]:
    """A service on 127.0.0.1 that nothing allows: it must never see a request."""
    server = StandInWeb()
    server.route("GET", "/secret", Reply(200, "<p>the keys</p>"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def no_blanket_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMOL_WEB_ALLOW_PRIVATE", raising=False)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:8080/", "loopback addresses are not allowed (127.0.0.1)"),
        ("http://127.8.9.10/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://10.0.0.1/admin", "private addresses"),
        ("http://172.16.5.4/", "private addresses"),
        ("http://172.31.255.255/", "private addresses"),
        ("http://192.168.1.1/", "private addresses"),
        ("http://[fc00::1]/", "private addresses"),
        ("http://[fd12:3456::1]/", "private addresses"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata addresses"),
        ("http://[fd00:ec2::254]/", "cloud metadata addresses"),
        ("http://169.254.1.1/", "link-local addresses"),
        ("http://[fe80::1]/", "link-local addresses"),
        ("http://100.64.0.1/", "shared (CGNAT) addresses"),
        ("http://100.127.255.254/", "shared (CGNAT) addresses"),
        ("http://224.0.0.1/", "multicast addresses"),
        ("http://[ff02::1]/", "multicast addresses"),
        ("http://0.0.0.0:8000/", "the unspecified address"),
        ("http://[::]/", "the unspecified address"),
        (
            "http://[::ffff:127.0.0.1]/",
            "loopback addresses are not allowed (127.0.0.1 written as ::ffff:7f00:1)",
        ),
        ("http://[::ffff:10.1.2.3]/", "private addresses"),
        ("http://[::ffff:169.254.169.254]/", "cloud metadata addresses"),
        ("http://[::ffff:100.64.0.1]/", "CGNAT"),
        ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 around 127.0.0.1
        ("http://[64:ff9b::a00:1]/", "private addresses"),  # NAT64 around 10.0.0.1
        ("http://metadata.google.internal/computeMetadata/v1/", "cloud metadata hosts"),
        ("http://METADATA.google.internal./", "cloud metadata hosts"),
        ("http://2130706433/", "loopback addresses are not allowed (127.0.0.1)"),  # decimal
        ("http://0x7f.1/", "loopback addresses are not allowed (127.0.0.1)"),  # hex
        ("http://017700000001/", "loopback addresses are not allowed (127.0.0.1)"),  # octal
        ("http://0x7f000001/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://0xa9.0xfe.0xa9.0xfe/", "cloud metadata addresses"),
    ],
)
def test_every_non_public_class_is_refused(url: str, reason: str) -> None:
    with pytest.raises(WebToolError, match="refused to fetch") as caught:
        VisitWebpageTool()(url)
    message = str(caught.value)
    assert reason in message
    assert "web tools only fetch public internet addresses" in message


def test_the_refusal_names_the_url_and_what_the_user_can_do() -> None:
    with pytest.raises(AddressRefusedError) as caught:
        VisitWebpageTool()("http://127.0.0.1:8080/")
    assert str(caught.value).startswith(
        "refused to fetch http://127.0.0.1:8080/: loopback addresses are not allowed (127.0.0.1);"
    )
    assert "allow_private_addresses=" in str(caught.value) and "SMOL_WEB_ALLOW_PRIVATE" in str(caught.value)


def test_public_addresses_are_not_classed_as_internal() -> None:
    for public in ("8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8", "100.63.255.255", "172.32.0.1"):
        assert address_class(literal_address(public)) is None, public  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://example.com/x"])
def test_schemes_other_than_http_are_refused(url: str) -> None:
    with pytest.raises(WebToolError, match="refused to fetch .*only http and https"):
        request("the page", "GET", url, timeout=2)


def test_a_hostname_that_resolves_to_loopback_is_refused(internal: StandInWeb) -> None:
    port = internal.server.server_address[1]
    with pytest.raises(WebToolError, match=r"loopback addresses are not allowed \(localhost resolves to"):
        VisitWebpageTool()(f"http://localhost:{port}/secret")
    assert internal.seen == []


def test_a_redirect_to_another_local_port_is_refused_at_the_hop(
    web: StandInWeb, internal: StandInWeb
) -> None:
    """The first hop is allowed (the fixture allows exactly its host:port); the second is not."""
    target = internal.url("/secret")
    start = web.route("GET", "/moved", Reply(302, "", headers={"Location": target}))
    with pytest.raises(WebToolError, match=f"refused to fetch {target}: loopback addresses"):
        VisitWebpageTool()(start)
    assert [seen.path for seen in web.seen] == ["/moved"]
    assert internal.seen == []


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/iam/", "cloud metadata addresses"),
        ("http://2130706433/", "loopback"),
        ("http://localhost:1/", "loopback"),
        ("file:///etc/passwd", "only http and https"),
    ],
)
def test_redirects_to_internal_targets_are_refused(web: StandInWeb, location: str, reason: str) -> None:
    start = web.route("GET", "/go", Reply(301, "", headers={"Location": location}))
    with pytest.raises(WebToolError, match="refused to fetch") as caught:
        VisitWebpageTool()(start)
    assert reason in str(caught.value)


def test_redirects_are_capped(web: StandInWeb) -> None:
    loop = web.route("GET", "/loop", Reply(302, "", headers={"Location": "/loop"}))
    with pytest.raises(WebToolError, match="redirected more than 10 times"):
        VisitWebpageTool()(loop)
    assert len(web.seen) == 11


def test_the_user_can_allow_addresses_explicitly(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, port = internal.server.server_address[:2]
    url = internal.url("/secret")
    assert VisitWebpageTool(allow_private_addresses=True)(url) == "the keys"
    assert VisitWebpageTool(allow_private_addresses=[f"{host}:{port}"])(url) == "the keys"
    assert VisitWebpageTool(allow_private_addresses=["127.0.0.0/8"])(url) == "the keys"
    assert VisitWebpageTool(allow_private_addresses=[f"localhost:{port}"])(f"http://localhost:{port}/secret")
    with pytest.raises(WebToolError, match="refused to fetch"):  # another port is another service
        VisitWebpageTool(allow_private_addresses=[f"{host}:{port + 1}"])(url)
    with pytest.raises(WebToolError, match="refused to fetch"):
        VisitWebpageTool(allow_private_addresses=["10.0.0.0/8"])(url)
    monkeypatch.setenv("SMOL_WEB_ALLOW_PRIVATE", "1")
    assert VisitWebpageTool()(url) == "the keys"
    monkeypatch.setenv("SMOL_WEB_ALLOW_PRIVATE", "0")
    with pytest.raises(WebToolError, match="refused to fetch"):
        VisitWebpageTool()(url)


def _fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> list[str]:
    """Resolve the names in `answers` to the given addresses; record every lookup."""
    real = socket.getaddrinfo
    lookups: list[str] = []

    def getaddrinfo(host: str, port: object, *args: object, **kwargs: object) -> list[tuple]:  # type: ignore[type-arg]
        lookups.append(host)
        if host in answers:
            return [
                (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in answers[host]
            ]
        return real(host, port, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def test_a_name_with_one_internal_answer_among_public_ones_is_refused(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_dns(monkeypatch, {"rebind.example": ["93.184.216.34", "127.0.0.1"]})
    port = internal.server.server_address[1]
    with pytest.raises(
        WebToolError, match=r"loopback addresses are not allowed \(rebind.example resolves to 127.0.0.1\)"
    ):
        VisitWebpageTool()(f"http://rebind.example:{port}/secret")
    assert internal.seen == []


def test_the_connection_goes_to_the_address_that_was_checked(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One lookup per fetch, and the socket opens to its answer: no second lookup to rebind."""
    lookups = _fake_dns(monkeypatch, {"pinned.example": ["127.0.0.1"]})
    port = internal.server.server_address[1]
    tool = VisitWebpageTool(allow_private_addresses=[f"pinned.example:{port}"])
    assert tool(f"http://pinned.example:{port}/secret") == "the keys"
    assert [name for name in lookups if literal_address(name) is None] == ["pinned.example"]
    assert internal.seen[0].headers["host"] == f"pinned.example:{port}"  # the name, not the address


def test_search_and_wikipedia_fetches_are_guarded_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPAPI_API_KEY", "k")
    tools = [
        DuckDuckGoSearchTool(base_url="http://10.0.0.1/html/", rate_limit=None),
        WebSearchTool(base_url="http://192.168.0.1/lite/"),
        WebSearchTool(engine="bing", base_url="http://[::1]/search"),
        GoogleSearchTool(base_url="http://169.254.169.254/search.json"),
        WikipediaSearchTool(base_url="http://metadata.google.internal/w/api.php"),
    ]
    for tool in tools:
        with pytest.raises(WebToolError, match="refused to fetch"):
            tool("anything")


def test_allow_list_entries_parse_every_documented_form() -> None:
    policy = AddressPolicy.parse("127.0.0.1:8080, intranet.local [::1]:9000 10.0.0.0/8 fd00::/8")
    ip = literal_address
    assert policy.allowed("127.0.0.1", 8080, ip("127.0.0.1"))
    assert not policy.allowed("127.0.0.1", 8081, ip("127.0.0.1"))
    assert policy.allowed("INTRANET.local.", 443, ip("192.168.3.3"))
    assert policy.allowed("::1", 9000, ip("::1")) and not policy.allowed("::1", 80, ip("::1"))
    assert policy.allowed("db", 5432, ip("10.9.8.7")) and policy.allowed("x", 1, ip("::ffff:10.0.0.1"))
    assert policy.allowed("v6", 1, ip("fd00::5")) and not policy.allowed("v6", 1, ip("fc00::5"))
    assert AllowEntry.parse("[::1]").network is not None
    assert AddressPolicy.parse(True).allow_all and AddressPolicy.parse("yes").allow_all
    assert not AddressPolicy.parse(False).allowed("127.0.0.1", 80, ip("127.0.0.1"))
    with pytest.raises(ValueError, match="Cannot read the allowed address"):
        AddressPolicy.parse(["host:port"])


def test_environment_entries_add_to_the_tool_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMOL_WEB_ALLOW_PRIVATE", "10.0.0.0/8")
    policy = AddressPolicy.parse(["192.168.1.1"]).with_environment()
    assert policy.allowed("a", 80, literal_address("10.1.1.1"))
    assert policy.allowed("b", 80, literal_address("192.168.1.1"))
    assert not policy.allowed("c", 80, literal_address("172.16.0.1"))


def test_the_fixture_allowance_is_exact(web: StandInWeb, internal: StandInWeb) -> None:
    """What the shared `web` fixture allows (its own host:port) does not open other local ports."""
    web.route("GET", "/", Reply(200, HOME))
    assert VisitWebpageTool()(web.url("/")) == "# Home\n\nwelcome"
    with pytest.raises(WebToolError, match="refused to fetch"):
        VisitWebpageTool()(internal.url("/secret"))
    assert internal.seen == []


# --- Exa's engine sends through `requests.post` (as smolagents does), under the same policy -------


def test_exa_requests_are_refused_at_internal_addresses(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXA_API_KEY", "k")
    port = internal.server.server_address[1]
    for url in (f"http://127.0.0.1:{port}/secret", "http://10.0.0.1/search", "https://[::1]/search",
                "http://169.254.169.254/latest/meta-data/"):  # fmt: skip
        with pytest.raises(AddressRefusedError, match="refused to fetch"):
            WebSearchTool(engine="exa", base_url=url)("q")
    assert internal.seen == []


def test_exa_requests_connect_to_the_address_that_was_checked(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebinding resolver is refused, and an allowed name is looked up once, by the guard."""
    monkeypatch.setenv("EXA_API_KEY", "k")
    port = internal.server.server_address[1]
    _fake_dns(monkeypatch, {"rebind.example": ["93.184.216.34", "127.0.0.1"]})
    with pytest.raises(AddressRefusedError, match=r"rebind.example resolves to 127.0.0.1"):
        WebSearchTool(engine="exa", base_url=f"http://rebind.example:{port}/secret")("q")
    assert internal.seen == []
    lookups = _fake_dns(monkeypatch, {"pinned.example": ["127.0.0.1"]})
    internal.route("POST", "/search", Reply(200, '{"results": [{"url": "https://a.example"}]}'))
    tool = WebSearchTool(
        engine="exa", base_url=f"http://pinned.example:{port}/search",
        allow_private_addresses=[f"pinned.example:{port}"],
    )  # fmt: skip
    assert "[](https://a.example)" in tool("q")
    assert [name for name in lookups if literal_address(name) is None] == ["pinned.example"]


def test_exa_requests_ignore_proxy_settings_that_would_skip_the_check(
    internal: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXA_API_KEY", "k")
    monkeypatch.setenv("NO_PROXY", "*")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{internal.server.server_address[1]}")
    with pytest.raises(AddressRefusedError, match="loopback"):
        WebSearchTool(engine="exa", base_url="http://127.0.0.1:9/search")("q")
    assert internal.seen == []


def test_exa_answers_past_the_download_bound_are_refused(
    web: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    import smol_tool_web._http as http

    monkeypatch.setenv("EXA_API_KEY", "k")
    monkeypatch.setattr(http, "MAX_BYTES", 4096)
    big = '{"results": [], "padding": "' + "x" * 20000 + '"}'
    url = web.route("POST", "/search", Reply(200, big, content_type="application/json"))
    with pytest.raises(WebToolError, match="more than the 4096"):
        WebSearchTool(engine="exa", base_url=url)("q")
