"""How `smolagent` drives one agent's run: durable (`--run-id`, `--resume`, `--store`), within a budget
(`--budget-*`), taped (`--record FILE`) or played back from tape (`--replay FILE`).

Why apart from the command's other flags: these change how a run goes, not what the agent is, and
the command applies them around the run the same way the Python API does (`run(run_id=, budget=)`,
`recording`, `replaying`).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    budget = parser.add_argument_group(
        "budget",
        "Stop the run before a step that would go past one of these (exit status 3; a durable "
        "run resumes with --resume ID and a larger budget).",
    )
    budget.add_argument(
        "--budget-tokens", type=int, default=None, metavar="N", help="Input plus output tokens."
    )
    budget.add_argument(
        "--budget-cost",
        type=float,
        default=None,
        metavar="USD",
        help="Dollars, as the model plugin prices calls.",
    )
    budget.add_argument("--budget-seconds", type=float, default=None, metavar="S", help="Wall time in steps.")
    budget.add_argument("--budget-steps", type=int, default=None, metavar="N", help="Action steps.")
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


def replayed_task(path: str) -> str:
    """The task a cassette recorded (for `--replay FILE` without a task)."""
    from smol_core.replay import read_cassette

    return read_cassette(path).task


def budget(args: argparse.Namespace) -> Any:
    """The `--budget-*` flags as a `RunBudget`, or None when none is given (a team's agents get one each)."""
    from smol_core.agents.budget import RunBudget

    limits = {kind: getattr(args, f"budget_{kind}") for kind in ("tokens", "cost", "seconds", "steps")}
    return RunBudget(**limits) if any(value is not None for value in limits.values()) else None


def run_or_resume(agent: Any, args: argparse.Namespace) -> Any:
    """Run the task (durable with --run-id), or continue the durable run --resume names, with the
    record and replay options applied (the budget and the --store are the agent's, from `agent_settings`)."""
    with _taped(agent, args):
        if args.resume is not None:
            return agent.resume(args.resume, max_steps=args.max_steps)
        return agent.run(args.prompt, max_steps=args.max_steps, run_id=args.run_id)


@contextlib.contextmanager
def _taped(agent: Any, args: argparse.Namespace) -> Iterator[None]:
    from smol_core.replay import recording, replaying

    if args.record is not None:
        with recording(agent, args.record, task=args.prompt or ""):
            yield
    elif args.replay is not None:
        with replaying(agent, args.replay):
            yield
    else:
        yield
