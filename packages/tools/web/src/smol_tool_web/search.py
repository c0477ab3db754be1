"""Web search: `WebSearchTool` (DuckDuckGo Lite or Bing's RSS feed without a key, Exa's API with
`EXA_API_KEY`) and `DuckDuckGoSearchTool`.

They talk to the public HTML/RSS pages and APIs directly, so they need no SDK; `base_url` points them
at another address (a proxy, a mirror, a test server). The tools' methods import what they use
themselves, so a tool's source can be saved and loaded on its own (`validate_tool_attributes`).
"""

from __future__ import annotations

from typing import Any, Literal

from smol_core.plugin_api import Tool
from smol_tool_web import duckduckgo
from smol_tool_web._http import RateLimitedError, request
from smol_tool_web.address_policy import AddressPolicy, AllowSetting
from smol_tool_web.results import SearchResult

DUCKDUCKGO_LITE_URL = "https://lite.duckduckgo.com/lite/"
DUCKDUCKGO_HTML_URL = "https://html.duckduckgo.com/html/"
BING_URL = "https://www.bing.com/search"
EXA_URL = "https://api.exa.ai/search"

NO_RESULTS = "No results found for {query!r}. Try a shorter or less specific query."


def duckduckgo_search(
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
    """Web search: `engine="duckduckgo"` (DuckDuckGo Lite) or `"bing"` (Bing's RSS feed) need no key;
    `"exa"` (Exa's search API) reads its key from `EXA_API_KEY` when it searches."""

    name = "web_search"
    description = (
        "Performs a web search for a query and returns a string of the top search results formatted as "
        "markdown with titles, links, and descriptions."
    )
    inputs = {"query": {"type": "string", "description": "The search query to perform."}}
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

    def __init__(
        self,
        max_results: int = 10,
        engine: Literal["duckduckgo", "bing", "exa"] = "duckduckgo",
        base_url: str | None = None,
        timeout: float = 20.0,
        rate_limit: float | None = None,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        from smol_tool_web import search
        from smol_tool_web._http import RateLimiter
        from smol_tool_web.address_policy import AddressPolicy

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        endpoints = {"duckduckgo": search.DUCKDUCKGO_LITE_URL, "bing": search.BING_URL, "exa": search.EXA_URL}
        if engine not in endpoints:
            raise ValueError(f"Unsupported engine {engine!r}: use 'duckduckgo', 'bing' or 'exa'.")
        self.max_results = max_results
        self.engine = engine
        self.base_url = base_url or endpoints[engine]
        self.timeout = timeout
        self._limiter = RateLimiter(rate_limit)

    def forward(self, query: str) -> str:
        from smol_tool_web._http import WebToolError
        from smol_tool_web.results import format_results
        from smol_tool_web.search import NO_RESULTS

        self._limiter.wait()
        results = self.search(query)[: self.max_results]
        if not results:
            raise WebToolError(NO_RESULTS.format(query=query))
        return format_results(results)

    def search(self, query: str) -> list[SearchResult]:
        from smol_tool_web.results import SearchResult  # noqa: F401 - the return annotation's name
        from smol_tool_web.search import duckduckgo_search

        if self.engine == "duckduckgo":
            return duckduckgo_search(self.base_url, query, self.timeout, {}, lite=True, policy=self.policy)
        if self.engine == "exa":
            return self._exa(query)
        return self._bing(query)

    def _exa(self, query: str) -> list[SearchResult]:
        """Exa's search API (POST, JSON); the key is read when searching, so a tool made before the
        key is set works once it is."""
        import os

        from smol_tool_web._http import post_json
        from smol_tool_web.results import SearchResult

        api_key = os.environ.get("EXA_API_KEY")
        if not api_key:
            raise ValueError("Missing API key: the exa engine needs the environment variable EXA_API_KEY.")
        answer = post_json(
            "Exa",
            self.base_url,
            headers={
                "x-api-key": api_key,
                "Content-Type": "application/json",
                "x-exa-integration": "smolagents",
            },
            json={"query": query, "numResults": self.max_results, "contents": {"highlights": True}},
            timeout=self.timeout,
            policy=self.policy,
        )
        found = answer.get("results") or []
        return [
            SearchResult(
                str(page.get("title") or ""),
                str(page["url"]),
                " ".join(str(h) for h in (page.get("highlights") or [])),
            )
            for page in found
            if isinstance(page, dict) and page.get("url")
        ]

    def _bing(self, query: str) -> list[SearchResult]:
        import xml.etree.ElementTree as ET

        from smol_tool_web._http import WebToolError, request
        from smol_tool_web.results import SearchResult

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

    smolagents took extra keyword arguments for its `ddgs` client; here `headers=` and `timeout=`
    are the ones that matter, and other keywords are accepted and ignored so old code keeps working.
    """

    name = "web_search"
    description = (
        "Performs a duckduckgo web search based on your query (think a Google search) then returns the top "
        "search results."
    )
    inputs = {"query": {"type": "string", "description": "The search query to perform."}}
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

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
        from smol_tool_web._http import RateLimiter
        from smol_tool_web.address_policy import AddressPolicy
        from smol_tool_web.search import DUCKDUCKGO_HTML_URL

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        self.max_results = max_results
        self.rate_limit = rate_limit
        self.base_url = base_url or DUCKDUCKGO_HTML_URL
        self.timeout = timeout
        self.headers = dict(headers or {})
        self._limiter = RateLimiter(rate_limit)

    def forward(self, query: str) -> str:
        from smol_tool_web._http import WebToolError
        from smol_tool_web.results import format_results
        from smol_tool_web.search import NO_RESULTS, duckduckgo_search

        self._limiter.wait()
        results = duckduckgo_search(
            self.base_url, query, self.timeout, self.headers, lite=False, policy=self.policy
        )
        if not results:
            raise WebToolError(NO_RESULTS.format(query=query))
        return format_results(results[: self.max_results], numbered=False)
