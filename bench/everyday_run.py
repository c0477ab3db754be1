"""Run the everyday task bank (`bench/everyday_bank.py`) through the default agent, per route.

Routes: `embedded` is what `smolagent "task"` runs with no model flags (the llama.cpp plugin's
embedded SmolLM2-135M, in process); `server` is the same GGUF behind llama.cpp's OpenAI-compatible
server on 127.0.0.1 (`LlamaServer`, as tests/models/llamacpp start it), reached the way a user
would: `--model-type openai --api-base ...`. Each task gets the agent `smolagent` builds
(`AgentSettings` defaults: code actions, the local executor), durable runs kept in a throwaway
SQLite file, with 4 steps rather than the command's 20 (`--max-steps`): a task the model does not
answer in 4 steps it rarely answers later, and 20 steps of three drafts each, on a shared 2-core
machine, made one task take over ten minutes.

Reported: right answers per class and in all, and the cost per task: model calls, prompt and
completion tokens, seconds. `--part heldout` is the figure to report; `--part train` (or a
`--sample` of it) is what levers are developed on. `--out FILE` keeps every task's outcome as JSON
lines; `--quiet` hides the held-out tasks' text and answers (run it, never read it).

Measured (issue 38) on a 2-core machine shared with other work (load averages 5 to 270), held-out
part only, 4 steps; samples by `--per-class N --seed 38` because a full pass did not fit the time:

    route     tasks          before (the code as it was)   after (answer checks, class examples, unit factors)
    embedded  3 per class    3/33 (9%)                     2/33 (6%)
    server    1 per class    2/11                          3/11
    embedded  first 67 of 110 in bank order, before: 7/67 (units 2/10, percentages 5/10, 0 in the rest)

Per class (embedded, 3 each, before -> after): choice 1 -> 0, percentages 2 -> 0, strings 0 -> 1,
yes/no 0 -> 1, every other class 0 -> 0. Cost per task, embedded before -> after: model calls
3.6 -> 4.8, prompt tokens 1,158 -> 1,142, completion tokens 227 -> 203, seconds mean 48.5 -> 15.7
(median 7.6 -> 7.2; before, one task took 380 s in 17 calls). Server, before -> after: calls 2.4 ->
4.1, prompt tokens 524 -> 1,024, seconds 25.9 -> 22.1 (two servers sharing the cores). Each lever alone
(embedded, the same 33 tasks; before: 3/33): the answer-form check 4/33 (choice +1); a function
never an answer together with the printed value in its place 4/33 (yes/no +1); the conversion
factor in the prompt 3/33 (units 0/3 either way); worked examples per class from the training part
(with the `%` and "how many times" fixes to their choice) 2/33 (percentages -2, choice -1, strings
+1, yes/no +1): the examples decide the combined figure. None of it
moves the held-out figure beyond the noise of 33 tasks: the held-out templates are worded unlike
the training part, and SmolLM2-135M copies the nearest worked example rather than the stated factor.

    hatch run dev:python bench/everyday_run.py --part train --sample 40 [--classes units,dates]
    hatch run dev:python bench/everyday_run.py --part heldout --route server --quiet --out /tmp/h.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from everyday_bank import load  # noqa: E402
from everyday_checks import check  # noqa: E402


class CountingModel:
    """The model, with its calls counted (each draft is a call)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls = 0
        real = model.generate

        def generate(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        model.generate = generate


def open_route(route: str, threads: int) -> tuple[Any, Any]:
    """The model of `route`, and what to stop afterwards (the server, or None)."""
    from smol_core.loading import load_model

    if route == "embedded":
        return load_model("llamacpp", None), None
    from smol_model_llamacpp.server import LlamaServer

    server = LlamaServer(None, n_threads=threads).start()
    return load_model("openai", server.model_id, api_base=server.base_url, api_key="none"), server


def run_task(
    model: Any, counter: CountingModel, entry: dict[str, Any], store: Any, max_steps: int
) -> dict[str, Any]:
    from smol_core.agents.settings import AgentSettings, build_agent

    settings = AgentSettings(model=model, verbosity_level=-1, checkpoint_store=store, max_steps=max_steps)
    agent = build_agent(settings)
    calls_before = counter.calls
    started = time.perf_counter()
    output, error = None, None
    try:
        result = agent.run(entry["task"], return_full_result=True)
        output = result.output
        usage = result.token_usage
    except Exception as failure:  # a bench records, it does not stop
        error, usage = f"{type(failure).__name__}: {failure}"[:200], None
    seconds = time.perf_counter() - started
    with agent:
        pass  # closes the executor
    return {
        "id": entry["id"],
        "class": entry["class"],
        "right": error is None and check(entry["answer"], output),
        "output": repr(output)[:200],
        "error": error,
        "calls": counter.calls - calls_before,
        "prompt_tokens": usage.input_tokens if usage else 0,
        "completion_tokens": usage.output_tokens if usage else 0,
        "seconds": seconds,
    }


def report(outcomes: list[dict[str, Any]], title: str) -> None:
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        by_class[outcome["class"]].append(outcome)
    print(f"\n{title}")
    print(f"{'class':<15}{'right':>9}{'%':>6}{'calls':>7}{'prompt tok':>12}{'compl tok':>11}{'s/task':>8}")
    for name in sorted(by_class):
        _row(name, by_class[name])
    _row("all", outcomes)


def _row(name: str, outcomes: list[dict[str, Any]]) -> None:
    right = sum(o["right"] for o in outcomes)
    mean = {
        k: statistics.mean(o[k] for o in outcomes)
        for k in ("calls", "prompt_tokens", "completion_tokens", "seconds")
    }
    print(
        f"{name:<15}{f'{right}/{len(outcomes)}':>9}{100 * right / len(outcomes):>6.0f}{mean['calls']:>7.1f}"
        f"{mean['prompt_tokens']:>12.0f}{mean['completion_tokens']:>11.0f}{mean['seconds']:>8.1f}"
    )


def choose(args: argparse.Namespace) -> list[dict[str, Any]]:
    entries = load(args.part)
    if args.classes:
        entries = [e for e in entries if e["class"] in args.classes.split(",")]
    if args.sample:
        entries = random.Random(args.seed).sample(entries, min(args.sample, len(entries)))
    if args.per_class:
        rng = random.Random(args.seed)
        by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entry in entries:
            by_class[entry["class"]].append(entry)
        entries = [e for name in sorted(by_class) for e in rng.sample(by_class[name], args.per_class)]
    if args.ids:
        wanted = {int(number) for number in args.ids.split(",")}
        entries = [e for e in entries if e["id"] in wanted]
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="train", choices=["train", "heldout"])
    parser.add_argument("--route", default="embedded", choices=["embedded", "server"])
    parser.add_argument("--classes", default="", help="comma-separated classes (default: all)")
    parser.add_argument("--sample", type=int, default=0, help="a seeded sample of N tasks of the part")
    parser.add_argument("--per-class", type=int, default=0, help="a seeded sample of N tasks per class")
    parser.add_argument("--ids", default="", help="only the tasks with these ids (comma-separated)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="server route: llama-server's threads")
    parser.add_argument(
        "--max-steps", type=int, default=4, help="steps per task (smolagent's default is 20; see the note)"
    )
    parser.add_argument("--out", default=None, help="write each task's outcome as JSON lines, as they come")
    parser.add_argument("--quiet", action="store_true", help="print no task text or answer (held-out runs)")
    args = parser.parse_args()
    if args.out:
        Path(args.out).write_text("")
    entries = choose(args)
    model, server = open_route(args.route, args.threads)
    counter = CountingModel(model)
    outcomes = []
    from smol_core.durable import SQLiteStore

    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(str(Path(folder) / "runs.sqlite3"))
        for entry in entries:
            outcome = run_task(model, counter, entry, store, args.max_steps)
            outcomes.append(outcome)
            if args.out:
                with open(args.out, "a") as out:
                    out.write(json.dumps(outcome) + "\n")
            mark = "ok  " if outcome["right"] else "FAIL"
            shown = "" if args.quiet else f" {entry['task']!r} -> {outcome['output'][:80]}"
            print(
                f"[{entry['class']}] {mark}{shown} ({outcome['calls']} calls, {outcome['seconds']:.1f}s)",
                flush=True,
            )
    if server is not None:
        server.stop()
    report(outcomes, f"{args.route} route, {args.part} part ({len(outcomes)} tasks)")


if __name__ == "__main__":
    main()
