"""smol-tool-mcp: MCP servers' tools as smol tools (`MCPClient`, `ToolCollection.from_mcp`), and smol
tools or agents served as MCP servers (`serve_tools`, `serve_agent`, `smol mcp serve`).

Names load lazily so that plugin discovery (which imports `smol_tool_mcp._plugin`, hence this
package) never imports the MCP SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

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

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_tool_mcp.agent_sessions import clone_agent
    from smol_tool_mcp.client import MCPClient, tool_collection_from_mcp
    from smol_tool_mcp.connection import MCPConnectionError
    from smol_tool_mcp.results import MCPToolError
    from smol_tool_mcp.server import agent_as_tool, build_server
    from smol_tool_mcp.serving import build_http_app, serve_agent, serve_tools
    from smol_tool_mcp.tool import MCPTool
