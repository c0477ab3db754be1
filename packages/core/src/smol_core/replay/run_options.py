"""`smolagent --record FILE` and `--replay FILE`: one agent's run taped, or played back from tape.

The flags do what `recording(agent, FILE)` and `replaying(agent, FILE)` do in Python, through the
CLI's `CommandRun` (smol_core/cli/command_run.py). A replay that differs from its tape ends the
command with exit status 4 and the difference, line by line.
"""

from __future__ import annotations

import argparse
from typing import Any

from smol_core.errors import SmolError


def configure(parser: argparse.ArgumentParser) -> None:
    tape = parser.add_argument_group("record and replay")
    taping = tape.add_mutually_exclusive_group()
    taping.add_argument(
        "--record", default=None, metavar="FILE", help="Write every model reply and tool result to FILE."
    )
    taping.add_argument(
        "--replay",
        default=None,
        metavar="FILE",
        help="Run again from FILE with no model and no tool calls (the task is FILE's unless given); "
        "the first step that differs ends it (exit status 4) with the difference.",
    )


def apply(args: argparse.Namespace, run: Any) -> None:
    """What the flags change in the command's run (`CommandRun`)."""
    if args.record is None and args.replay is None:
        return
    from smol_core.replay import ReplayDivergenceError, read_cassette, recording, replaying

    run.one_agent_only.append(
        "--record and --replay tape one agent's run, not a team's (use --save-run FILE)"
    )
    if args.record is not None:
        # the task is read when the run starts: `args.prompt` is the command's task by then
        run.around(lambda agent: recording(agent, args.record, task=args.prompt or ""))
        return
    run.around(lambda agent: replaying(agent, args.replay))
    run.on_error(ReplayDivergenceError, 4, lambda error: list(error.diff))
    if getattr(args, "prompt", None) is None and getattr(args, "task_file", None) is None:
        try:
            run.task = read_cassette(args.replay).task
        except SmolError as error:  # a cassette that cannot be read: the command's one-line mistake
            run.refuse(str(error))
