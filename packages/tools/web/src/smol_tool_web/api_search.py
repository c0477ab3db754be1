"""Web search through paid APIs whose key lives in the environment: Google results via SerpAPI or
Serper (`GoogleSearchTool`), and Brave Search or any API shaped like it (`ApiWebSearchTool`).

A missing key fails when the tool is built, naming the variable to set, so it never reaches the
model as a confusing observation halfway through a run. The methods import what they use
themselves, so a tool's source can be saved and loaded on its own (`validate_tool_attributes`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Literal

from smol_core.plugin_api import Tool
from smol_tool_web.address_policy import AllowSetting
from smol_tool_web.results import SearchResult

GOOGLE_PROVIDERS = {
    # provider: (default endpoint, key variable, results field)
    "serpapi": ("https://serpapi.com/search.json", "SERPAPI_API_KEY", "organic_results"),
    "serper": ("https://google.serper.dev/search", "SERPER_API_KEY", "organic"),
}


def api_key_from(explicit: str | None, variable: str, tool: str) -> str:
    key = explicit or os.environ.get(variable)
    if not key:
        raise ValueError(
            f"{tool} needs an API key: set the environment variable {variable} (or pass api_key=)."
        )
    return key


class GoogleSearchTool(Tool):
    """Google results through SerpAPI (`provider="serpapi"`, key `SERPAPI_API_KEY`) or Serper (`SERPER_API_KEY`)."""

    name = "web_search"
    description = (
        "Performs a google web search for your query then returns a string of the top search results."
    )
    inputs = {
        "query": {"type": "string", "description": "The search query to perform."},
        "filter_year": {
            "type": "integer",
            "description": "Optionally restrict results to a certain year",
            "nullable": True,
        },
    }
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

    def __init__(
        self,
        provider: Literal["serpapi", "serper"] = "serpapi",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 20.0,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        from smol_tool_web.address_policy import AddressPolicy
        from smol_tool_web.api_search import GOOGLE_PROVIDERS, api_key_from

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        if provider not in GOOGLE_PROVIDERS:
            raise ValueError(f"Unknown provider {provider!r}: use one of {sorted(GOOGLE_PROVIDERS)}.")
        endpoint, variable, self.organic_key = GOOGLE_PROVIDERS[provider]
        self.provider = provider
        self.api_key = api_key_from(api_key, variable, "GoogleSearchTool")
        self.base_url = base_url or endpoint
        self.timeout = timeout

    def forward(self, query: str, filter_year: int | None = None) -> str:
        from smol_tool_web._http import WebToolError, json_body, request
        from smol_tool_web.results import SearchResult, format_results

        params: dict[str, Any] = {"q": query, "api_key": self.api_key}
        if self.provider == "serpapi":
            params.update(engine="google", google_domain="google.com")
        if filter_year is not None:
            params["tbs"] = f"cdr:1,cd_min:01/01/{filter_year},cd_max:12/31/{filter_year}"
        service = "SerpAPI" if self.provider == "serpapi" else "Serper"
        response = request(
            service, "GET", self.base_url, params=params, timeout=self.timeout, policy=self.policy
        )
        data = json_body(service, response)
        if data.get("error"):
            raise WebToolError(f"{service} refused the search: {data['error']}")
        pages = data.get(self.organic_key) or []
        if not pages:
            year = f" in year {filter_year}" if filter_year is not None else ""
            raise WebToolError(
                f"No results found for {query!r}{year}. Try a more general query"
                + (", or remove the year filter." if year else ".")
            )
        results = [
            SearchResult(
                page.get("title", ""),
                page.get("link", ""),
                " ".join(filter(None, [page.get("source", ""), page.get("snippet", "")])),
                page.get("date", ""),
            )
            for page in pages
        ]
        return format_results(results)


def brave_results(data: dict[str, Any]) -> list[SearchResult]:
    return [
        SearchResult(r.get("title", ""), r.get("url", ""), r.get("description", ""), r.get("age", ""))
        for r in (data.get("web") or {}).get("results", [])
    ]


class ApiWebSearchTool(Tool):
    """Any JSON search API called as `GET endpoint?q=...` with a key header; Brave Search by default.

    Other providers plug in with `endpoint`, `api_key_name`, `headers`, `params` and, when their JSON is
    shaped differently from Brave's `{"web": {"results": [{title, url, description}]}}`, `extract_results`.
    """

    name = "web_search"
    description = (
        "Performs a web search for a query and returns a string of the top search results formatted as "
        "markdown with titles, URLs, and descriptions."
    )
    inputs = {"query": {"type": "string", "description": "The search query to perform."}}
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

    def __init__(
        self,
        endpoint: str = "",
        api_key: str = "",
        api_key_name: str = "",
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        rate_limit: float | None = 1.0,
        timeout: float = 20.0,
        extract_results: Callable[[dict[str, Any]], list[SearchResult]] | None = None,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        from smol_tool_web._http import RateLimiter
        from smol_tool_web.address_policy import AddressPolicy
        from smol_tool_web.api_search import api_key_from, brave_results

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        self.endpoint = endpoint or "https://api.search.brave.com/res/v1/web/search"
        self.api_key_name = api_key_name or "BRAVE_API_KEY"
        self.api_key = (
            api_key_from(api_key, self.api_key_name, "ApiWebSearchTool") if headers is None else api_key
        )
        self.headers = headers if headers is not None else {"X-Subscription-Token": self.api_key}
        self.params = params if params is not None else {"count": 10}
        self.rate_limit = rate_limit
        self.timeout = timeout
        self._extract = extract_results or brave_results
        self._limiter = RateLimiter(rate_limit)

    def forward(self, query: str) -> str:
        from smol_tool_web._http import WebToolError, json_body, request
        from smol_tool_web.results import format_results

        self._limiter.wait()
        response = request(
            "The search API",
            "GET",
            self.endpoint,
            params={**self.params, "q": query},
            headers={"Accept": "application/json", **self.headers},
            timeout=self.timeout,
            policy=self.policy,
        )
        results = self._extract(json_body("The search API", response))
        if not results:
            raise WebToolError(f"No results found for {query!r}. Try a shorter or less specific query.")
        return format_results(results)
