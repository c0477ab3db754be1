"""smol-tool-web, the toolkit: web search, page reading and Wikipedia for agents.

Every tool talks HTTP itself (httpx), so every endpoint is a constructor argument, and every failure
(rate limit, refused connection, timeout, HTTP error) raises a `WebToolError` whose message tells the
model what to do next. Only public addresses are fetched unless the user allows more
(`allow_private_addresses=`, `SMOL_WEB_ALLOW_PRIVATE`): a non-public one raises `AddressRefusedError`.
"""

from smol_tool_web._http import AddressRefusedError, RateLimitedError, WebToolError
from smol_tool_web.api_search import ApiWebSearchTool, GoogleSearchTool
from smol_tool_web.results import SearchResult
from smol_tool_web.search import DuckDuckGoSearchTool, WebSearchTool
from smol_tool_web.visit import VisitWebpageTool
from smol_tool_web.wikipedia import WikipediaSearchTool

__all__ = [
    "AddressRefusedError",
    "ApiWebSearchTool",
    "DuckDuckGoSearchTool",
    "GoogleSearchTool",
    "RateLimitedError",
    "SearchResult",
    "VisitWebpageTool",
    "WebSearchTool",
    "WebToolError",
    "WikipediaSearchTool",
]
