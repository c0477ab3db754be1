"""The `smol` subcommands smol-core provides: `plugins`, `doctor`, `team` and `runs`."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from smol_core.plugins.specs import CommandSpec


def _configure_plugins(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="Machine-readable output.")


def run_plugins(args: argparse.Namespace) -> int:
    """List every plugin: distribution, version, what it registers, and any load error."""
    from smol_core.plugins.registry import get_registry

    plugins = get_registry().plugins()
    if args.json:
        json.dump([asdict(p) for p in plugins], sys.stdout, indent=2)
        print()
        return 0
    for plugin in plugins:
        origin = "built-in" if plugin.builtin else plugin.module
        print(f"{plugin.name} {plugin.version} ({plugin.distribution}, {origin})")
        for kind, names in sorted(plugin.registers.items()):
            print(f"    {kind}: {', '.join(sorted(names))}")
        if plugin.conflicts:
            print(f"    CONFLICT (another plugin registers the same name): {', '.join(plugin.conflicts)}")
        if plugin.error:
            print(f"    ERROR: {plugin.error}")
    return 1 if any(p.error or p.conflicts for p in plugins) else 0


def run_doctor(args: argparse.Namespace) -> int:
    """Which sandbox protections are active on this machine, and which plugins loaded."""
    try:
        from smol_core.executors.local import protection_report
    except ImportError as error:
        print(f"The local executor cannot be imported: {error}")
        return 1
    print("Local executor protections on this machine:")
    for name, active, detail in protection_report():
        mark = "on " if active else "off"
        print(f"  [{mark}] {name}: {detail}")
    from smol_core.plugins.registry import get_registry

    broken = [p for p in get_registry().plugins() if p.error]
    print(f"Plugins: {len(get_registry().plugins())} loaded, {len(broken)} with errors (see `smol plugins`).")
    return 0


def _configure_team(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="A team run saved by `smolagent ... --num-agents N --save-run FILE`.")
    parser.add_argument("--json", action="store_true", help="The checked record as JSON.")


def run_team(args: argparse.Namespace) -> int:
    """Show a finished team run: the answer, each agent's outcome, the messages in time order."""
    from dataclasses import asdict

    from smol_core.teams.record import TeamRecordError, load_team_run, render_team_run
    from smol_core.terminal import escape_line

    try:
        record = load_team_run(args.file)
    except TeamRecordError as error:
        print(f"smol team: {escape_line(str(error))}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(asdict(record), sys.stdout, indent=2, default=repr)
        print()
    else:
        print(render_team_run(record))
    return 0


def _configure_runs(parser: argparse.ArgumentParser) -> None:
    from smol_core.cli import runs_command

    runs_command.configure(parser)


def _run_runs(args: argparse.Namespace) -> int:
    from smol_core.cli import runs_command

    return runs_command.run(args)


def commands() -> list[CommandSpec]:
    return [
        CommandSpec(
            "plugins", "List installed plugins and what they register.", run_plugins, _configure_plugins
        ),
        CommandSpec("doctor", "Show which sandbox protections are active here.", run_doctor),
        CommandSpec("team", "Show a finished team run saved with --save-run.", run_team, _configure_team),
        CommandSpec(
            "runs", "List, show, resume or delete durable runs (run_id=...).", _run_runs, _configure_runs
        ),
    ]
