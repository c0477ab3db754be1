"""Durable teams over Redis whose host is SIGKILLed at a random moment, then taken over by a new
host (`Team.resume`): N two-agent team runs, each answered right or not.

The team and task are bench/durable_team_kills.py's (agent 0 sends "21", agent 1 answers "ready",
agent 0 sends the factor "2", agent 1 multiplies and sends 42 back; 20 ms per model reply). Each run's
host is a process of its own; once it has saved the team's record (before any agent starts), it is
killed after its agents made a random number of model calls (0 to all 5) and a random 0-50 ms more,
so kills land while agents start, think, send, wait and answer, however loaded the machine is. Only the host is killed: its agents stop as
they do when their host dies. This process then waits for them to be gone and resumes the team.

A message handed over twice shows in the answer (a second "ready" read as the answer, or "21" read
as the factor: 441); a lost one leaves an agent waiting until the deadline (120 s): neither is 42.
Printed: runs that answered 42, how many kills landed before the host's own answer (the others found
the team done: nothing to resume), model calls made more than once (at most one per agent per kill:
a reply in flight when an agent stopped is asked again), and the time per run.

    python bench/durable_team_host_kills.py [RUNS] [--url redis://...]   # default 50 runs; a private
                                                                        # redis-server when no --url
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from smol_core.durable import SQLiteStore
from smol_core.durable.errors import RunFinishedError
from smol_core.durable.runner import read_checkpoint
from smol_core.teams import AgentSettings, Team
from smol_core.testing import FunctionModel, ResumableScript

sys.path.insert(0, str(Path(__file__).parent))
from durable_team_kills import ASKER, DOUBLER, PAUSE  # noqa: E402
from figures import figure  # noqa: E402

RUN_ID = "host-kills"
TASK = "Double 21 with your peer"
TEAM_CALLS = len(ASKER) + len(DOUBLER)
"""The model calls of a run without kills: the host is killed after a random number of them (0: while
its agents start), and a random 0-50 ms more, so kills land in every phase however slow the machine."""
KILL_JITTER_SECONDS = 0.05
DEADLINE_SECONDS = 120.0
"""Long, for a loaded machine: a run that reaches it lost a message (or the machine is that slow)."""


def _team(folder: Path, url: str) -> Team:
    store = SQLiteStore(folder / "runs.sqlite3")
    settings = [
        AgentSettings(
            model=FunctionModel(ResumableScript(script, folder / f"agent-{n}.calls", pause_seconds=PAUSE)),
            max_steps=5,
            verbosity_level=-1,
            checkpoint_store=store,
        )
        for n, script in enumerate((ASKER, DOUBLER))
    ]
    kwargs = {"url": url, "claim_idle_seconds": 0.05}
    return Team(
        settings,
        transport="redis",
        transport_kwargs=kwargs,
        deadline_seconds=DEADLINE_SECONDS,
        max_restarts=4,
    )


def host(folder: Path, url: str) -> None:
    """The first host: run the team, and write its answer where the bench finds it (if it lives)."""
    result = _team(folder, url).run(TASK, run_id=RUN_ID)
    (folder / "answer.json").write_text(json.dumps({"output": result.output, "state": result.state}))


def _calls_made(folder: Path) -> int:
    """The model calls the team's agents made so far (each logs its calls)."""
    return sum(len(log.read_text().split()) for log in folder.glob("agent-*.calls"))


