"""smol-tool-mcp: MCP servers' tools as smol tools (`MCPClient`, `ToolCollection.from_mcp`), and smol
tools or agents served as MCP servers (`serve_tools`, `serve_agent`, `smol mcp serve`).

Names load lazily so that plugin discovery (which imports `smol_tool_mcp._plugin`, hence this
package) never imports the MCP SDK.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "MCPClient": "smol_tool_mcp.client",
    "tool_collection_from_mcp": "smol_tool_mcp.client",
    "MCPTool": "smol_tool_mcp.tool",
    "MCPToolError": "smol_tool_mcp.results",
    "MCPConnectionError": "smol_tool_mcp.connection",
    "build_server": "smol_tool_mcp.server",
    "serve_tools": "smol_tool_mcp.serving",
    "serve_agent": "smol_tool_mcp.serving",
    "build_http_app": "smol_tool_mcp.serving",
    "agent_as_tool": "smol_tool_mcp.server",
    "clone_agent": "smol_tool_mcp.agent_sessions",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'smol_tool_mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
