"""Real MCP servers for the tests, started once per session: the `mcp` SDK's own server (stdio and
streamable HTTP), and smol's server mode (`smol mcp serve`) over stdio and HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from mcp import StdioServerParameters
from mcp_servers import DEMO, SMOL_TOOLS, TOKEN, free_port, wait_for_port
from smol_tool_mcp import MCPClient


@pytest.fixture(scope="session")
def demo_params() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(DEMO)])


@pytest.fixture(scope="session")
def demo_client(demo_params: StdioServerParameters) -> Iterator[MCPClient]:
    client = MCPClient(demo_params, structured_output=True, timeout=10)
    yield client
    client.disconnect()


@pytest.fixture(scope="session")
def demo_tools(demo_client: MCPClient) -> dict[str, object]:
    return {tool.name: tool for tool in demo_client.get_tools()}


def _serve(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def demo_http_url() -> Iterator[str]:
    port = free_port()
    yield from _serve([sys.executable, str(DEMO), "http", str(port)], port)


SMOL_SERVE = [sys.executable, "-m", "smol_core.cli.smol", "mcp", "serve"]


@pytest.fixture(scope="session")
def smol_http_url() -> Iterator[str]:
    """`smol mcp serve` over HTTP, requiring `TOKEN` (given through SMOL_MCP_TOKEN)."""
    port = free_port()
    command = [*SMOL_SERVE, "--tools", str(SMOL_TOOLS), "--transport", "http", "--port", str(port)]
    yield from _serve(command, port, env={"SMOL_MCP_TOKEN": TOKEN})
