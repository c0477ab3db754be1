"""`smol`: the project's own command — `smol plugins`, `smol doctor`, and subcommands plugins add."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, object]]:
    from smol_core.cli.usage import CommandParser
    from smol_core.plugins.registry import get_registry

    parser = CommandParser(prog="smol", description="smol: agents that think in code.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    runners: dict[str, object] = {}
    registry = get_registry()
    for spec in registry.specs("commands"):
        command = registry.command(spec.name)
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(child)
        runners[command.name] = command.run
    return parser, runners


def main(argv: Sequence[str] | None = None) -> int:
    """`smol COMMAND`: a command's own status, 2 for an error (one line on stderr), or 128 + the
    signal that stopped it (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""
    from smol_core.cli.lifetime import start_command, stopped_by_signal, stopped_status

    if argv is None:  # the real command: a server (`smol mcp serve`, `smol ui`) ends with its launcher
        start_command()
    try:
        status = _main(argv)
    except KeyboardInterrupt as stop:
        return stopped_status("smol", stop)
    # a server loop (uvicorn, Gradio) takes the signal as its cue to shut down and returns normally
    stopped = stopped_by_signal("smol") if argv is None else None
    return status if stopped is None else stopped


def _missing_command(argv: Sequence[str] | None, runners: dict[str, object]) -> str | None:
    """`smol ui` without the package that provides `ui`: which package, and how to install it here
    (argparse alone says "invalid choice", with no hint)."""
    from smol_core.install_advice import install_hint
    from smol_core.plugins.specs import KNOWN_PROVIDERS

    words = list(sys.argv[1:] if argv is None else argv)
    command = next((word for word in words if not word.startswith("-")), None)
    provider = KNOWN_PROVIDERS["commands"].get(command or "")
    if command is None or command in runners or provider is None:
        return None
    return f"`smol {command}` is a command of the plugin package {provider!r}, not installed: {install_hint(provider)}"


def _main(argv: Sequence[str] | None) -> int:
    from smol_core.errors import SmolError
    from smol_core.terminal import escape_controls

    try:
        parser, runners = build_parser()
    except SmolError as error:
        print(f"smol: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    missing = _missing_command(argv, runners)
    if missing is not None:
        print(f"smol: {missing}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    run = runners[args.command]
    try:
        return int(run(args))  # type: ignore[operator]
    except SmolError as error:
        print(f"smol {args.command}: {escape_controls(str(error))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
