"""Server mode: smol tools as an MCP server (`build_server`); `serving` runs it over stdio or HTTP.

Any MCP client (Claude Desktop, an IDE, another agent framework, smol's own `MCPClient`) can then
call them. Built on the SDK's low-level `Server` rather than `MCPServer`: a smol tool already has a
JSON description of its inputs, and `MCPServer` would re-derive one from a Python signature that
`Tool.forward(*args, **kwargs)` does not have.
"""

from __future__ import annotations

import base64
import functools
import inspect
import io
import json
import threading
from collections.abc import Iterable
from typing import Any

from smol_core.plugin_api import Tool, as_tool

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
    """One tool, `run(task)`, that runs this one agent on a task and returns its final answer as text.

    For use inside one process (a tool of another agent). Every caller shares the agent's memory and
    executor, so `serve_agent` does not use it: it gives each MCP session an agent of its own.
    Runs are serialized: an agent's memory belongs to one run at a time.
    """
    from smol_core.plugin_api import FunctionTool

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
