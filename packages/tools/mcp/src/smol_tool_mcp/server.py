"""Server mode: serve smol tools, or a whole agent, as an MCP server (stdio or streamable HTTP).

Any MCP client (Claude Desktop, an IDE, another agent framework, smol's own `MCPClient`) can then
call them. Built on the SDK's low-level `Server` rather than `MCPServer`: a smol tool already has a
JSON description of its inputs, and `MCPServer` would re-derive one from a Python signature that
`Tool.forward(*args, **kwargs)` does not have.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import inspect
import io
import json
import sys
import threading
from collections.abc import Iterable
from typing import Any, Literal

from smol_core.tools.decorator import as_tool
from smol_core.tools.tool import Tool

Transport = Literal["stdio", "streamable-http", "http"]

# Output types whose values travel as structured content wrapped in {"result": ...}, the MCP SDKs'
# convention for non-object outputs (smol's MCPClient unwraps it, so a round trip keeps the type).
_WRAPPED = {"integer", "number", "boolean", "array"}


def _input_schema(tool: Tool) -> dict[str, Any]:
    parameters: dict[str, Any] = tool.to_tool_calling_schema()["function"]["parameters"]
    return parameters


def _output_schema(tool: Tool) -> dict[str, Any] | None:
    declared = getattr(tool, "output_schema", None)
    if isinstance(declared, dict) and declared.get("type") == "object":
        return declared
    if tool.output_type == "object":
        return {"type": "object"}
    if tool.output_type in _WRAPPED:
        return {
            "type": "object",
            "properties": {"result": {"type": tool.output_type}},
            "required": ["result"],
        }
    return None


def _content(value: Any) -> list[Any]:
    """MCP content blocks for a tool's return value: text, or a PNG image for a PIL image."""
    import mcp_types as types

    if hasattr(value, "save") and hasattr(value, "mode"):  # a PIL image
        buffer = io.BytesIO()
        value.save(buffer, format="PNG")
        data = base64.b64encode(buffer.getvalue()).decode()
        return [types.ImageContent(type="image", data=data, mime_type="image/png")]
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list | tuple | int | float | bool) or value is None:
        text = json.dumps(value, default=str, ensure_ascii=False)
    else:
        text = str(value)
    return [types.TextContent(type="text", text=text)]


async def _run_tool(tool: Tool, arguments: dict[str, Any]) -> Any:
    """Validate, then run: async tools on the server's loop, sync ones on a worker thread."""
    import anyio

    bound = tool.check_arguments((), arguments)
    forward = getattr(tool, "func", None) or tool.forward
    if inspect.iscoroutinefunction(forward):
        if not getattr(tool, "is_initialized", False):
            tool.setup()
        return await forward(**bound)
    return await anyio.to_thread.run_sync(functools.partial(tool, **bound))


def build_server(tools: Iterable[Any], name: str = "smol", instructions: str | None = None) -> Any:
    """An `mcp.server.Server` whose tools are `tools` (smol `Tool`s or typed, documented functions)."""
    import mcp_types as types
    from mcp.server import Server

    by_name: dict[str, Tool] = {}
    for item in tools:
        tool = as_tool(item)
        if tool.name in by_name:
            raise ValueError(f"Two tools are named {tool.name!r}: an MCP server needs unique names.")
        by_name[tool.name] = tool
    listing = [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=_input_schema(tool),
            output_schema=_output_schema(tool),
        )
        for tool in by_name.values()
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: Any) -> Any:
        tool = by_name.get(params.name)
        if tool is None:
            message = f"Unknown tool {params.name!r}; the tools are: {', '.join(by_name)}."
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)
        try:
            value = await _run_tool(tool, dict(params.arguments or {}))
        except Exception as error:  # the caller gets the error as a result, the server keeps serving
            message = f"{type(error).__name__}: {error}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)
        structured = None
        if _output_schema(tool) is not None:
            structured = (
                value if tool.output_type == "object" and isinstance(value, dict) else {"result": value}
            )
        return types.CallToolResult(content=_content(value), structured_content=structured)

    def input_schema(tool_name: str) -> dict[str, Any] | None:
        tool = by_name.get(tool_name)
        return None if tool is None else _input_schema(tool)

    return Server(
        name,
        instructions=instructions,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def agent_as_tool(agent: Any, name: str = "run", description: str | None = None) -> Tool:
    """One tool, `run(task)`, that runs the agent on a task and returns its final answer as text.

    Runs are serialized: an agent's memory belongs to one run at a time.
    """
    from smol_core.tools.decorator import FunctionTool

    lock = threading.Lock()

    def run(task: str) -> str:
        with lock:
            return str(agent.run(task))

    about = (
        description
        or getattr(agent, "description", None)
        or (
            "Gives a task to an AI agent that writes and runs Python code with its own tools, "
            "and returns the agent's final answer."
        )
    )
    inputs = {
        "task": {"type": "string", "description": "The task, stated fully: the agent sees nothing else."}
    }
    return FunctionTool(run, name=name, description=about, inputs=inputs, output_type="string")


def serve_tools(
    tools: Iterable[Any],
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str = "smol",
    instructions: str | None = None,
) -> None:
    """Serve `tools` until interrupted: over stdio, or streamable HTTP at `http://host:port/path`.

    Over stdio, the process's stdout carries the protocol; the SDK diverts what tools print to stderr.
    """
    server = build_server(tools, name=name, instructions=instructions)
    run_server(server, transport=transport, host=host, port=port, path=path)


def serve_agent(
    agent: Any,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    tool_name: str = "run",
    description: str | None = None,
) -> None:
    """Serve an agent as an MCP server with one tool, `run(task)`."""
    tool = agent_as_tool(agent, name=tool_name, description=description)
    serve_tools(
        [tool],
        transport=transport,
        host=host,
        port=port,
        path=path,
        name=getattr(agent, "name", None) or "smol",
    )


def run_server(
    server: Any, transport: Transport = "stdio", host: str = "127.0.0.1", port: int = 8000, path: str = "/mcp"
) -> None:
    import anyio

    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def serve_stdio() -> None:
            # The SDK points fd 1 at stderr while serving, but Python's own stdout buffer would still
            # flush onto the wire at exit: send what tools and agents print straight to stderr.
            async with stdio_server() as (read_stream, write_stream):
                with contextlib.redirect_stdout(sys.stderr):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve_stdio)
        return
    if transport not in ("streamable-http", "http"):
        raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'streamable-http' (alias 'http').")
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=path, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")
