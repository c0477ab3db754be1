"""An MCP server written for the mcp SDK 1.x, as users have them: `FastMCP` and a decorated function.

Run by an environment with mcp 1.x (scripts/setup.d/60-mcp-v1.sh), never imported by the tests.
"""

from mcp.server.fastmcp import FastMCP

server = FastMCP("legacy")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


if __name__ == "__main__":
    server.run()
