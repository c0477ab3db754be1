"""`smolagent --num-agents N`: a team of agent processes from the command line, and its flags.

Teams declare their flags here and run the team themselves (`CommandRun.runner`): the CLI runs one
agent, or hands its run to this module, and knows no team by name. Agent 0 gets the task, and its
answer alone goes to stdout; the logs of every agent go to stderr, each line prefixed.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any

from smol_core.errors import SmolError
from smol_core.terminal import escape_controls

MAX_AGENTS = 64


def configure(parser: argparse.ArgumentParser) -> None:
    team = parser.add_argument_group(
        "teams", "Run a team of agents, each its own process, that message each other."
    )
    team.add_argument(
        "--num-agents",
        type=int,
        default=1,
        help="Run a team of N agents, each its own process, that message each other; agent 0 gets the task.",
    )
    team.add_argument(
        "--transport",
        default="local",
        help="How a team's messages travel: a transport plugin (local, redis, ...). Default: local.",
    )
    team.add_argument(
        "--transport-url", default=None, help="The transport's server, e.g. redis://127.0.0.1:6379/0."
    )
    team.add_argument(
        "--deadline",
        type=float,
        default=600.0,
        help="A team's time budget in seconds: then every agent is stopped. Default: 600.",
    )
    team.add_argument(
        "--save-run",
        default=None,
        metavar="FILE",
        help="With --num-agents: save the finished team run (each agent's outcome, every message) to "
        "FILE; `smol team FILE` shows it.",
    )


def apply(args: argparse.Namespace, run: Any) -> None:
    """Checks the flags; with two agents or more, the team takes the command's run over."""
    if not 1 <= args.num_agents <= MAX_AGENTS:
        run.refuse(f"--num-agents must be from 1 to {MAX_AGENTS}, got {args.num_agents}")
    if args.save_run and args.num_agents < 2:
        run.refuse("--save-run saves a team run: use it with --num-agents 2 or more")
    if args.num_agents < 2:
        return
    if not args.deadline > 0:  # NaN too: a deadline that never compares would never stop the team
        run.refuse(f"--deadline must be positive, got {args.deadline}")
    from smol_core.plugins.registry import get_registry

    try:
        get_registry().transport(args.transport)
    except SmolError as error:
        run.refuse(str(error))
    if args.transport_url and args.transport in ("local", "multiprocessing"):
        run.refuse("--transport-url is for a server transport (redis, ...): `local` needs none")
    run.runner = run_team


def run_team(run: Any, settings: Callable[[], Any]) -> int:
    """Runs the team (or, with `--resume ID`, takes over the durable team run whose host died): 0
    with agent 0's answer on stdout, 1 when it gave none, 2 on an error."""
    from smol_core.teams.team import resume_agents, run_agents

    args = run.args
    team = dict(
        num_agents=args.num_agents,
        settings=settings(),
        transport=args.transport,
        transport_kwargs={"url": args.transport_url} if args.transport_url else {},
        deadline_seconds=args.deadline,
    )
    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout is agent 0's answer alone
            if run.resume is not None:
                result = resume_agents(run.resume, **team)
            else:
                result = run_agents(args.prompt, **team, **run.run_keywords)
    except SmolError as error:
        print(f"smolagent: {escape_controls(str(error))}", file=sys.stderr)
        return 2
    if args.save_run:
        _save(result, args.save_run)
    if result.output is None or result.state == "max_steps_error":
        print(f"smolagent: {_no_answer(result, args.deadline)}", file=sys.stderr)
        return 1
    print(escape_controls(result.output))
    return 0


def _save(result: Any, path: str) -> None:
    from smol_core.teams.record import save_team_run

    try:
        print(f"smolagent: team run saved to {save_team_run(result, path)}", file=sys.stderr)
    except OSError as error:
        print(f"smolagent: the team run could not be saved: {escape_controls(str(error))}", file=sys.stderr)


def _no_answer(result: Any, deadline: float) -> str:
    """One line: why, agent 0's steps and its last error's first line (the traceback is in the
    saved run, `smol team FILE`)."""
    why = {
        "deadline": f"the deadline of {deadline:g} s passed",
        "max_steps_error": "agent 0 took its steps (--max-steps) without calling final_answer",
    }.get(result.state, result.state)
    reason = result.agents[0].error
    steps = result.agents[0].steps
    parts = [f"agent 0 took {steps} step(s)"] if steps else []
    if reason:
        parts.append(f"its last error: {escape_controls((reason.splitlines() or [''])[0])}")
    detail = f": {'; '.join(parts)}" if parts else ""
    return f"the team gave no answer ({why}){detail}"
