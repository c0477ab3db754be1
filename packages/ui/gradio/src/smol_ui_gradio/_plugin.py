"""Registers `smol ui`. Imports nothing heavy: Gradio loads only when the command runs."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from smol_core.plugin_api import CommandSpec, hookimpl


def _configure(parser: argparse.ArgumentParser) -> None:
    from smol_ui_gradio.cli import configure

    configure(parser)


def _run(args: argparse.Namespace) -> int:
    from smol_ui_gradio.cli import run

    return run(args)


@hookimpl
def smol_commands() -> Iterable[CommandSpec]:
    return [
        CommandSpec(
            "ui",
            "A chat page for an agent (smolagent's flags, or --agent-folder), served by Gradio.",
            _run,
            _configure,
        )
    ]
