"""smol tools as LangChain tools: `to_langchain(tool)` -> `StructuredTool`.

The args schema is a pydantic model built from the tool's `inputs`, so LangChain agents and chat
models see the same types and descriptions smol's agents do; calls are then checked by smol's own
`check_arguments`, and any failure is raised as a `ToolException` (which LangChain can turn into a
message with `handle_tool_error=True`).
"""

from __future__ import annotations

import inspect
from typing import Any

from smol_core.plugin_api import Tool, as_tool
from smol_tool_langchain.schema import pydantic_model


def _without_defaults(tool: Tool, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Drop optional arguments left at None: pydantic fills them in, the smol tool has its own defaults."""
    return {k: v for k, v in kwargs.items() if v is not None or not tool.inputs.get(k, {}).get("nullable")}


def to_langchain(tool: Tool | Any, handle_tool_error: bool = False) -> Any:
    """A LangChain `StructuredTool` that runs a smol tool (or a typed, documented function)."""
    from langchain_core.tools import StructuredTool, ToolException

    smol_tool = as_tool(tool)
    args_schema = pydantic_model(smol_tool.name, smol_tool.inputs)

    def run(**kwargs: Any) -> Any:
        try:
            return smol_tool(sanitize_inputs_outputs=True, **_without_defaults(smol_tool, kwargs))
        except Exception as error:
            raise ToolException(f"{type(error).__name__}: {error}") from error

    forward = getattr(smol_tool, "func", None) or smol_tool.forward
    coroutine = None
    if inspect.iscoroutinefunction(forward):

        async def arun(**kwargs: Any) -> Any:
            try:
                bound = smol_tool.check_arguments((), _without_defaults(smol_tool, kwargs))
                return await forward(**bound)
            except Exception as error:
                raise ToolException(f"{type(error).__name__}: {error}") from error

        coroutine = arun

    return StructuredTool(
        name=smol_tool.name,
        description=smol_tool.description,
        args_schema=args_schema,
        func=None if coroutine else run,
        coroutine=coroutine,
        handle_tool_error=handle_tool_error,
    )
