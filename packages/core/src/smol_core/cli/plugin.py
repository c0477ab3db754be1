"""The CLI's part of smol-core as a plugin: its own `smol` subcommands, through the same hook as any
plugin's. The registry registers this module when commands are first asked for (`FEATURE_PLUGINS`),
so the plugin system (a floor below the CLI) never imports the CLI, and an agent's run never loads it."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.cli import builtin_commands
from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import CommandSpec


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return builtin_commands.commands()