def _children(pids: set[int]) -> set[int]:
    """The live processes whose parent is one of `pids`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) in pids and fields[0] != "Z":
                    found.add(int(entry.name))
    return found


def _tree(pids: set[int]) -> set[int]:
    """`pids` and all their descendants, alive now."""
    seen = {pid for pid in pids if _alive(pid)}
    frontier = set(pids)
    while frontier:
        frontier = _children(frontier) - seen
        seen |= frontier
    return seen


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait(condition: object, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def one_run(folder: Path, url: str, rng: random.Random) -> dict[str, object]:
    start = time.perf_counter()
    store = SQLiteStore(folder / "runs.sqlite3")
    first = subprocess.Popen(
        [sys.executable, __file__, "--host", str(folder), "--url", url], stderr=subprocess.DEVNULL
    )
    recorded = _wait(lambda: first.poll() is not None or store.load(RUN_ID) is not None, 300)
    after_calls = rng.randrange(TEAM_CALLS + 1)
    _wait(lambda: first.poll() is not None or _calls_made(folder) >= after_calls, 300)
    time.sleep(rng.uniform(0.0, KILL_JITTER_SECONDS))
    # the host's fork server, resource tracker and agents (forked by the server: its children),
    # which a new host must not overlap: an agent still waiting for its task holds no run yet
    helpers = _children({first.pid})
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    answered = folder / "answer.json"
    killed_in_time = recorded and not answered.exists()
    agents: list[str] = []
    if killed_in_time:
        _wait(lambda: not _tree(helpers), 60)
        try:
            result = _team(folder, url).resume(RUN_ID)
        except RunFinishedError:  # killed after its team finished, before it wrote the answer down
            killed_in_time = False
            saved = read_checkpoint(store, f"{RUN_ID}.agent-0")
            output, state = (None if saved is None else str(saved.final_answer)), "finished"
        else:
            output, state = result.output, result.state
            agents = [f"{o.state}: {o.error}" for o in result.agents.values()]
    elif answered.exists():
        done = json.loads(answered.read_text())
        output, state = done["output"], done["state"]
    else:
        output, state = None, "the host failed before it saved the team's record"
    repeated = sum(
        count - 1
        for log in folder.glob("agent-*.calls")
        for count in Counter(log.read_text().split()).values()
        if count > 1
    )
    return {
        "ok": output == "42",
        "state": state,
        "output": output,
        "resumed": killed_in_time,
        "repeated": repeated,
        "seconds": time.perf_counter() - start,
        "agents": agents,
        "after_calls": after_calls,
    }


@contextlib.contextmanager
def _redis(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url
        return
    from smol_core.testing.processes import redis_server

    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not installed: run scripts/setup.d/50-redis.sh, or give --url")
    with (
        tempfile.TemporaryDirectory(prefix="smol-bench-redis-") as folder,
        redis_server(binary, Path(folder)) as made,
    ):
        yield made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=50)
    parser.add_argument("--url", default=None, help="the Redis server (default: a private one)")
    parser.add_argument("--host", default=None, help=argparse.SUPPRESS)  # a run's first host
    args = parser.parse_args()
    if args.host is not None:
        host(Path(args.host), args.url)
        return
    rng = random.Random(int(os.environ.get("SMOL_KILLS_SEED", "39")))
    rows = []
    with _redis(args.url) as url:
        for number in range(args.runs):
            folder = Path(tempfile.mkdtemp(prefix="smol-host-kills-"))
            row = {"ok": False}
            try:
                row = one_run(folder, url, rng)
            finally:
                if row["ok"]:
                    shutil.rmtree(folder, ignore_errors=True)
                else:  # kept for a look: its agents' checkpoints and model calls
                    row["folder"] = str(folder)
            rows.append(row)
            print(f"run {number}: {json.dumps(row)}", flush=True)
    report(rows)


def report(rows: list[dict[str, object]]) -> None:
    ok = sum(1 for row in rows if row["ok"])
    resumed = [row for row in rows if row["resumed"]]
    print(
        f"redis: {ok} of {len(rows)} runs answered 42; the host was killed before its answer in "
        f"{len(resumed)} (each resumed by a new host: {sum(1 for row in resumed if row['ok'])} answered 42); "
        f"model calls made twice: {sum(int(row['repeated']) for row in rows)}; "  # type: ignore[call-overload]
        f"median {statistics.median(float(row['seconds']) for row in rows):.2f} s per run"  # type: ignore[arg-type]
    )
    figure(
        "durable team under host kills (redis): runs with the right answer",
        100.0 * ok / len(rows),
        "%",
        goal=100.0,
        higher_is_better=True,
    )


if __name__ == "__main__":
    main()
