"""`smolagent --run-id ID`, `--resume ID`, `--store FILE`: one run made durable from the command line.

The flags do what the Python API does (`agent.run(task, run_id=...)`, `agent.resume(run_id)`,
`checkpoint_store=`), through the CLI's `CommandRun` (smol_core/cli/command_run.py): durable runs
declare them here, so the CLI knows none of them by name.
"""

from __future__ import annotations

import argparse
from typing import Any


def configure(parser: argparse.ArgumentParser) -> None:
    durable = parser.add_argument_group(
        "durable runs", "Checkpoint the run after every step, so that another process can continue it."
    )
    durable.add_argument(
        "--run-id",
        default=None,
        help="Make the run durable: checkpointed after every step under this id, so that "
        "`smolagent --resume ID` (same model and tool options) continues it if this process dies.",
    )
    durable.add_argument(
        "--resume",
        default=None,
        metavar="RUN_ID",
        help="Continue the durable run RUN_ID from its last checkpoint (no task: the run has one); "
        "with --num-agents N, the durable team run RUN_ID whose host died (same team options).",
    )
    durable.add_argument(
        "--store", default=None, help="The SQLite file of durable runs (default: the user's runs.sqlite3)."
    )


def apply(args: argparse.Namespace, run: Any) -> None:
    """What the flags change in the command's run (`CommandRun`)."""
    if args.resume is not None:
        # `smol ui` takes these flags without a task: its page asks for one
        given_task = getattr(args, "prompt", None) is not None or getattr(args, "task_file", None) is not None
        if given_task or args.run_id is not None:
            run.refuse("--resume continues a run with its own task and id: give no task and no --run-id")
        run.needs_task = False
        run.resume = args.resume
        run.start = lambda agent: agent.resume(args.resume, max_steps=args.max_steps)
    if args.store is not None:
        if args.run_id is None and args.resume is None:
            run.refuse("--store keeps durable runs: use it with --run-id ID (or --resume ID)")
        from smol_core.durable.sqlite_store import SQLiteStore

        run.settings["checkpoint_store"] = SQLiteStore(args.store)
    if args.run_id is not None:
        run.run_keywords["run_id"] = args.run_id
