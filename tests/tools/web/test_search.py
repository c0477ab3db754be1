"""Search tools against stand-in DuckDuckGo, Bing, SerpAPI/Serper and Brave servers on 127.0.0.1."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from smol_tool_web import (
    ApiWebSearchTool,
    DuckDuckGoSearchTool,
    GoogleSearchTool,
    RateLimitedError,
    SearchResult,
    WebSearchTool,
    WebToolError,
)
from web_standin import Reply, StandInWeb, as_json, page

# --- DuckDuckGo --------------------------------------------------------------------------------


def test_duckduckgo_html_page(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", page("ddg_html.html"))
    out = DuckDuckGoSearchTool(base_url=url, rate_limit=None)("python programming language")
    assert web.seen[0].arg("q") == "python programming language"
    assert out.startswith("## Search Results\n\n[Welcome to Python.org](https://www.python.org/)\n")
    assert (
        "[Python (programming language) - Wikipedia](https://en.wikipedia.org/wiki/Python_(programming_language))"
        in out
    )
    assert "significant indentation." in out
    assert "Learn Python in 7 Days" not in out and "y.js" not in out  # the ad is dropped
    assert out.count("](") == 3


def test_duckduckgo_max_results(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", page("ddg_html.html"))
    assert DuckDuckGoSearchTool(max_results=1, base_url=url, rate_limit=None)("python").count("](") == 1


def test_no_results_tells_the_model_what_to_do(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", page("ddg_html_empty.html"))
    with pytest.raises(WebToolError, match="No results found for 'qwxzqwxzqwxz'. Try a shorter"):
        DuckDuckGoSearchTool(base_url=url, rate_limit=None)("qwxzqwxzqwxz")


@pytest.mark.parametrize("status", [202, 429])
def test_duckduckgo_rate_limit(web: StandInWeb, status: int) -> None:
    url = web.route("POST", "/html/", page("ddg_anomaly.html", status=status))
    with pytest.raises(
        RateLimitedError, match=rf"DuckDuckGo is rate-limiting.*HTTP {status}.*another search tool"
    ):
        DuckDuckGoSearchTool(base_url=url, rate_limit=None)("python")


def test_challenge_page_with_200_is_a_rate_limit_too(web: StandInWeb) -> None:
    url = web.route("GET", "/lite/", page("ddg_anomaly.html"))
    with pytest.raises(RateLimitedError, match="bot challenge"):
        WebSearchTool(base_url=url)("python")


def test_retry_after_is_passed_on(web: StandInWeb) -> None:
    url = web.route("GET", "/lite/", Reply(429, "slow down", "text/plain", {"Retry-After": "30"}))
    with pytest.raises(RateLimitedError, match="wait 30 s"):
        WebSearchTool(base_url=url)("python")


def test_connection_refused(dead_url: str) -> None:
    with pytest.raises(WebToolError, match=r"Could not connect to DuckDuckGo at http://127\.0\.0\.1:\d+"):
        DuckDuckGoSearchTool(base_url=dead_url, rate_limit=None)("python")


def test_timeout(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", page("ddg_html.html", delay=1.0))
    with pytest.raises(WebToolError, match="did not answer within 0.2 s"):
        DuckDuckGoSearchTool(base_url=url, rate_limit=None, timeout=0.2)("python")


def test_server_error(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", Reply(503, "<h1>Service Unavailable</h1>"))
    with pytest.raises(WebToolError, match="HTTP 503.*try again later"):
        DuckDuckGoSearchTool(base_url=url, rate_limit=None)("python")


def test_rate_limit_spaces_calls(web: StandInWeb) -> None:
    url = web.route("POST", "/html/", page("ddg_html.html"))
    search = DuckDuckGoSearchTool(base_url=url, rate_limit=10.0)
    start = time.monotonic()
    for _ in range(3):
        search("python")
    assert time.monotonic() - start >= 0.2


def test_web_search_tool_duckduckgo_lite(web: StandInWeb) -> None:
    url = web.route("GET", "/lite/", page("ddg_lite.html"))
    out = WebSearchTool(base_url=url)("hugging face smolagents")
    assert web.seen[0].arg("q") == "hugging face smolagents"
    assert "1. [GitHub - huggingface/smolagents: a barebones library" in out
    assert "](https://github.com/huggingface/smolagents)\nsmolagents is a library" in out
    assert (
        "3. [Introducing smolagents, a simple library to build agents](https://huggingface.co/blog/smolagents)"
        in out
    )
    assert "Free Trial" not in out
    assert WebSearchTool(base_url=url, max_results=2)("x").count("](") == 2


def test_web_search_tool_bing(web: StandInWeb) -> None:
    url = web.route("GET", "/search", page("bing.rss", content_type="application/rss+xml"))
    out = WebSearchTool(engine="bing", base_url=url, max_results=2)("python asyncio tutorial")
    assert (web.seen[0].arg("q"), web.seen[0].arg("format")) == ("python asyncio tutorial", "rss")
    assert (
        "1. [asyncio — Asynchronous I/O — Python 3.13 documentation](https://docs.python.org/3/library/asyncio.html)"
        in out
    )
    assert "2. [Python's asyncio" in out and "\n3. [" not in out


def test_bing_answering_html_is_a_clear_error(web: StandInWeb) -> None:
    url = web.route("GET", "/search", Reply(200, "<html><body>consent</body>"))
    with pytest.raises(WebToolError, match="RSS feed"):
        WebSearchTool(engine="bing", base_url=url)("x")


def test_unknown_engine() -> None:
    with pytest.raises(ValueError, match="'duckduckgo', 'bing' or 'exa'"):
        WebSearchTool(engine="altavista")  # type: ignore[arg-type]


# --- API providers -----------------------------------------------------------------------------

SERPAPI = {
    "search_metadata": {"status": "Success"},
    "organic_results": [
        {
            "position": 1,
            "title": "Eiffel Tower - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Eiffel_Tower",
            "snippet": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris.",
            "source": "Wikipedia",
        },
        {
            "position": 2,
            "title": "Tickets - Official Eiffel Tower website",
            "link": "https://www.toureiffel.paris/en",
            "snippet": "Buy your tickets online.",
            "date": "Mar 3, 2025",
        },
    ],
}


def test_google_search_through_serpapi(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPAPI_API_KEY", "serp-key")
    url = web.route("GET", "/search.json", as_json(SERPAPI))
    out = GoogleSearchTool(base_url=url)("eiffel tower", filter_year=2025)
    sent = web.seen[0]
    assert (sent.arg("q"), sent.arg("api_key"), sent.arg("engine")) == ("eiffel tower", "serp-key", "google")
    assert sent.arg("tbs") == "cdr:1,cd_min:01/01/2025,cd_max:12/31/2025"
    assert (
        "1. [Eiffel Tower - Wikipedia](https://en.wikipedia.org/wiki/Eiffel_Tower)\nWikipedia The Eiffel"
        in out
    )
    assert (
        "2. [Tickets - Official Eiffel Tower website](https://www.toureiffel.paris/en) (Mar 3, 2025)" in out
    )


def test_google_search_through_serper(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPER_API_KEY", "serper-key")
    url = web.route(
        "GET", "/search", as_json({"organic": [{"title": "T", "link": "https://t.example", "snippet": "s"}]})
    )
    assert "1. [T](https://t.example)\ns" in GoogleSearchTool(provider="serper", base_url=url)("t")


def test_google_search_empty_with_year(web: StandInWeb) -> None:
    url = web.route("GET", "/search.json", as_json({"organic_results": []}))
    with pytest.raises(WebToolError, match="in year 1850.*remove the year filter"):
        GoogleSearchTool(api_key="k", base_url=url)("x", filter_year=1850)


def test_google_search_bad_key(web: StandInWeb) -> None:
    url = web.route("GET", "/search.json", as_json({"error": "Invalid API key."}, status=401))
    with pytest.raises(WebToolError, match="HTTP 401.*check the API key"):
        GoogleSearchTool(api_key="wrong", base_url=url)("x")


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SERPAPI_API_KEY", raising=False)
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    with pytest.raises(ValueError, match="SERPAPI_API_KEY"):
        GoogleSearchTool()
    with pytest.raises(ValueError, match="BRAVE_API_KEY"):
        ApiWebSearchTool()


BRAVE = {
    "type": "search",
    "query": {"original": "rust borrow checker"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "References and Borrowing - The Rust Programming Language",
                "url": "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
                "description": "A reference is like a pointer in that it's an address we can follow.",
                "age": "2 days ago",
            }
        ],
    },
}


def test_api_web_search_brave_style(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    url = web.route("GET", "/res/v1/web/search", as_json(BRAVE))
    out = ApiWebSearchTool(endpoint=url, rate_limit=None)("rust borrow checker")
    sent = web.seen[0]
    assert sent.headers["x-subscription-token"] == "brave-key"
    assert (sent.arg("q"), sent.arg("count")) == ("rust borrow checker", "10")
    assert (
        "1. [References and Borrowing - The Rust Programming Language](https://doc.rust-lang.org/book/" in out
    )


def test_api_web_search_other_provider(web: StandInWeb) -> None:
    url = web.route(
        "GET", "/v1/search", as_json({"hits": [{"name": "A", "href": "https://a.example", "text": "aa"}]})
    )
    tool = ApiWebSearchTool(
        endpoint=url,
        headers={"Authorization": "Bearer other"},
        params={"limit": 3},
        rate_limit=None,
        extract_results=lambda data: [SearchResult(h["name"], h["href"], h["text"]) for h in data["hits"]],
    )
    assert tool("a") == "## Search Results\n\n1. [A](https://a.example)\naa"
    assert web.seen[0].headers["authorization"] == "Bearer other" and web.seen[0].arg("limit") == "3"


def test_api_rate_limit_and_non_json(web: StandInWeb) -> None:
    url = web.route("GET", "/res/v1/web/search", as_json({"type": "ErrorResponse"}, status=429))
    with pytest.raises(RateLimitedError, match="HTTP 429"):
        ApiWebSearchTool(endpoint=url, api_key="k", rate_limit=None)("x")
    url = web.route("GET", "/html", Reply(200, "<html>login</html>"))
    with pytest.raises(WebToolError, match="where JSON was expected"):
        ApiWebSearchTool(endpoint=url, api_key="k", rate_limit=None)("x")


# --- Exa ---------------------------------------------------------------------------------------


def test_exa_engine_posts_the_query_with_its_key(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("EXA_API_KEY", "exa-key")
    reply = {
        "results": [
            {"title": "Exa AI", "url": "https://exa.ai", "highlights": ["A search engine", "for AI."]},
            {"title": "No highlights", "url": "https://example.com", "highlights": None},
        ]
    }
    url = web.route("POST", "/search", as_json(reply))
    out = WebSearchTool(engine="exa", max_results=2, base_url=url)("test query")
    assert "1. [Exa AI](https://exa.ai)\nA search engine for AI." in out
    assert "2. [No highlights](https://example.com)" in out
    seen = web.seen[0]
    assert seen.headers["x-api-key"] == "exa-key" and seen.headers["x-exa-integration"] == "smolagents"
    assert json.loads(seen.body) == {"query": "test query", "numResults": 2, "contents": {"highlights": True}}


def test_exa_engine_reads_its_key_when_searching(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXA_API_KEY", raising=False)
    tool = WebSearchTool(engine="exa", base_url=web.route("POST", "/search", as_json({"results": []})))
    with pytest.raises(ValueError, match="EXA_API_KEY"):
        tool("x")
    monkeypatch.setenv("EXA_API_KEY", "exa-key")
    with pytest.raises(WebToolError, match="No results found"):
        tool("x")


def test_web_tools_sources_stand_on_their_own() -> None:
    """`validate_tool_attributes`: their methods import what they use, so `Tool.save` can write them."""
    from smol_tool_web import VisitWebpageTool, WikipediaSearchTool

    from smol_core.tools.validation import validate_tool_attributes

    for tool_class in (
        WebSearchTool,
        DuckDuckGoSearchTool,
        GoogleSearchTool,
        ApiWebSearchTool,
        VisitWebpageTool,
        WikipediaSearchTool,
    ):
        assert validate_tool_attributes(tool_class) is None


def test_exa_engine_sends_through_requests_post_as_smolagents_does(
    web: StandInWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """smolagents' Exa engine calls `requests.post(url, headers=..., json=..., timeout=...)`, and code
    written for it (its own tests among them) patches that function: the call reaches it here too,
    and the real function then fetches through the guard."""
    import requests

    real_post = requests.post
    calls: list[dict[str, Any]] = []

    def recording_post(url: str, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return real_post(url, **kwargs)

    monkeypatch.setattr(requests, "post", recording_post)
    monkeypatch.setenv("EXA_API_KEY", "exa-key")
    reply = {"results": [{"title": "Exa AI", "url": "https://exa.ai", "highlights": ["Search."]}]}
    url = web.route("POST", "/search", as_json(reply))
    assert "1. [Exa AI](https://exa.ai)\nSearch." in WebSearchTool(engine="exa", base_url=url)("q")
    (call,) = calls
    assert call["headers"]["x-exa-integration"] == "smolagents"
    assert call["json"] == {"query": "q", "numResults": 10, "contents": {"highlights": True}}
    assert web.seen[0].headers["x-api-key"] == "exa-key"


def test_exa_engine_turns_http_errors_into_advice(web: StandInWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", "wrong")
    tool = WebSearchTool(engine="exa", base_url=web.route("POST", "/search", as_json({"error": "no"}, 401)))
    with pytest.raises(WebToolError, match="Exa answered HTTP 401.*check the API key"):
        tool("x")
    limited = WebSearchTool(engine="exa", base_url=web.route("POST", "/slow", as_json({}, 429)))
    with pytest.raises(RateLimitedError, match="Exa is rate-limiting"):
        limited("x")


def _self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no CA signed, and its key."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "stand-in exa")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


def test_exa_over_https_runs_tls_end_to_end(
    web: StandInWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the guard's tunnel the certificate is still checked against the address asked for:
    trusted, the answer arrives; untrusted, the search fails."""
    import ssl

    cert_file, key_file = _self_signed_certificate(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    web.server.socket = context.wrap_socket(web.server.socket, server_side=True)
    url = web.route("POST", "/search", as_json({"results": [{"title": "T", "url": "https://t.example"}]}))
    url = url.replace("http://", "https://")
    monkeypatch.setenv("EXA_API_KEY", "k")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert_file))
    assert "1. [T](https://t.example)" in WebSearchTool(engine="exa", base_url=url)("q")
    monkeypatch.delenv("REQUESTS_CA_BUNDLE")
    with pytest.raises(WebToolError, match="CERTIFICATE_VERIFY_FAILED"):
        WebSearchTool(engine="exa", base_url=url)("q")
