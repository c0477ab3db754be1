"""Turn an MCP `CallToolResult` into the Python value a smol tool returns.

Code agents work on values, not protocol objects: text stays a `str`, structured content becomes
the `dict` (or, for a wrapped primitive, the value itself), images become PIL images when Pillow is
installed (else raw bytes), and several blocks become a list. A result flagged `isError` raises,
so the agent records it as the step's observation.
"""

from __future__ import annotations

import base64
import io
import json
from typing import Any

from smol_core.plugin_api import AgentToolExecutionError
from smol_tool_mcp.schema import is_wrapped_result


class MCPToolError(AgentToolExecutionError):
    """An MCP tool failed: the server reported an error, died, or did not answer in time."""


def _image(data: str, mime_type: str) -> Any:
    raw = base64.b64decode(data)
    try:
        from PIL import Image
    except ImportError:
        return raw
    image = Image.open(io.BytesIO(raw))
    image.load()
    return image


def content_block_value(block: Any) -> Any:
    """One content block (text, image, audio, embedded resource, resource link) as a Python value."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind == "image":
        return _image(block.data, block.mime_type)
    if kind == "audio":
        return base64.b64decode(block.data)
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        return text if text is not None else base64.b64decode(resource.blob)
    if kind == "resource_link":
        return str(block.uri)
    return block


def error_text(result: Any) -> str:
    texts = [b.text for b in result.content if getattr(b, "type", None) == "text"]
    return "\n".join(texts) or "the server gave no details"


def result_value(result: Any, output_schema: dict[str, Any] | None, structured: bool) -> Any:
    """The Python value of a successful `CallToolResult` (raise first if `result.is_error`)."""
    if structured and result.structured_content is not None:
        content = result.structured_content
        if is_wrapped_result(output_schema) and isinstance(content, dict) and set(content) == {"result"}:
            return content["result"]
        return content
    values = [content_block_value(block) for block in result.content]
    if structured and output_schema and len(values) == 1 and isinstance(values[0], str):
        # A server that declares an output schema but sends only text: its text is the JSON.
        try:
            parsed = json.loads(values[0])
        except ValueError:
            return values[0]
        if is_wrapped_result(output_schema) and isinstance(parsed, dict) and set(parsed) == {"result"}:
            return parsed["result"]
        return parsed
    if not values:
        return None
    return values[0] if len(values) == 1 else values
