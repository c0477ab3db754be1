"""Registers the web toolkit with smol (`smolagent --tools "web_search visit_webpage"`). Imports nothing
heavy: httpx and markdownify load when a tool is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ToolSpec, hookimpl, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "web_search",
            lazy("smol_tool_web.search:DuckDuckGoSearchTool"),
            "Web search through DuckDuckGo (no API key).",
        ),
        ToolSpec(
            "duckduckgo_search",
            lazy("smol_tool_web.search:DuckDuckGoSearchTool"),
            "Web search through DuckDuckGo's HTML page.",
        ),
        ToolSpec(
            "bing_search",
            lazy("smol_tool_web.cli:bing_search"),
            "Web search through Bing's RSS feed (no API key).",
        ),
        ToolSpec(
            "google_search",
            lazy("smol_tool_web.api_search:GoogleSearchTool"),
            "Google results through SerpAPI (SERPAPI_API_KEY).",
        ),
        ToolSpec(
            "api_web_search",
            lazy("smol_tool_web.api_search:ApiWebSearchTool"),
            "Web search through the Brave Search API (BRAVE_API_KEY).",
        ),
        ToolSpec(
            "visit_webpage",
            lazy("smol_tool_web.visit:VisitWebpageTool"),
            "Reads a web page as markdown.",
        ),
        ToolSpec(
            "wikipedia_search",
            lazy("smol_tool_web.wikipedia:WikipediaSearchTool"),
            "A Wikipedia article's text and URL.",
        ),
    ]
