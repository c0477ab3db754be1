"""Durable runs under random SIGKILLs: N scripted runs, each killed at random moments and resumed in
a new process until it finishes, compared with one uninterrupted run.

The run (#29's "done when"): a CodeAgent with variables built over several steps, a plan (updated
at step 4: planning_interval=3), a pure tool (`double`, safe to repeat) and a side-effecting one
(`send_report`, not idempotent: it appends to a file). The model is scripted by what it reads (a repeated call gets the
same reply) and takes 30 ms per call, so kills land inside model calls, code actions and tool calls
alike. Each process is killed after a random 0-400 ms from the moment it first calls the model.

Printed: runs that finished with the uninterrupted run's answer and namespace, kills, model calls
made more than once (at most one per kill can be: a reply in flight when the process died is lost
with it), side-effecting calls made more than once (must be 0), and runs where a kill landed inside
the side-effecting call (reported to the model on resume as interrupted, never re-run, so such a
run's namespace differs by design, and is counted apart).

Scenarios (`--scenario`, `code` by default):
- `code`: the run above;
- `tool-calling`: a ToolCallingAgent that doubles, then sends a report whose text it names from its
  `additional_args` (a resumed run must substitute the same value, or its call differs);
- `members`: a manager CodeAgent whose team member (a CodeAgent of its own) sends the report, so a
  kill lands in the member's steps as often as in the manager's;
- `approval`: the `code` run with `send_report` needing a person's approval: each run pauses, the
  harness approves the call it was shown (by its key), and resumes; kills land before and after.
Side-effecting calls made twice must be 0 in every scenario.

    python bench/durable_kills.py [RUNS] [PARALLEL] [--scenario NAME]   # default 200 runs, 2 at a time
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def code(body: str) -> str:
    return f"Thought: go on.\n<code>\n{body}\n</code>"


SCRIPT = [  # planning at steps 1 and 4 (planning_interval=3); an action's index is the number of
    # assistant messages (plans and actions) it reads
    "1. set up 2. compute 3. report and answer<end_plan>",
    code("base = 7\nitems = [1, 2, 3]\nlabel = 'total'\nprint(base)"),
    code("pairs = {'a': (1, 2), 'b': {3, 4}}\ncount = len(items) + base"),
    code("doubled = double(count)\nprint(doubled)"),
    "Updated: report, then answer<end_plan>",
    code("receipt = send_report(f'{label}={doubled + sum(items)}')\nprint(receipt)"),
    code("final_answer(f'{label}={doubled + sum(items)}')"),
]
UPDATED_PLAN = 4


TOOL_CALLING_SCRIPT = [  # the arguments name `report_text`, a value handed over in additional_args
    {"name": "double", "arguments": {"x": 12}, "id": "call_1"},
    {"name": "send_report", "arguments": {"text": "report_text"}, "id": "call_2"},
    {"name": "final_answer", "arguments": {"answer": "total=31"}, "id": "call_3"},
]
MANAGER_SCRIPT = [
    code("count = double(12)\nprint(count)"),
    code("receipt = reporter(task=f'send the report total={count + 7}')\nprint(receipt)"),
    code("final_answer(f'total={count + 7}:' + str('sent' in receipt))"),
]
MEMBER_SCRIPT = [code("r = send_report('total=31')\nprint(r)"), code("final_answer(r)")]
SCENARIOS = ("code", "tool-calling", "members", "approval")


def make_agent(folder: str, store: str | None = None, scenario: str = "code") -> object:
    """The benchmark's agent, its model and tools logging to `folder` (a factory: the Temporal
    variant's workers serve it as `kills`), checkpointing to the SQLite `store`."""
    from smol_core import CodeAgent, ToolCallingAgent, tool
    from smol_core.durable import SQLiteStore
    from smol_core.messages import ChatMessage, MessageRole
    from smol_core.testing import FunctionModel

    calls, reports = Path(folder, "calls.log"), Path(folder, "reports.log")

    def scripted(script: list[Any], name: str, planned: bool = False) -> FunctionModel:
        def reply(messages: list[ChatMessage], **call: object) -> Any:
            if planned and "<end_plan>" in (call.get("stop_sequences") or []):  # type: ignore[operator]
                index = UPDATED_PLAN if any("Observation" in m.text for m in messages) else 0
            else:
                index = sum(1 for m in messages if m.role == MessageRole.ASSISTANT)
            time.sleep(0.015)
            with calls.open("a") as log:
                log.write(f"{name}{index}\n")
            time.sleep(0.015)
            return script[index]

        return FunctionModel(reply)

    @tool
    def double(x: int) -> int:
        """Doubles a number.

        Args:
            x: the number.
        """
        time.sleep(0.02)
        return 2 * x

    double.idempotent = True

    @tool
    def send_report(text: str) -> str:
        """Sends a report (a side effect: it must happen once).

        Args:
            text: the report.
        """
        with reports.open("a") as log:
            log.write(text + "\n")
        return "sent"

    send_report.requires_approval = scenario == "approval"
    checkpoints = None if store is None else SQLiteStore(store)
    if scenario == "tool-calling":
        return ToolCallingAgent(
            tools=[double, send_report],
            model=scripted(TOOL_CALLING_SCRIPT, "t"),
            verbosity_level=0,
            checkpoint_store=checkpoints,
        )
    if scenario == "members":
        reporter = CodeAgent(
            tools=[send_report],
            model=scripted(MEMBER_SCRIPT, "r"),
            name="reporter",
            description="Sends reports.",
            verbosity_level=0,
        )
        return CodeAgent(
            tools=[double],
            managed_agents=[reporter],
            model=scripted(MANAGER_SCRIPT, "m"),
            verbosity_level=0,
            checkpoint_store=checkpoints,
        )
    return CodeAgent(
        tools=[double, send_report],
        model=scripted(SCRIPT, "c", planned=True),
        planning_interval=3,
        verbosity_level=0,
        checkpoint_store=checkpoints,
    )


