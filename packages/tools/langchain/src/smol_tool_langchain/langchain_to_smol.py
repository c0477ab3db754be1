"""LangChain tools as smol tools: what `Tool.from_langchain(lc_tool)` returns."""

from __future__ import annotations

import asyncio
import keyword
import re
import typing
from typing import Any

from smol_core.plugin_api import (
    AgentToolExecutionError,
    Tool,
    TypeHintParsingException,
    json_type_of,
    parse_google_docstring,
    validate_tool_definition,
)
from smol_tool_langchain.schema import inputs_from_json_schema


def _python_name(name: str) -> str:
    cleaned = re.sub(r"\W", "_", name) or "langchain_tool"
    if cleaned[0].isdigit():
        cleaned = f"tool_{cleaned}"
    return cleaned + "_" if keyword.iskeyword(cleaned) else cleaned


def _call_schema(lc_tool: Any) -> dict[str, Any]:
    """The JSON schema of what the model must pass (`tool_call_schema` hides injected arguments)."""
    schema = lc_tool.tool_call_schema
    return dict(schema) if isinstance(schema, dict) else schema.model_json_schema()


def _output_type(lc_tool: Any) -> str:
    """From the wrapped function's return annotation when there is one; else `any`, honestly."""
    function = getattr(lc_tool, "func", None) or getattr(lc_tool, "coroutine", None)
    if function is None:
        function = getattr(type(lc_tool), "_run", None)
    try:
        hints = typing.get_type_hints(function) if function is not None else {}
        if "return" not in hints:
            return "any"
        kind = json_type_of(hints["return"])["type"]
    except (TypeHintParsingException, TypeError, ValueError, NameError):
        return "any"
    return kind if isinstance(kind, str) and kind != "null" else "any"


class LangChainTool(Tool):
    """A smol tool that calls a LangChain `BaseTool` (sync `invoke`, or `ainvoke` for async-only tools)."""

    skip_forward_signature_validation = True

    def __init__(self, langchain_tool: Any) -> None:
        super().__init__()
        self.langchain_tool = langchain_tool
        schema = _call_schema(langchain_tool)
        description, arg_docs, _ = parse_google_docstring(langchain_tool.description or "")
        self.name = _python_name(langchain_tool.name)
        self.description = (
            description or langchain_tool.description or f"The LangChain tool {langchain_tool.name}."
        )
        self.inputs = inputs_from_json_schema(schema, arg_docs)
        self.output_type = _output_type(langchain_tool)
        self._required = set(schema.get("required") or [])
        self.is_initialized = True
        validate_tool_definition(self)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        from langchain_core.tools import ToolException

        arguments = dict(zip(self.inputs, args))
        arguments.update(kwargs)
        # Left-out optional arguments are not sent: the tool's own defaults apply.
        arguments = {k: v for k, v in arguments.items() if v is not None or k in self._required}
        tool = self.langchain_tool
        try:
            if getattr(tool, "func", True) is None and getattr(tool, "coroutine", None) is not None:
                return asyncio.run(tool.ainvoke(arguments))
            return tool.invoke(arguments)
        except ToolException as error:
            raise AgentToolExecutionError(f"The LangChain tool {self.name!r} failed: {error}") from error


def tool_from_langchain(langchain_tool: Any) -> Tool:
    """A smol `Tool` for a LangChain tool (`@tool` function, `StructuredTool`, or `BaseTool` subclass)."""
    if not hasattr(langchain_tool, "invoke") or not hasattr(langchain_tool, "tool_call_schema"):
        raise TypeError(
            f"Tool.from_langchain() takes a LangChain BaseTool, got {type(langchain_tool).__name__}."
        )
    return LangChainTool(langchain_tool)
