"""`VisitWebpageTool` against a stand-in site on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from smol_tool_web import VisitWebpageTool, WebToolError
from web_standin import Reply, StandInWeb, page


def test_article_becomes_clean_markdown(web: StandInWeb) -> None:
    url = web.route("GET", "/2025/03/tortoise", page("article.html"))
    out = VisitWebpageTool()(url)
    assert out.startswith("# The Tortoise and the Hare, revisited\n")
    assert "median finishing time was 28 minutes" in out
    assert "**47 tortoises**" in out and "## Method" in out and "- Tortoises: 47, all finished" in out
    assert "| Tortoise | 28 min |" in out
    assert f"[a calibrated stopwatch]({web.url('/methods/timing')})" in out  # links made absolute
    assert "![A tortoise crossing the finish line](" in out
    for machinery in ("gtag", "font-family", "Subscribe", "Privacy", "Why snails", "base64", "Accept all"):
        assert machinery not in out, machinery
    assert "\n\n\n" not in out


def test_long_pages_are_cut_at_a_paragraph(web: StandInWeb) -> None:
    paragraphs = "".join(f"<p>Paragraph {i}: " + "lorem ipsum " * 40 + "</p>" for i in range(200))
    url = web.route("GET", "/long", Reply(200, f"<html><body>{paragraphs}</body></html>"))
    out = VisitWebpageTool(max_output_length=5000)(url)
    body, note = out.split("\n\n..._Truncated: ")
    assert len(body) <= 5000 and body.endswith("lorem ipsum")  # a whole paragraph, not half a word
    assert note.startswith(f"showing {len(body):,} of ")


def test_plain_text_and_json_pass_through(web: StandInWeb) -> None:
    url = web.route("GET", "/robots.txt", Reply(200, "User-agent: *\nDisallow: /private\n", "text/plain"))
    assert VisitWebpageTool()(url) == "User-agent: *\nDisallow: /private"
    url = web.route("GET", "/data.json", Reply(200, json.dumps({"a": 1}), "application/json"))
    assert VisitWebpageTool()(url) == '{"a": 1}'


def test_binary_content_is_refused(web: StandInWeb) -> None:
    url = web.route("GET", "/paper.pdf", Reply(200, b"%PDF-1.7 ...", "application/pdf"))
    with pytest.raises(WebToolError, match="application/pdf, not a page"):
        VisitWebpageTool()(url)


def test_redirects_are_followed(web: StandInWeb) -> None:
    web.route(
        "GET",
        "/new",
        Reply(200, "<html><head><title>New home</title></head><body><p>moved here</p></body></html>"),
    )
    url = web.route("GET", "/old", Reply(301, "", headers={"Location": "/new"}))
    assert VisitWebpageTool()(url) == "# New home\n\nmoved here"


def test_errors_say_what_to_do(web: StandInWeb, dead_url: str) -> None:
    url = web.route("GET", "/gone", Reply(404, "<h1>Not Found</h1>"))
    with pytest.raises(WebToolError, match="HTTP 404.*check the URL"):
        VisitWebpageTool()(url)
    url = web.route("GET", "/busy", Reply(429, "Too Many Requests", headers={"Retry-After": "5"}))
    with pytest.raises(WebToolError, match="rate-limiting.*wait 5 s"):
        VisitWebpageTool()(url)
    with pytest.raises(WebToolError, match="Could not connect"):
        VisitWebpageTool()(dead_url + "page")
    url = web.route("GET", "/slow", Reply(200, "late", delay=1.0))
    with pytest.raises(WebToolError, match="did not answer within 0.2 s"):
        VisitWebpageTool(timeout=0.2)(url)
    with pytest.raises(WebToolError, match="Only http"):
        VisitWebpageTool()("ftp://example.com/file")
