"""Key-free web search: `WebSearchTool` (DuckDuckGo Lite or Bing's RSS feed) and `DuckDuckGoSearchTool`.

Both talk to the public HTML/RSS pages directly, so they need no SDK; `base_url` points them at
another address (a proxy, a mirror, a test server).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Literal

from smol_core.plugin_api import Tool
from smol_tool_web import duckduckgo
from smol_tool_web._http import RateLimitedError, RateLimiter, WebToolError, request
from smol_tool_web.address_policy import AddressPolicy, AllowSetting
from smol_tool_web.results import SearchResult, format_results

DUCKDUCKGO_LITE_URL = "https://lite.duckduckgo.com/lite/"
DUCKDUCKGO_HTML_URL = "https://html.duckduckgo.com/html/"
BING_URL = "https://www.bing.com/search"

NO_RESULTS = "No results found for {query!r}. Try a shorter or less specific query."


def _duckduckgo(
    url: str, query: str, timeout: float, headers: dict[str, str], lite: bool, policy: AddressPolicy
) -> list[SearchResult]:
    response = request(
        "DuckDuckGo",
        "POST" if not lite else "GET",
        url,
        params={"q": query} if lite else None,
        data={"q": query, "b": ""} if not lite else None,
        headers=headers,
        timeout=timeout,
        rate_limit_statuses=(429, 202),  # 202 + an "anomaly" page is how DuckDuckGo says "too many"
        policy=policy,
    )
    if duckduckgo.is_anomaly_page(response.text):
        raise RateLimitedError(
            "DuckDuckGo is rate-limiting these requests (it answered with a bot challenge): wait before "
            "retrying, or use another search tool or a different query."
        )
    return (duckduckgo.parse_lite_page if lite else duckduckgo.parse_html_page)(response.text)


class WebSearchTool(Tool):
    """Web search without an API key: `engine="duckduckgo"` (DuckDuckGo Lite) or `"bing"` (Bing's RSS feed)."""

    name = "web_search"
    description = (
        "Performs a web search for a query and returns a string of the top search results formatted as "
        "markdown with titles, links, and descriptions."
    )
    inputs = {"query": {"type": "string", "description": "The search query to perform."}}
    output_type = "string"

    def __init__(
        self,
        max_results: int = 10,
        engine: Literal["duckduckgo", "bing"] = "duckduckgo",
        base_url: str | None = None,
        timeout: float = 20.0,
        rate_limit: float | None = None,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        if engine not in ("duckduckgo", "bing"):
            raise ValueError(f"Unsupported engine {engine!r}: use 'duckduckgo' or 'bing'.")
        self.max_results = max_results
        self.engine = engine
        self.base_url = base_url or (DUCKDUCKGO_LITE_URL if engine == "duckduckgo" else BING_URL)
        self.timeout = timeout
        self._limiter = RateLimiter(rate_limit)

    def forward(self, query: str) -> str:
        self._limiter.wait()
        results = self.search(query)[: self.max_results]
        if not results:
            raise WebToolError(NO_RESULTS.format(query=query))
        return format_results(results)

    def search(self, query: str) -> list[SearchResult]:
        if self.engine == "duckduckgo":
            return _duckduckgo(self.base_url, query, self.timeout, {}, lite=True, policy=self.policy)
        return self._bing(query)

    def _bing(self, query: str) -> list[SearchResult]:
        response = request(
            "Bing",
            "GET",
            self.base_url,
            params={"q": query, "format": "rss"},
            timeout=self.timeout,
            policy=self.policy,
        )
        try:
            root = ET.fromstring(response.text)
        except ET.ParseError as error:
            raise WebToolError(
                f"Bing answered something other than its RSS feed ({error}); try the duckduckgo engine."
            ) from error
        return [
            SearchResult(
                (item.findtext("title") or "").strip(),
                (item.findtext("link") or "").strip(),
                (item.findtext("description") or "").strip(),
            )
            for item in root.iter("item")
            if item.findtext("link")
        ]


class DuckDuckGoSearchTool(Tool):
    """DuckDuckGo's HTML results page, at most `rate_limit` queries per second (DuckDuckGo bans bursts).

    The seed system took extra keyword arguments for its `ddgs` client; here `headers=` and `timeout=`
    are the ones that matter, and other keywords are accepted and ignored so old code keeps working.
    """

    name = "web_search"
    description = (
        "Performs a duckduckgo web search based on your query (think a Google search) then returns the top "
        "search results."
    )
    inputs = {"query": {"type": "string", "description": "The search query to perform."}}
    output_type = "string"

    def __init__(
        self,
        max_results: int = 10,
        rate_limit: float | None = 1.0,
        base_url: str | None = None,
        timeout: float = 20.0,
        headers: dict[str, str] | None = None,
        allow_private_addresses: AllowSetting = False,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        self.max_results = max_results
        self.rate_limit = rate_limit
        self.base_url = base_url or DUCKDUCKGO_HTML_URL
        self.timeout = timeout
        self.headers = dict(headers or {})
        self._limiter = RateLimiter(rate_limit)

    def forward(self, query: str) -> str:
        self._limiter.wait()
        results = _duckduckgo(
            self.base_url, query, self.timeout, self.headers, lite=False, policy=self.policy
        )
        if not results:
            raise WebToolError(NO_RESULTS.format(query=query))
        return format_results(results[: self.max_results], numbered=False)
