"""Durable teams under random SIGKILLs: N two-agent team runs, each with agents killed at random
moments by the host's side, every killed agent started again by its team to resume its run.

The task (as tests/teams/test_durable_team.py): agent 0 sends agent 1 "21"; agent 1 takes it as its
task, sets `n = 21` and answers "ready"; agent 0 then sends the factor "2"; agent 1 multiplies and
sends 42 back, which agent 0 gives as the team's answer. A message handed over twice shows in the
answer (a second "ready" read as the answer, or "21" read as the factor: 441); a lost one leaves an
agent waiting until the team's deadline. Each model reply takes 20 ms, so kills land inside model
calls, code actions, tool calls and receives alike. In each run, one or two kills, 0-150 ms apart,
each of a random agent still running (a run takes about 0.12 s uninterrupted).

Printed: runs that answered 42, kills and restarts, model calls made more than once (at most one
per kill: a reply in flight when the process died is lost with it), and the time per run.

    python bench/durable_team_kills.py [RUNS] [--transport local|redis]   # default 100 runs, local
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from smol_core.durable import SQLiteStore
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ResumableScript

sys.path.insert(0, str(Path(__file__).parent))
from figures import figure  # noqa: E402


def code(body: str) -> str:
    return f"Thought: go on.\n<code>\n{body}\n</code>"


ASKER = [
    code('send_message(target_id=1, message="21")'),
    code('ready = receive_messages(timeout=60)\nsend_message(target_id=1, message="2")'),
    code('replies = receive_messages(timeout=60)\nfinal_answer(replies[0]["message"])'),
]
DOUBLER = [
    code('n = 21\nsend_message(target_id=0, message="ready")'),
    code(
        'factor = receive_messages(timeout=60)\nproduct = n * int(factor[0]["message"])\n'
        "send_message(target_id=0, message=str(product))\nfinal_answer(product)"
    ),
]
PAUSE = 0.02


def one_run(
    folder: Path, number: int, transport: str, transport_kwargs: dict[str, object], rng: random.Random
) -> dict[str, object]:
    store = SQLiteStore(folder / "runs.sqlite3")
    logs = [folder / f"agent-{n}.calls" for n in range(2)]
    settings = [
        AgentSettings(
            model=FunctionModel(ResumableScript(script, log, pause_seconds=PAUSE)),
            max_steps=5,
            verbosity_level=-1,
            checkpoint_store=store,
        )
        for script, log in zip((ASKER, DOUBLER), logs, strict=True)
    ]
    team = Team(
        settings, transport=transport, transport_kwargs=transport_kwargs, deadline_seconds=90, max_restarts=4
    )
    kills: list[int] = []
    moments: list[str] = []
    running = threading.Event()
    running.set()
    start = time.perf_counter()

    def killer() -> None:
        for _ in range(rng.choice((1, 2))):
            time.sleep(rng.uniform(0.0, 0.15))
            if not running.is_set():
                return
            agent = rng.randrange(2)
            try:
                process = team.processes[agent]
                if process.pid and process.exitcode is None:
                    os.kill(process.pid, signal.SIGKILL)
                    kills.append(agent)
                    moments.append(f"agent {agent} at {time.perf_counter() - start:.3f} s")
            except (IndexError, ProcessLookupError):
                pass

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    result = team.run("Double 21 with your peer", run_id=f"kills-{number}")
    seconds = time.perf_counter() - start
    running.clear()
    thread.join()
    repeated = sum(
        count - 1
        for log in logs
        if log.exists()
        for count in Counter(log.read_text().split()).values()
        if count > 1
    )
    return {
        "ok": result.output == "42",
        "state": result.state,
        "output": result.output,
        "kills": len(kills),
        "restarts": sum(outcome.restarts for outcome in result.agents.values()),
        "repeated": repeated,
        "seconds": seconds,
        "errors": [outcome.error for outcome in result.agents.values() if outcome.error],
        "detail": "; ".join(moments)
        + " | "
        + ", ".join(
            f"agent {n}: {o.state}, {o.steps} steps, {o.restarts} restarts, exit {o.exitcode}"
            for n, o in result.agents.items()
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=100)
    parser.add_argument("--transport", default="local", choices=("local", "redis"))
    parser.add_argument("--url", default=None, help="the Redis server (with --transport redis)")
    args = parser.parse_args()
    kwargs: dict[str, object] = {}
    if args.transport == "redis":
        kwargs = {"url": args.url or "redis://127.0.0.1:6379/0", "claim_idle_seconds": 0.5}
    rng = random.Random(int(os.environ.get("SMOL_KILLS_SEED", "29")))
    rows = []
    for number in range(args.runs):
        folder = Path(tempfile.mkdtemp(prefix="smol-team-kills-"))
        try:
            row = one_run(folder, number, args.transport, kwargs, rng)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        rows.append(row)
        if not row["ok"]:
            print(
                f"run {number}: {row['state']} {row['output']!r}: {row['detail']}; {row['errors']}",
                flush=True,
            )
    ok = sum(1 for row in rows if row["ok"])
    kills = sum(int(row["kills"]) for row in rows)  # type: ignore[call-overload]
    print(
        f"{args.transport}: {ok} of {len(rows)} runs answered 42; {kills} kills, "
        f"{sum(int(row['restarts']) for row in rows)} restarts; "  # type: ignore[call-overload]
        f"model calls made twice: {sum(int(row['repeated']) for row in rows)}; "  # type: ignore[call-overload]
        f"median {statistics.median(float(row['seconds']) for row in rows):.2f} s per run"  # type: ignore[arg-type]
    )
    figure(
        f"durable team under kills ({args.transport}): runs with the right answer",
        100.0 * ok / len(rows),
        "%",
        goal=100.0,
        higher_is_better=True,
    )


if __name__ == "__main__":
    main()