def child(store: str, mode: str, folder: str, scenario: str = "code") -> None:
    """One process of a run: `run`, `resume` or `plain` (no store); writes result.json at the end,
    or paused.json where the run waits for a person's approval."""
    from smol_core.durable import ApprovalPendingError

    agent: Any = make_agent(folder, None if mode == "plain" else store, scenario)
    if mode == "plain" and scenario == "approval":
        agent.tools["send_report"].requires_approval = False  # the uninterrupted run asks nobody
    extra = {"additional_args": {"report_text": "total=31"}} if scenario == "tool-calling" else {}
    with agent:
        try:
            answer = (
                agent.resume("job")
                if mode == "resume"
                else agent.run(
                    "Compute and report the total.", run_id=None if mode == "plain" else "job", **extra
                )
            )
        except ApprovalPendingError:
            Path(folder, "paused.json").write_text("{}")
            return
        executor = getattr(agent, "python_executor", None) if scenario != "tool-calling" else None
        namespace = {k: repr(v) for k, v in sorted(executor.namespace().items())} if executor else {}
    Path(folder, "result.json").write_text(json.dumps({"answer": str(answer), "namespace": namespace}))


def _spawn(folder: Path, mode: str, scenario: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, __file__, "--child", str(folder / "runs.sqlite3"), mode, str(folder), scenario],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _finished_result(folder: Path) -> dict[str, object] | None:
    from smol_core.durable import SQLiteStore, checkpoint

    stored = SQLiteStore(folder / "runs.sqlite3").load("job")
    if stored is None or stored.status != "finished":
        return None
    state = checkpoint.load(stored.data)
    return {
        "answer": str(state.final_answer),
        "namespace": {k: repr(v) for k, v in sorted(state.namespace.items())},
    }


def _approve_waiting_call(folder: Path) -> None:
    """What the person does: read the call the run waits on, and approve that call (by its key)."""
    import inspect

    from smol_core.durable import SQLiteStore, approve, pending_approval

    store = SQLiteStore(folder / "runs.sqlite3")
    try:
        waiting = pending_approval(store, "job")
        if waiting is None or "approval" in waiting:
            return
        if "key" in inspect.signature(approve).parameters:
            approve("job", waiting["approval_key"], store=store)  # type: ignore[call-arg]
        else:
            approve("job", store=store)
    finally:
        store.close()


def one_run(seed: int, root: Path, scenario: str) -> dict[str, object]:
    folder = root / f"run-{seed}"
    folder.mkdir()
    chance = random.Random(seed)
    kills, mode = 0, "run"
    for _attempt in range(40):
        if kills and _finished_result(folder) is not None:
            break  # killed after the run finished, before it wrote its result
        if (folder / "paused.json").exists():
            (folder / "paused.json").unlink()
            _approve_waiting_call(folder)
            mode = "resume"
        process = _spawn(folder, mode, scenario)
        before = len(_lines(folder / "calls.log"))
        while len(_lines(folder / "calls.log")) == before and process.poll() is None:
            time.sleep(0.005)
        time.sleep(chance.uniform(0.0, 0.4))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            kills, mode = kills + 1, "resume"
            continue
        if process.returncode != 0:
            return {"error": process.stderr.read().decode()[-500:] if process.stderr else "", "kills": kills}
        if (folder / "paused.json").exists():
            continue  # approved, then resumed, at the top of the loop
        break
    else:
        return {"error": "never finished", "kills": kills}
    result_file = folder / "result.json"
    result = json.loads(result_file.read_text()) if result_file.exists() else _finished_result(folder)
    made = Counter(_lines(folder / "calls.log"))
    return {
        "result": result,
        "kills": kills,
        "model_repeats": sum(made.values()) - len(made),
        "reports": len(_lines(folder / "reports.log")),
        "report_interrupted": _report_interrupted(folder),
    }


