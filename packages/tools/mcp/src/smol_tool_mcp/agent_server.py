"""An agent served as an MCP server: one tool, `run(task, keep_memory=False)`, one agent per session.

Each run starts afresh (`agent.run(task, reset=True)`) unless the client asks to continue its own
session's conversation with `keep_memory=true`; either way a client only ever sees the agent of its
own session (see `agent_sessions`). A client on the stateless protocol (MCP 2026-07-28, no session
id) gets a new agent for every call, whatever session id it claims, so nothing can carry over, and
`keep_memory` is refused.
"""

from __future__ import annotations

import functools
from typing import Any

from smol_tool_mcp.agent_sessions import AgentSessions, session_key

_DEFAULT_DESCRIPTION = (
    "Gives a task to an AI agent that writes and runs Python code with its own tools, "
    "and returns the agent's final answer."
)
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "The task, stated fully: the agent sees nothing else."},
        "keep_memory": {
            "type": "boolean",
            "description": (
                "true: continue from this session's earlier runs (the agent remembers them); "
                "false or absent: start afresh."
            ),
        },
    },
    "required": ["task"],
}


def _error(text: str) -> Any:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _run(sessions: AgentSessions, key: str | None, task: str, keep_memory: bool) -> str:
    if key is not None and not keep_memory and key not in sessions:
        key = None  # a session whose agent is gone: a fresh run loses nothing (keep_memory says so)
    with sessions.agent(key) as agent:
        return str(agent.run(task, reset=not keep_memory))


def build_agent_server(
    sessions: AgentSessions,
    name: str = "smol",
    tool_name: str = "run",
    description: str | None = None,
    instructions: str | None = None,
) -> Any:
    """An `mcp.server.Server` whose one tool runs the calling session's agent on a task."""
    import anyio
    import mcp_types as types
    from mcp.server import Server

    listing = [
        types.Tool(name=tool_name, description=description or _DEFAULT_DESCRIPTION, input_schema=INPUT_SCHEMA)
    ]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name != tool_name:
            return _error(f"Unknown tool {params.name!r}; the tool is: {tool_name}.")
        arguments = dict(params.arguments or {})
        task, keep_memory = arguments.get("task"), arguments.get("keep_memory") or False
        if not isinstance(task, str) or not task.strip():
            return _error("The argument 'task' must be a non-empty string.")
        if not isinstance(keep_memory, bool):
            return _error("The argument 'keep_memory' must be true or false.")
        key = session_key(ctx)
        if keep_memory and key is None:
            return _error(
                "keep_memory needs an MCP session, and this request has none (the stateless protocol): "
                "every run starts afresh. Put everything the agent needs in the task."
            )
        run = functools.partial(_run, sessions, key, task, keep_memory)
        try:
            answer = await anyio.to_thread.run_sync(run)
        except Exception as error:  # the caller gets the error as a result, the server keeps serving
            return _error(f"{type(error).__name__}: {error}")
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer)])

    def input_schema(requested: str) -> dict[str, Any] | None:
        return INPUT_SCHEMA if requested == tool_name else None

    return Server(
        name,
        instructions=instructions,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
