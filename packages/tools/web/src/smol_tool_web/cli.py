"""Factories for tool names that need arguments fixed (the command line passes none)."""

from __future__ import annotations

from smol_tool_web.search import WebSearchTool


def bing_search() -> WebSearchTool:
    return WebSearchTool(engine="bing")
