"""`ToolCollection`: a group of tools that come from one source (an MCP server, a Hub collection)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from smol_core.tools.tool import Tool


class ToolCollection:
    def __init__(self, tools: list[Tool]) -> None:
        self.tools = list(tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    @classmethod
    def from_mcp(
        cls, server_parameters: Any, trust_remote_code: bool = False, structured_output: bool | None = None
    ) -> AbstractContextManager[ToolCollection]:
        """Tools of one or several MCP servers, open for the duration of the `with` block (smol-tool-mcp)."""
        from smol_core.plugins.lazy import plugin_attribute

        opener: Callable[..., AbstractContextManager[ToolCollection]] = plugin_attribute(
            "smol_tool_mcp", "tool_collection_from_mcp", "smol-tool-mcp"
        )
        return opener(
            server_parameters, trust_remote_code=trust_remote_code, structured_output=structured_output
        )

    @classmethod
    def from_hub(
        cls, collection_slug: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> ToolCollection:
        """Tools of a Hugging Face Hub collection (smol-tool-hub)."""
        from smol_core.plugins.lazy import plugin_attribute

        loader: Callable[..., ToolCollection] = plugin_attribute(
            "smol_tool_hub", "tool_collection_from_hub", "smol-tool-hub"
        )
        return loader(collection_slug, token=token, trust_remote_code=trust_remote_code, **kwargs)
