"""Durable runs on Temporal under random SIGKILLs of the worker: N runs of `durable_kills`' scripted
task (variables over several steps, a plan, a pure tool, a side-effecting tool), each a Temporal
workflow whose steps run on a worker process of its own that is killed at random moments and
replaced until the run finishes; compared with one uninterrupted run in one process.

Each run gets its own task queue and worker (`python -m smol_durable_temporal`), killed a random
0-400 ms after it first calls the model; a new worker takes over once Temporal's heartbeat timeout
(HEARTBEAT_SECONDS) gives the step's activity to it, and resumes from the step's last heartbeat.
Printed as `durable_kills.py` prints for SQLite, from a real `temporal server start-dev` started and
stopped here (smol_durable_temporal.testing).

Scenarios (`--scenario`, as `durable_kills.py`'s): `code`, `tool-calling` (without additional_args:
a workflow input carries none), `members` (a team member makes the side effect, in a durable sub-run
the worker resumes) and `approval` (each run pauses on Temporal; this script, as the person, reads
the waiting call and approves it by its key while the workers are being killed).

    hatch run plugin-temporal:python bench/durable_kills_temporal.py [RUNS] [PARALLEL] [--scenario NAME]
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from durable_kills import make_agent, take_scenario  # noqa: E402

TASK = "Compute and report the total."
HEARTBEAT_SECONDS = 1.5
MAX_KILLS = 6
RUN_SECONDS = 300.0


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def kills_agent() -> object:
    """The agent each run's worker serves as `kills` (`--agent kills=durable_kills_temporal:kills_agent`),
    logging to the run's folder (SMOL_KILLS_FOLDER, set by `_worker`)."""
    return make_agent(os.environ["SMOL_KILLS_FOLDER"], None, os.environ.get("SMOL_KILLS_SCENARIO", "code"))


