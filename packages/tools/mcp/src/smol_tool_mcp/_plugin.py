"""Registers the `mcp:<server>` tool family and the `smol mcp` command. Imports nothing heavy."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from smol_core.plugin_api import CommandSpec, ToolSpec, hookimpl, lazy


@hookimpl
def smol_tools() -> Iterable[ToolSpec]:
    return [
        ToolSpec(
            "mcp",
            lazy("smol_tool_mcp.cli:mcp_tools"),
            "Tools of an MCP server: mcp:<stdio command> or mcp:http://host:port/mcp.",
            parametrized=True,
        )
    ]


def _configure(parser: argparse.ArgumentParser) -> None:
    from smol_tool_mcp.cli import configure

    configure(parser)


def _run(args: argparse.Namespace) -> int:
    from smol_tool_mcp.cli import run

    return run(args)


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return [
        CommandSpec("mcp", "MCP servers: `smol mcp serve` serves smol tools or an agent.", _run, _configure)
    ]
