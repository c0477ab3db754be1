"""`WikipediaSearchTool` against a stand-in MediaWiki API on 127.0.0.1 (formatversion=2 answers)."""

from __future__ import annotations

import pytest
from smol_tool_web import WebToolError, WikipediaSearchTool
from web_standin import Reply, Seen, StandInWeb, as_json

LEAD = "The tortoise is a land-dwelling reptile of the family Testudinidae."
BODY = "\n\n== Anatomy ==\nTortoises have a domed shell.\n\n== Longevity ==\nSome live over 150 years."
ARTICLES = {"Tortoise": {"pageid": 39395, "ns": 0, "title": "Tortoise"}}
REDIRECTS = {"Tortoises": "Tortoise", "tortoise": "Tortoise"}


def mediawiki(seen: Seen) -> Reply:
    assert seen.arg("format") == "json" and seen.arg("formatversion") == "2" and seen.arg("action") == "query"
    if seen.arg("list") == "search":
        hits = (
            [{"ns": 0, "title": "Tortoise"}, {"ns": 0, "title": "Turtle"}]
            if "turtle" in seen.arg("srsearch").lower()
            else []
        )
        return as_json(
            {"batchcomplete": True, "query": {"searchinfo": {"totalhits": len(hits)}, "search": hits}}
        )
    title = seen.arg("titles")
    query: dict = {}
    if title in REDIRECTS and seen.arg("redirects"):
        query["redirects"] = [{"from": title, "to": REDIRECTS[title]}]
        title = REDIRECTS[title]
    if title not in ARTICLES:
        query["pages"] = [{"ns": 0, "title": title, "missing": True}]
        return as_json({"batchcomplete": True, "query": query})
    if seen.arg("explaintext"):
        extract = LEAD if seen.arg("exintro") else LEAD + BODY
    else:
        extract = "<p>The <b>tortoise</b> is a land-dwelling reptile.</p>" + (
            "" if seen.arg("exintro") else "<h2>Anatomy</h2><p>Domed shell.</p>"
        )
    page = {
        **ARTICLES[title],
        "extract": extract,
        "fullurl": f"https://en.wikipedia.org/wiki/{title}",
        "canonicalurl": f"https://en.wikipedia.org/wiki/{title}",
        "contentmodel": "wikitext",
        "pagelanguage": "en",
        "lastrevid": 1234567890,
        "length": 45678,
    }
    query["pages"] = [page]
    return as_json({"batchcomplete": True, "query": query})


@pytest.fixture
def api(web: StandInWeb) -> str:
    return web.route("GET", "/w/api.php", mediawiki)


def test_full_text(api: str, web: StandInWeb) -> None:
    out = WikipediaSearchTool(user_agent="smol-tests (dev@example.com)", base_url=api)("Tortoises")
    assert out.startswith(
        "## Tortoise\nhttps://en.wikipedia.org/wiki/Tortoise\n\nThe tortoise is a land-dwelling"
    )
    assert "== Longevity ==\nSome live over 150 years." in out
    assert web.seen[0].headers["user-agent"] == "smol-tests (dev@example.com)"
    assert web.seen[0].arg("redirects") == "1" and web.seen[0].arg("explaintext") == "1"


def test_summary(api: str) -> None:
    out = WikipediaSearchTool(content_type="summary", base_url=api)("Tortoise")
    assert out.endswith(LEAD) and "Anatomy" not in out


def test_html_format_is_read_as_markdown(api: str) -> None:
    out = WikipediaSearchTool(extract_format="HTML", base_url=api)("Tortoise")
    assert "The **tortoise** is a land-dwelling reptile." in out and "## Anatomy" in out


def test_falls_back_to_the_closest_match(api: str) -> None:
    out = WikipediaSearchTool(base_url=api)("giant turtle of galapagos")
    assert out.startswith("## Tortoise\n")
    assert (
        "No page is titled 'giant turtle of galapagos'; this is the closest match. Other matches: Turtle."
        in out
    )


def test_nothing_found(api: str) -> None:
    with pytest.raises(WebToolError, match="No Wikipedia page found for 'qwxz'"):
        WikipediaSearchTool(base_url=api)("qwxz")


def test_long_articles_are_truncated(api: str) -> None:
    out = WikipediaSearchTool(base_url=api, max_output_length=80)("Tortoise")
    assert "_Truncated: showing" in out and "Longevity" not in out


def test_language_picks_the_default_endpoint() -> None:
    assert WikipediaSearchTool(language="fr").base_url == "https://fr.wikipedia.org/w/api.php"
    with pytest.raises(ValueError, match="user agent"):
        WikipediaSearchTool(user_agent="")
    with pytest.raises(ValueError, match="content_type"):
        WikipediaSearchTool(content_type="all")  # type: ignore[arg-type]


def test_api_errors(web: StandInWeb) -> None:
    url = web.route(
        "GET",
        "/w/api.php",
        as_json({"error": {"code": "badvalue", "info": 'Unrecognized value for parameter "action".'}}),
    )
    with pytest.raises(WebToolError, match="Unrecognized value"):
        WikipediaSearchTool(base_url=url)("x")
    url = web.route("GET", "/w/api.php", Reply(429, "Too many requests"))
    with pytest.raises(WebToolError, match="Wikipedia is rate-limiting"):
        WikipediaSearchTool(base_url=url)("x")
