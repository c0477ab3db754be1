"""`smol runs list|show|resume|approve|deny|delete|prune`: the durable runs in a store, from the command line.

Why the output is escaped: a checkpoint holds what the model and the sandbox wrote (steps,
observations, variables), and none of it may reach the terminal as control sequences. Every error
(a store that cannot be opened, a checkpoint that cannot be read) is one line on stderr, status 2.
`show` prints a waiting call whole, with its approval key, and `approve`/`deny` take that key, so
a decision is about the call the person read (`durable/approvals.py`). `prune` forgets runs by age,
count or total size, never one being driven (`durable/retention.py`).
`resume` takes `smolagent`'s options after the run id: the agent is configuration (model, tools,
executor), given again on the command line, as security settings only ever come from there.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from typing import Any

from smol_core.cli.table import print_table
from smol_core.durable.call_view import describe_call, short_call
from smol_core.durable.errors import CheckpointError, RunNotFoundError
from smol_core.durable.retention import RetentionPolicy, parse_duration, parse_size, prune_runs
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.durable.store import RunRecord
from smol_core.executors.worker.protocol import encode
from smol_core.terminal import escape_line

_PREVIEW = 160


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=None, help="The SQLite store (default: the user's runs.sqlite3).")
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="list|show|resume|approve|deny|delete|prune"
    )
    listing = actions.add_parser("list", help="Every run in the store, newest first.")
    listing.add_argument("--json", action="store_true", help="Machine-readable output.")
    show = actions.add_parser("show", help="One run: status, steps, variables, what could not be saved.")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true", help="Machine-readable output.")
    resume = actions.add_parser(
        "resume", help="Continue a run from its last checkpoint (smolagent's options follow the id)."
    )
    resume.add_argument("run_id")
    resume.add_argument("options", nargs=argparse.REMAINDER, help="smolagent options: --model-type ...")
    for decision, what in (("approve", "Let"), ("deny", "Refuse")):
        decide = actions.add_parser(
            decision, help=f"{what} the tool call a paused run waits for (then resume the run)."
        )
        decide.add_argument("run_id")
        decide.add_argument("key", help="The call's approval key, as `smol runs show RUN` shows it.")
        decide.add_argument("--note", default=None, help="Why: the model reads it with a denial.")
    delete = actions.add_parser("delete", help="Forget a run and its checkpoint.")
    delete.add_argument("run_id")
    _configure_prune(actions.add_parser("prune", help="Forget old runs (never one being driven)."))


def _configure_prune(prune: argparse.ArgumentParser) -> None:
    prune.add_argument("--older-than", default=None, help="Runs last saved longer ago than this: 12h, 7d.")
    prune.add_argument("--keep", type=int, default=None, help="Keep the newest N runs; forget the others.")
    prune.add_argument(
        "--max-size", default=None, help="Forget the oldest runs until all fit in this: 500M, 2G."
    )
    prune.add_argument(
        "--status", action="append", default=[], help="Only runs of this status (repeat for more)."
    )
    prune.add_argument("--dry-run", action="store_true", help="List what would go; delete nothing.")


TEAM_AGENT_LABEL = "Team"
"""The agent `smol runs list` shows for a team's own record (the host's: its task, transport and key)."""


def _is_a_team(store: SQLiteStore, run_id: str) -> bool:
    return any(record.run_id == run_id and record.agent == TEAM_AGENT_LABEL for record in store.list())


def run(args: argparse.Namespace) -> int:
    store = SQLiteStore(args.store) if args.store else SQLiteStore()
    try:
        if args.action == "resume":
            from smol_core.cli.smolagent import main as smolagent

            if "--num-agents" not in args.options and _is_a_team(store, args.run_id):
                raise CheckpointError(
                    f"run {args.run_id!r} is a team's: resume the team with `smol runs resume {args.run_id} "
                    "--num-agents N --transport NAME --transport-url URL` (the options it was started with)"
                )
            return smolagent(["--resume", args.run_id, "--store", str(store.path), *args.options])
        actions = {
            "list": _list,
            "show": _show,
            "delete": _delete,
            "approve": _decide,
            "deny": _decide,
            "prune": _prune,
        }
        result: int = actions[args.action](store, args)
        return result
    except CheckpointError as error:
        print(f"smol runs: {escape_line(str(error))}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _when(timestamp: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")
    except (ValueError, OverflowError, OSError):  # a time no calendar holds: shown as it is
        return escape_line(repr(timestamp))


def _cell(text: str, width: int) -> str:
    shown = escape_line(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def _list(store: SQLiteStore, args: argparse.Namespace) -> int:
    records = store.list()
    if args.json:
        json.dump([record.__dict__ for record in records], sys.stdout, indent=2)
        print()
        return 0
    if not records:
        print(f"no runs in {escape_line(str(store.path))}")
        return 0
    print_table(_LIST_HEADER, [_list_row(record) for record in records])
    return 0


_LIST_HEADER = ("RUN", "STATUS", "STEP", "UPDATED", "SIZE", "AGENT", "TASK")


def _list_row(record: RunRecord) -> list[str]:
    """One run as the table shows it: every field from the store escaped, the long ones cut
    (and marked so; `smol runs show RUN` shows all of a run)."""
    return [
        escape_line(record.run_id),
        _cell(record.status, 24),
        str(record.step),
        _when(record.updated_at),
        f"{record.size:,} B",
        _cell(record.agent, 30),
        _cell(" ".join(record.task.split()), 60),
    ]


def _show(store: SQLiteStore, args: argparse.Namespace) -> int:
    from smol_core.durable.approvals import pending_approval
    from smol_core.durable.runner import read_checkpoint

    state = read_checkpoint(store, args.run_id)
    if state is None:
        raise RunNotFoundError(f"no run {args.run_id!r} in {store.path}")
    waiting = pending_approval(store, args.run_id)  # its own call, or its team member's
    summary: dict[str, Any] = {
        "run_id": state.run_id,
        "status": state.status,
        "agent": state.agent,
        "task": state.task,
        "next_step": state.step_number,
        "max_steps": state.max_steps,
        "steps": [_safely(_step_line, step) for step in state.steps],
        "variables": {name: type(value).__name__ for name, value in state.namespace.items()},
        "not_saved": dict(state.uncaptured),
        "model_replies_pending": len(state.pending_replies),
        "waiting_for_approval": None if waiting is None else _waiting(waiting),
        "final_answer": None if state.final_answer is None else _short(_safely(repr, state.final_answer)),
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2, default=_safely_text)
        print()
        return 0
    for key, value in summary.items():
        if key == "steps":
            print("steps:")
            for line in value:
                print(f"  {escape_line(line)}")
        elif key == "waiting_for_approval" and value is not None:
            _print_waiting(state.run_id, value)
        elif isinstance(value, dict):
            shown = ", ".join(f"{name} ({kind})" for name, kind in value.items()) or "-"
            print(f"{key}: {escape_line(shown)}")
        else:
            print(f"{key}: {escape_line(str(value))}")
    return 0


def _waiting(entry: dict[str, Any]) -> dict[str, Any]:
    """The call a run waits on, for `show`: whole (`call`), and the key a decision names it by."""
    tool = str(entry.get("tool", "a tool"))
    return {
        "tool": tool,
        "run_id": str(entry.get("run_id", "")),
        "approval_key": str(entry.get("approval_key", "")),
        "call": describe_call(tool, entry.get("arguments")),
        "arguments": encode(entry.get("arguments")),
    }


def _print_waiting(run_id: str, waiting: dict[str, Any]) -> None:
    """The whole call (never cut: it is what a person approves), then the commands that decide it."""
    run, key = escape_line(run_id), escape_line(waiting["approval_key"])
    whose = (
        ""
        if waiting["run_id"] in ("", run_id)
        else f" (in its team member's run {escape_line(waiting['run_id'])})"
    )
    print(f"waiting_for_approval: the call of key {key}{whose}:")
    for line in waiting["call"].splitlines():
        print(f"  {line}")
    print(f"  approve: smol runs approve {run} {key}")
    print(f"  deny:    smol runs deny {run} {key} --note WHY")


def _safely(render: Any, value: Any) -> str:
    """`render(value)`, or a line that says it could not be shown: a viewer never stops on a value."""
    try:
        return str(render(value))
    except Exception as error:
        return f"<could not be shown: {type(error).__name__}>"


def _safely_text(value: Any) -> str:
    return _safely(repr, value)


def _decide(store: SQLiteStore, args: argparse.Namespace) -> int:
    from smol_core.durable.approvals import approve, deny

    decided = (approve if args.action == "approve" else deny)(args.run_id, args.key, args.note, store)
    verb = "approved" if args.action == "approve" else "denied"
    shown, cut = short_call(str(decided.get("tool", "a tool")), decided.get("arguments"))
    print(
        f"{verb}: {shown}{' (shortened)' if cut else ''} (key {escape_line(args.key)}); "
        f"`smol runs resume {escape_line(args.run_id)} ...` goes on"
    )
    return 0


def _step_line(step: Any) -> str:
    kind = type(step).__name__
    if kind == "ActionStep":
        what = step.code_action or step.model_output or ""
        outcome = f"error: {step.error}" if step.error is not None else (step.observations or "")
        return f"{step.step_number}: {_short(what)} -> {_short(outcome)}"
    if kind == "PlanningStep":
        return f"plan: {_short(step.plan)}"
    if kind == "TaskStep":
        return f"task: {_short(step.task)}"
    return kind


def _short(text: Any) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 3] + "..."


def _prune(store: SQLiteStore, args: argparse.Namespace) -> int:
    try:
        policy = RetentionPolicy(
            older_than=None if args.older_than is None else parse_duration(args.older_than),
            keep=args.keep,
            max_bytes=None if args.max_size is None else parse_size(args.max_size),
            statuses=tuple(args.status),
        )
    except ValueError as error:
        print(f"smol runs prune: {escape_line(str(error))}", file=sys.stderr)
        return 2
    report = prune_runs(store, policy, dry_run=args.dry_run)
    verb = "would delete" if report.dry_run else "deleted"
    if report.removed:
        print_table(_LIST_HEADER, [_list_row(record) for record in report.removed])
    print(f"{verb} {len(report.removed)} run(s), {report.removed_bytes:,} B")
    for record in report.live:
        print(f"kept {escape_line(record.run_id)}: it is being driven now (its lease is live)")
    return 0


def _delete(store: SQLiteStore, args: argparse.Namespace) -> int:
    if not store.delete(args.run_id):
        raise RunNotFoundError(f"no run {args.run_id!r} in {store.path}")
    print(f"deleted run {escape_line(args.run_id)}")
    return 0
