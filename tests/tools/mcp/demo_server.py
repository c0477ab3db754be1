"""An MCP server written with the real `mcp` SDK, for the tests: `python demo_server.py [stdio|http PORT]`."""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

server = MCPServer("demo", log_level="WARNING")


class Weather(BaseModel):
    city: str
    temperature: float = Field(description="Degrees Celsius.")
    conditions: str


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(structured_output=False)
def greet(name: str, punctuation: str = "!") -> str:
    """Say hello to someone."""
    return f"Hello, {name}{punctuation}"


@server.tool()
def weather(city: str) -> Weather:
    """Current weather of a city."""
    return Weather(city=city, temperature=21.5, conditions="sunny")


@server.tool(name="list-items")
def list_items(prefix: str, count: int = 2, tags: list[str] | None = None) -> list[str]:
    """Items whose names start with a prefix (a name with a dash, optional arguments)."""
    return [f"{prefix}{i}" for i in range(count)] + list(tags or [])


@server.tool()
def fail(message: str) -> str:
    """Always fails, with the message given."""
    raise ToolError(message)


@server.tool()
def red_pixel() -> Image:
    """A 1x1 red PNG."""
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
        "0000000c4944415478da63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
    )
    return Image(data=png, format="png")


@server.tool()
def die() -> str:
    """Kills the server process mid-call (a crash)."""
    os._exit(3)


@server.tool()
def sleep(seconds: float) -> str:
    """Sleeps, then answers."""
    time.sleep(seconds)
    return "awake"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
