"""What a durable run costs per step: checkpointing to SQLite, beside the same run without.

A CodeAgent driven by a scripted model runs STEPS steps over a sandbox namespace of 100 small values
(ints, floats, short strings, small lists and dicts, set at step 1, a few changed at each step),
once with `run_id=` (a checkpoint after every step and a journal entry after every model reply,
default SQLite store in a temporary folder) and once without. Printed, median over the steps:
- the checkpoint's own cost per step, split into reading the namespace back from the worker
  (`namespace` exchange, typed codec) and encoding + writing to SQLite (two writes: the model reply's
  journal entry and the step's checkpoint);
- the whole step with and without checkpoints (the difference is what a user pays);
- the checkpoint's size per step (it grows with the memory: steps are kept, prompts are not).
The issue's goal: <= 1 ms per step for the checkpoint with SQLite.

    hatch run python bench/checkpoint_cost.py [--steps 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from smol_core import CodeAgent
from smol_core.durable import SQLiteStore, runner as durable_runner
from smol_core.testing import ScriptedModel


def _script(steps: int) -> list[str]:
    values = []
    for i in range(100):
        kind = i % 5
        value = [f"{i}", f"{i}.5", f"'value {i}'", f"[{i}, {i + 1}, {i + 2}]", f"{{'k': {i}, 'n': 'x{i}'}}"][
            kind
        ]
        values.append(f"v{i} = {value}")
    replies = ["Thought: set up.\n<code>\n" + "\n".join(values) + "\n</code>"]
    for step in range(2, steps):
        replies.append(f"Thought: step {step}.\n<code>\nv{step % 100} = {step}\ntotal = v0 + {step}\n</code>")
    replies.append("Thought: done.\n<code>\nfinal_answer(total)\n</code>")
    return replies


class _TimedStore(SQLiteStore):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.saves: list[tuple[float, int]] = []

    def save(self, *args: Any, **kwargs: Any) -> None:
        start = time.perf_counter()
        super().save(*args, **kwargs)
        self.saves.append((time.perf_counter() - start, len(args[2])))


def _run(steps: int, durable: bool, folder: Path) -> dict[str, Any]:
    store = _TimedStore(folder / "runs.sqlite3")
    agent = CodeAgent(
        tools=[], model=ScriptedModel(_script(steps)), verbosity_level=0, checkpoint_store=store
    )
    step_times: list[float] = []
    capture_times: list[float] = []
    checkpoint_times: list[float] = []
    step_sizes: list[int] = []
    original_capture = durable_runner.capture_namespace
    original_done = durable_runner.DurableRun._step_done

    def timed_capture(agent: Any) -> Any:
        start = time.perf_counter()
        try:
            return original_capture(agent)
        finally:
            capture_times.append(time.perf_counter() - start)

    def timed_done(self: Any, next_step: int) -> None:
        start = time.perf_counter()
        try:
            original_done(self, next_step)
        finally:
            checkpoint_times.append(time.perf_counter() - start)
            step_sizes.append(store.saves[-1][1])

    durable_runner.capture_namespace = timed_capture  # type: ignore[assignment]
    durable_runner.DurableRun._step_done = timed_done  # type: ignore[method-assign]
    try:
        with agent:
            agent.python_executor.wait_until_ready()  # the worker's start is not a step's cost
            last = time.perf_counter()
            for event in agent.run(
                "bench", stream=True, run_id=f"bench-{time.time_ns()}" if durable else None
            ):
                if type(event).__name__ == "ActionStep":
                    now = time.perf_counter()
                    step_times.append(now - last)
                    last = now
    finally:
        durable_runner.capture_namespace = original_capture  # type: ignore[assignment]
        durable_runner.DurableRun._step_done = original_done  # type: ignore[method-assign]
        store.close()
    return {
        "step": step_times[1:],  # step 1 sets the 100 values: not a typical step
        "capture": capture_times[1:],
        "checkpoint": checkpoint_times[1:],
        "saves": store.saves,
        "sizes": step_sizes,  # the checkpoint before step 1, then after each step
    }


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.3f} ms" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    plain: list[float] = []
    durable: list[float] = []
    capture: list[float] = []
    checkpoint: list[float] = []
    saves: list[tuple[float, int]] = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as folder:
            plain += _run(args.steps, False, Path(folder))["step"]
            result = _run(args.steps, True, Path(folder))
        durable += result["step"]
        capture += result["capture"]
        checkpoint += result["checkpoint"]
        saves += result["saves"]
    sizes = result["sizes"][1:]
    writes = [seconds for seconds, _ in saves]
    print(
        f"{args.steps} steps x {args.rounds} rounds, namespace of 100 small values, SQLite (WAL, synchronous=NORMAL)"
    )
    print(f"step without checkpoints (median):           {_ms(plain)}")
    print(f"step with checkpoints (median):              {_ms(durable)}")
    print(f"checkpoint after a step (median):            {_ms(checkpoint)}")
    print(f"  of which the namespace read from the worker: {_ms(capture)}")
    print(
        f"one SQLite write (encode excluded, median):  {_ms(writes)}  ({len(writes)} writes: journal + step)"
    )
    middle = len(sizes) // 2
    print(
        f"checkpoint size: step 1 {sizes[0]:,} B, step {middle + 1} {sizes[middle]:,} B, step {len(sizes)} {sizes[-1]:,} B"
    )


if __name__ == "__main__":
    main()
