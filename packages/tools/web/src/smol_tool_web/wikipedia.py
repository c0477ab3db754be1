"""`WikipediaSearchTool`: an article's summary or text through the MediaWiki API.

The exact title is tried first (following redirects, so "Python (language)" finds the article); when
there is no such page, Wikipedia's own search picks the closest one and the answer says so, which
saves the model a step of guessing titles. The methods import what they use themselves, so the
tool's source can be saved and loaded on its own (`validate_tool_attributes`).
"""

from __future__ import annotations

from typing import Any, Literal

from smol_core.plugin_api import Tool
from smol_tool_web.address_policy import AllowSetting


class WikipediaSearchTool(Tool):
    """`content_type="summary"` (the lead section) or `"text"` (the whole article); `extract_format`
    `"WIKI"` (plain text) or `"HTML"` (read as markdown). `base_url` replaces
    `https://{language}.wikipedia.org/w/api.php`, for mirrors and other MediaWiki sites."""

    name = "wikipedia_search"
    description = (
        "Searches Wikipedia and returns a summary or full text of the given topic, along with the page URL."
    )
    inputs = {"query": {"type": "string", "description": "The topic to search on Wikipedia."}}
    output_type = "string"
    idempotent = True  # it reads: a search or a page fetched again after a crash changes nothing

    def __init__(
        self,
        user_agent: str = "smol-tool-web (https://pypi.org/project/smol-tool-web/)",
        language: str = "en",
        content_type: Literal["summary", "text"] = "text",
        extract_format: Literal["WIKI", "HTML"] = "WIKI",
        base_url: str | None = None,
        timeout: float = 20.0,
        max_output_length: int = 40000,
        allow_private_addresses: AllowSetting = False,
    ) -> None:
        from smol_tool_web.address_policy import AddressPolicy

        super().__init__()
        self.policy = AddressPolicy.parse(allow_private_addresses)
        if not user_agent:
            raise ValueError("Wikipedia requires a user agent that identifies your project (user_agent=...).")
        if content_type not in ("summary", "text"):
            raise ValueError(f"content_type must be 'summary' or 'text', not {content_type!r}.")
        if extract_format not in ("WIKI", "HTML"):
            raise ValueError(f"extract_format must be 'WIKI' or 'HTML', not {extract_format!r}.")
        self.user_agent = user_agent
        self.language = language
        self.content_type = content_type
        self.extract_format = extract_format
        self.base_url = base_url or f"https://{language}.wikipedia.org/w/api.php"
        self.timeout = timeout
        self.max_output_length = max_output_length

    def _api(self, **params: Any) -> dict[str, Any]:
        from smol_tool_web._http import WebToolError, json_body, request

        response = request(
            "Wikipedia",
            "GET",
            self.base_url,
            params={"action": "query", "format": "json", "formatversion": "2", **params},
            headers={"User-Agent": self.user_agent},
            timeout=self.timeout,
            policy=self.policy,
        )
        data = json_body("Wikipedia", response)
        if "error" in data:
            raise WebToolError(f"Wikipedia refused the query: {data['error'].get('info', data['error'])}")
        return data

    def _page(self, title: str) -> dict[str, Any] | None:
        params: dict[str, Any] = {"prop": "extracts|info", "inprop": "url", "titles": title, "redirects": "1"}
        if self.content_type == "summary":
            params["exintro"] = "1"
        if self.extract_format == "WIKI":
            params["explaintext"] = "1"
        pages = self._api(**params).get("query", {}).get("pages", [])
        page = pages[0] if pages else None
        return None if page is None or page.get("missing") or page.get("invalid") else page

    def forward(self, query: str) -> str:
        from smol_tool_web._http import WebToolError
        from smol_tool_web.page import html_to_markdown, truncate

        page, note = self._page(query), ""
        if page is None:
            hits = (
                self._api(list="search", srsearch=query, srlimit="5", srprop="")
                .get("query", {})
                .get("search", [])
            )
            titles = [hit["title"] for hit in hits]
            page = self._page(titles[0]) if titles else None
            if page is None:
                raise WebToolError(
                    f"No Wikipedia page found for {query!r}. Try a different or more general query."
                )
            others = ", ".join(titles[1:])
            note = f"(No page is titled {query!r}; this is the closest match." + (
                f" Other matches: {others}.)" if others else ")"
            )
        text = page.get("extract") or ""
        if self.extract_format == "HTML":
            text = html_to_markdown(text)
        url = page.get("fullurl") or page.get("canonicalurl") or ""
        body = truncate(text.strip(), self.max_output_length) or "(The article is empty.)"
        head = f"## {page.get('title', query)}\n{url}"
        return f"{head}\n{note}\n\n{body}" if note else f"{head}\n\n{body}"
