"""`MCPTool`: one tool of an MCP server, as a smol `Tool` that code and tool-calling agents call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smol_core.plugin_api import Tool, validate_tool_definition
from smol_tool_mcp.results import MCPToolError, error_text, result_value
from smol_tool_mcp.schema import describe_output, inputs_from_schema, output_type_from_schema

Caller = Callable[[str, dict[str, Any]], Any]


class MCPTool(Tool):
    """A tool served by an MCP server. Calls go through `caller(remote_name, arguments)`.

    `name` is a Python identifier (what code agents call); `remote_name` is the server's own name.
    Arguments are checked against `inputs` before anything is sent (core's `check_arguments`), so a
    wrong call costs no round trip and names the argument; optional arguments the model leaves out
    (or sets to None) are not sent, so the server applies its own defaults.
    """

    skip_forward_signature_validation = True

    def __init__(
        self,
        mcp_tool: Any,
        caller: Caller,
        name: str,
        structured_output: bool = True,
        server_label: str = "",
    ) -> None:
        super().__init__()
        self.remote_name: str = mcp_tool.name
        self.server_label = server_label
        self._caller = caller
        self._structured = structured_output
        schema = dict(mcp_tool.input_schema or {})
        self._required = set(schema.get("required") or [])
        self.name = name
        self.inputs = inputs_from_schema(schema)
        self.output_schema = mcp_tool.output_schema if structured_output else None  # type: ignore[misc]
        self.output_type = output_type_from_schema(self.output_schema, structured_output)
        description = (mcp_tool.description or mcp_tool.title or f"The MCP tool {mcp_tool.name!r}.").strip()
        extra = describe_output(self.output_schema)
        self.description = f"{description}\n{extra}" if extra else description
        self.is_initialized = True
        validate_tool_definition(self)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        arguments = dict(zip(self.inputs, args))
        arguments.update(kwargs)
        arguments = {k: v for k, v in arguments.items() if v is not None or k in self._required}
        result = self._caller(self.remote_name, arguments)
        if result.is_error:
            raise MCPToolError(f"The MCP tool {self.name!r} failed: {error_text(result)}")
        return result_value(result, self.output_schema, self._structured)