def _worker(address: str, queue: str, folder: Path, scenario: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
        "SMOL_KILLS_FOLDER": str(folder),
        "SMOL_KILLS_SCENARIO": scenario,
    }
    command = [sys.executable, "-m", "smol_durable_temporal", "--address", address, "--task-queue", queue]
    command += ["--agent", "kills=durable_kills_temporal:kills_agent"]
    with (folder / "workers.log").open("ab") as log:
        return subprocess.Popen(
            command,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _stop(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        worker.kill()
    worker.wait()


def _view(answer: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    return {"answer": str(answer), "namespace": {k: repr(v) for k, v in sorted(namespace.items())}}


def plain_run(folder: Path, scenario: str) -> dict[str, Any]:
    """The uninterrupted run, in this process, its end read back from a SQLite checkpoint (the same
    decoding as a Temporal run's end); it asks nobody for approval."""
    from smol_core.durable import SQLiteStore
    from smol_core.durable.runner import read_checkpoint

    store = str(folder / "runs.sqlite3")
    agent: Any = make_agent(str(folder), store, scenario)
    if "send_report" in agent.tools:
        agent.tools["send_report"].requires_approval = False
    with agent:
        agent.run(TASK, run_id="plain")
    end = read_checkpoint(SQLiteStore(store), "plain")
    assert end is not None
    return _view(end.final_answer, end.namespace)


async def _approve_each_pause(client: Any, run_id: str) -> None:
    """The person: each call the run waits on, read and approved by its key."""
    from smol_durable_temporal import approve_on_temporal, pending_on_temporal

    while True:
        waiting = await pending_on_temporal(client, run_id)
        if waiting is not None:
            try:
                await approve_on_temporal(client, run_id, waiting["approval_key"], note="ok")
            except Exception:  # noqa: BLE001 - decided meanwhile, or the run moved on: read it again
                pass
        await asyncio.sleep(0.05)


async def one_run(client: Any, address: str, seed: int, root: Path, scenario: str) -> dict[str, Any]:
    from smol_durable_temporal import run_result, start_on_temporal

    folder = root / f"run-{seed}"
    folder.mkdir()
    chance = random.Random(seed)
    queue = f"kills-{seed}-{uuid.uuid4().hex[:8]}"
    worker = _worker(address, queue, folder, scenario)
    kills = 0
    person = None
    try:
        handle = await start_on_temporal(
            "kills",
            TASK,
            client=client,
            task_queue=queue,
            workflow_id=queue,
            heartbeat_timeout_s=HEARTBEAT_SECONDS,
        )
        ended = asyncio.ensure_future(run_result(handle))
        if scenario == "approval":
            person = asyncio.ensure_future(_approve_each_pause(client, queue))
        calls = folder / "calls.log"
        while kills < MAX_KILLS and not ended.done():
            before = len(_lines(calls))
            while len(_lines(calls)) == before and not ended.done():
                await asyncio.sleep(0.005)
            await asyncio.sleep(chance.uniform(0.0, 0.4))
            if ended.done():
                break
            _stop(worker)
            kills += 1
            worker = _worker(address, queue, folder, scenario)
        end = await asyncio.wait_for(ended, RUN_SECONDS)
    except Exception as error:  # noqa: BLE001 - a benchmark reports every failure and goes on
        return {"error": f"{type(error).__name__}: {error}"[:300], "kills": kills}
    finally:
        _stop(worker)
        if person is not None:
            person.cancel()
    made = Counter(_lines(folder / "calls.log"))
    errors = [str(getattr(step, "error", "") or "") for step in end.steps]
    return {
        "result": _view(end.final_answer, end.namespace),
        "kills": kills,
        "model_repeats": sum(made.values()) - len(made),
        "reports": len(_lines(folder / "reports.log")),
        "report_interrupted": any("ToolCallInterruptedError" in e and "send_report" in e for e in errors),
    }


async def run_all(address: str, root: Path, runs: int, parallel: int, scenario: str) -> list[dict[str, Any]]:
    from smol_durable_temporal import connect

    client = await connect(address)  # SMOL_TEMPORAL_KEY / SMOL_TEMPORAL_BLOBS, as the workers read them
    gate = asyncio.Semaphore(parallel)

    async def gated(seed: int) -> dict[str, Any]:
        async with gate:
            return await one_run(client, address, seed, root, scenario)

    return list(await asyncio.gather(*(gated(seed) for seed in range(runs))))


def main(runs: int, parallel: int, scenario: str) -> None:
    from smol_durable_temporal.testing import dev_server

    with tempfile.TemporaryDirectory(prefix="smol-kills-temporal-") as tmp:
        root = Path(tmp)
        (root / "plain").mkdir()
        expected = plain_run(root / "plain", scenario)
        with dev_server(root / "server.log") as address:
            started = time.perf_counter()
            outcomes = asyncio.run(run_all(address, root, runs, parallel, scenario))
            elapsed = time.perf_counter() - started
    errors = [o for o in outcomes if "error" in o]
    done = [o for o in outcomes if "error" not in o]
    same = [o for o in done if o["result"] == expected]
    interrupted = [o for o in done if o["result"] != expected and o["report_interrupted"]]
    print(
        f"scenario: {scenario}; runs on Temporal: {runs} ({parallel} at a time, {elapsed:.0f} s), worker kills: {sum(o['kills'] for o in outcomes)}"
    )
    print(f"finished with the uninterrupted answer and namespace: {len(same)} of {runs}")
    print(f"a kill inside the side-effecting call (reported, not re-run): {len(interrupted)}")
    print(
        f"   of which the call had taken effect before the kill: {sum(1 for o in interrupted if o['reports'])}"
    )
    print(f"failed or never finished: {len(errors)}")
    for error in errors[:3]:
        print("   ", error["error"])
    print(f"model calls made twice: {sum(o['model_repeats'] for o in done)} (at most one per kill)")
    print(f"side-effecting calls made twice: {sum(1 for o in done if o['reports'] > 1)}")
    other = [o for o in done if o["result"] != expected and not o["report_interrupted"]]
    if other:
        print(f"DIFFERENT RESULTS: {len(other)}; first: {other[0]['result']} (expected {expected})")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = take_scenario(arguments)
    main(int(arguments[0]) if arguments else 200, int(arguments[1]) if len(arguments) > 1 else 4, chosen)
