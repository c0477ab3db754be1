"""`smol runs list|show|resume|delete`: the durable runs in a store, from the command line.

Why the output is escaped: a checkpoint holds what the model and the sandbox wrote (steps,
observations, variables), and none of it may reach the terminal as control sequences. Every error
(a store that cannot be opened, a checkpoint that cannot be read) is one line on stderr, status 2.
`resume` takes `smolagent`'s options after the run id: the agent is configuration (model, tools,
executor), given again on the command line, as security settings only ever come from there.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from typing import Any

from smol_core.durable.errors import CheckpointError, RunNotFoundError
from smol_core.durable.sqlite_store import SQLiteStore
from smol_core.terminal import escape_controls, escape_line

_PREVIEW = 160


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", default=None, help="The SQLite store (default: the user's runs.sqlite3).")
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="list|show|resume|approve|deny|delete"
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
        decide.add_argument("--note", default=None, help="Why: the model reads it with a denial.")
    delete = actions.add_parser("delete", help="Forget a run and its checkpoint.")
    delete.add_argument("run_id")


def run(args: argparse.Namespace) -> int:
    store = SQLiteStore(args.store) if args.store else SQLiteStore()
    try:
        if args.action == "resume":
            from smol_core.cli.smolagent import main as smolagent

            return smolagent(["--resume", args.run_id, "--store", str(store.path), *args.options])
        actions = {"list": _list, "show": _show, "delete": _delete, "approve": _decide, "deny": _decide}
        result: int = actions[args.action](store, args)
        return result
    except CheckpointError as error:
        print(f"smol runs: {escape_line(str(error))}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _when(timestamp: float) -> str:
    return _dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _list(store: SQLiteStore, args: argparse.Namespace) -> int:
    records = store.list()
    if args.json:
        json.dump([record.__dict__ for record in records], sys.stdout, indent=2)
        print()
        return 0
    if not records:
        print(f"no runs in {store.path}")
        return 0
    for record in records:
        task = escape_line(record.task.strip().replace("\n", " "))[:60]
        print(
            f"{escape_line(record.run_id)}  {record.status:<8}  step {record.step:<4}  "
            f"{_when(record.updated_at)}  {record.size:>9,} B  {escape_line(record.agent)}  {task}"
        )
    return 0


def _show(store: SQLiteStore, args: argparse.Namespace) -> int:
    from smol_core.durable.runner import read_checkpoint

    state = read_checkpoint(store, args.run_id)
    if state is None:
        raise RunNotFoundError(f"no run {args.run_id!r} in {store.path}")
    summary: dict[str, Any] = {
        "run_id": state.run_id,
        "status": state.status,
        "agent": state.agent,
        "task": state.task,
        "next_step": state.step_number,
        "max_steps": state.max_steps,
        "steps": [_step_line(step) for step in state.steps],
        "variables": {name: type(value).__name__ for name, value in state.namespace.items()},
        "not_saved": dict(state.uncaptured),
        "model_replies_pending": len(state.pending_replies),
        "waiting_for_approval": next(
            (
                e.get("call", e.get("tool"))
                for e in state.tool_ledger
                if e.get("status") == "awaiting_approval"
            ),
            None,
        ),
        "final_answer": None if state.final_answer is None else repr(state.final_answer)[:_PREVIEW],
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        print()
        return 0
    for key, value in summary.items():
        if key == "steps":
            print("steps:")
            for line in value:
                print(f"  {escape_line(line)}")
        elif isinstance(value, dict):
            shown = ", ".join(f"{name} ({kind})" for name, kind in value.items()) or "-"
            print(f"{key}: {escape_line(shown)}")
        else:
            print(f"{key}: {escape_controls(str(value))}")
    return 0


def _decide(store: SQLiteStore, args: argparse.Namespace) -> int:
    from smol_core.durable.approvals import approve, deny

    decided = (approve if args.action == "approve" else deny)(args.run_id, args.note, store)
    verb = "approved" if args.action == "approve" else "denied"
    call = escape_line(str(decided.get("call", decided.get("tool"))))
    print(f"{verb}: {call}; `smol runs resume {escape_line(args.run_id)} ...` goes on")
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


def _delete(store: SQLiteStore, args: argparse.Namespace) -> int:
    if not store.delete(args.run_id):
        raise RunNotFoundError(f"no run {args.run_id!r} in {store.path}")
    print(f"deleted run {escape_line(args.run_id)}")
    return 0
