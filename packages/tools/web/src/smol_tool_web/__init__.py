"""smol-tool-web, the toolkit: web search, page reading and Wikipedia for agents.

Every tool talks HTTP itself (httpx), so every endpoint is a constructor argument, and every failure
(rate limit, refused connection, timeout, HTTP error) raises a `WebToolError` whose message tells the
model what to do next. Only public addresses are fetched unless the user allows more
(`allow_private_addresses=`, `SMOL_WEB_ALLOW_PRIVATE`): a non-public one raises `AddressRefusedError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# Names load on first use (PEP 562): `smol plugins` imports `smol_tool_web._plugin`, hence this
# package, and must not need httpx to list the toolkit.
_EXPORTS = {
    "AddressRefusedError": "smol_tool_web._http",
    "RateLimitedError": "smol_tool_web._http",
    "WebToolError": "smol_tool_web._http",
    "ApiWebSearchTool": "smol_tool_web.api_search",
    "GoogleSearchTool": "smol_tool_web.api_search",
    "SearchResult": "smol_tool_web.results",
    "DuckDuckGoSearchTool": "smol_tool_web.search",
    "WebSearchTool": "smol_tool_web.search",
    "VisitWebpageTool": "smol_tool_web.visit",
    "WikipediaSearchTool": "smol_tool_web.wikipedia",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_tool_web._http import AddressRefusedError, RateLimitedError, WebToolError
    from smol_tool_web.api_search import ApiWebSearchTool, GoogleSearchTool
    from smol_tool_web.results import SearchResult
    from smol_tool_web.search import DuckDuckGoSearchTool, WebSearchTool
    from smol_tool_web.visit import VisitWebpageTool
    from smol_tool_web.wikipedia import WikipediaSearchTool
