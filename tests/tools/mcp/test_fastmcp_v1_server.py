"""A server script written for mcp 1.x (`from mcp.server.fastmcp import FastMCP`) keeps working.

smol-tool-mcp needs mcp 2.x (where FastMCP is gone), but a server is a program of its own: run it
with an interpreter that has mcp 1.x, and smol's client speaks to it over the wire (the protocol
versions of the two SDKs overlap). This is what packages/tools/mcp/README.md tells users to do.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import StdioServerParameters
from smol_tool_mcp import MCPClient

HOME = Path(os.environ.get("SMOL_MCP_V1_DIR") or Path.home() / ".cache" / "smol" / "mcp-v1")
SERVER = Path(__file__).with_name("fastmcp_v1_server.py")


def test_smol_uses_the_tools_of_a_fastmcp_server_run_by_mcp_1() -> None:
    python = HOME / "bin" / "python"
    if not python.exists():
        pytest.skip(f"no environment with mcp 1.x in {HOME}: run scripts/setup.d/60-mcp-v1.sh")
    params = StdioServerParameters(command=str(python), args=[str(SERVER)])
    with MCPClient(params, timeout=30) as tools:
        (add,) = [tool for tool in tools if tool.name == "add"]
        assert add(a=2, b=3) == 5
