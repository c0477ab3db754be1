"""Registers the `langchain:<module:name>` tool family. Imports nothing heavy (no langchain-core)."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import ToolSpec, hookimpl, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "langchain",
            lazy("smol_tool_langchain.cli:langchain_tools"),
            "A LangChain tool by import path: langchain:package.module:tool_or_class.",
            parametrized=True,
        )
    ]