def _report_interrupted(folder: Path) -> bool:
    """Whether a kill landed inside `send_report`: the resumed run told the model that the call was
    interrupted (it may or may not have taken effect) instead of making it again."""
    from smol_core.durable import SQLiteStore, checkpoint

    store = SQLiteStore(folder / "runs.sqlite3")
    errors = []
    for record in store.list():  # the run and its team members' sub-runs
        stored = store.load(record.run_id)
        if stored is not None:
            errors += [str(getattr(step, "error", "") or "") for step in checkpoint.load(stored.data).steps]
    return any("ToolCallInterruptedError" in error and "send_report" in error for error in errors)


def main(runs: int, parallel: int, scenario: str) -> None:
    with tempfile.TemporaryDirectory(prefix="smol-kills-") as tmp:
        root = Path(tmp)
        (root / "plain").mkdir()
        plain = _spawn(root / "plain", "plain", scenario)
        assert plain.wait() == 0, plain.stderr.read().decode() if plain.stderr else ""
        expected = json.loads((root / "plain" / "result.json").read_text())
        started = time.perf_counter()
        with ThreadPoolExecutor(parallel) as pool:
            outcomes = list(pool.map(lambda seed: one_run(seed, root, scenario), range(runs)))
        elapsed = time.perf_counter() - started
        keep = os.environ.get("SMOL_KEEP_DIFFERENT")  # a folder: the runs that differ are copied there
        for seed, outcome in enumerate(outcomes):
            if keep and "error" not in outcome and outcome["result"] != expected:
                shutil.copytree(root / f"run-{seed}", Path(keep) / f"run-{seed}", dirs_exist_ok=True)
    errors = [o for o in outcomes if "error" in o]
    done = [o for o in outcomes if "error" not in o]
    same = [o for o in done if o["result"] == expected]
    interrupted_report = [o for o in done if o["result"] != expected and o["report_interrupted"]]
    kills = sum(int(o["kills"]) for o in outcomes)  # type: ignore[call-overload]
    print(f"scenario: {scenario}; runs: {runs} ({parallel} at a time, {elapsed:.0f} s), kills: {kills}")
    print(f"finished with the uninterrupted answer and namespace: {len(same)} of {runs}")
    print(f"a kill inside the side-effecting call (reported, not re-run): {len(interrupted_report)}")
    print(
        f"   of which the call had taken effect before the kill: {sum(1 for o in interrupted_report if o['reports'])}"
    )
    print(f"failed or never finished: {len(errors)}")
    for error in errors[:3]:
        print("   ", str(error.get("error"))[:300])
    print(f"model calls made twice: {sum(int(o['model_repeats']) for o in done)} (at most one per kill)")  # type: ignore[call-overload]
    print(f"side-effecting calls made twice: {sum(1 for o in done if int(o['reports']) > 1)}")  # type: ignore[call-overload]
    other = [o for o in done if o["result"] != expected and not o["report_interrupted"]]
    if other:
        print(f"DIFFERENT RESULTS: {len(other)}; first: {other[0]['result']}")


def take_scenario(arguments: list[str]) -> str:
    """The `--scenario NAME` of `arguments` (taken out of them), `code` by default; a name that is
    not one of `SCENARIOS` ends the command with the names it takes."""
    chosen = "code"
    if "--scenario" in arguments:
        at = arguments.index("--scenario")
        chosen = arguments[at + 1] if at + 1 < len(arguments) else ""
        del arguments[at : at + 2]
    if chosen not in SCENARIOS:
        raise SystemExit(f"--scenario {chosen!r}: choose one of {', '.join(SCENARIOS)}")
    return chosen


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:6])
    else:
        arguments = sys.argv[1:]
        chosen = take_scenario(arguments)
        main(int(arguments[0]) if arguments else 200, int(arguments[1]) if len(arguments) > 1 else 2, chosen)
