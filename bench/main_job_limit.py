"""The main job (`smolagent "What is 17 times 23?"` on the embedded model) against the model's own limit.

The limit is what llama.cpp cannot do faster on this CPU: one prefill of the job's first prompt and
the answer's tokens at generation speed. Each round measures it in a fresh process (the CLI's cold
start: nothing cached), right after that process ran the main job through `smolagent`'s own `main`:

- job: `smolagent TASK` from its call to its answer, model load included (as the user waits for it);
- run: the agent's run alone (job less import and load), and of it the time in model calls;
- limit: the job's first request again, its prompt not cached (`cache_prompt: false`), with 1 thread
  and with every core, the faster kept: llama.cpp's own prefill and generation times (prefill and
  answer tokens at their speeds).

The machine may be shared and loaded: rounds alternate between the trees given (`--old-root`: the
code before a change, e.g. a `git worktree`), and ranges (min-max) are printed, never one figure.

    hatch run dev:python bench/main_job_limit.py [--rounds 5] [--task "..."] [--old-root /tmp/smol-old]

Measured on a 2-core x86-64 machine shared with other work (load averages 20 to 70), 4 rounds each,
alternating (issue 28): limit 2.0-7.2 s (260 prompt tokens, 36 answer tokens; llama.cpp prefilled
45-173 tokens/s and generated 17-92); the job 3.5-10.6 s, 1.2-1.7 times the limit, in one model call,
where before (three drafts, both cores) it took 29-217 s, 13-45 times the limit. Near idle, before:
the three drafts' calls took 2.9 s where the first alone took 1.25 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from figures import figure  # noqa: E402

# Runs in the child: the main job through the CLI's main, then the limit from its first request.
CHILD = r"""
import json, os, sys, time
started = time.perf_counter()
from smol_model_llamacpp import LlamaCppModel
from smol_core.cli import smolagent
import smol_model_llamacpp.engine as engine
engine_threads = []  # the threads the job's model really took (chosen as it loads)
real_build_params = engine.build_params
def recording_build_params(settings):
    params = real_build_params(settings)
    engine_threads.append(params.cpuparams.n_threads)
    return params
engine.build_params = recording_build_params

requests, replies, model_time = [], [], []
real_call = LlamaCppModel._call
def recording_call(self, request, callback=None):
    requests.append(dict(request))
    begun = time.perf_counter()
    result = real_call(self, request, callback)
    model_time.append(time.perf_counter() - begun)
    replies.append(result)
    return result
LlamaCppModel._call = recording_call
real_run = smolagent._run
run_time = {}
def timed_run(args):
    begun = time.perf_counter()
    try:
        return real_run(args)
    finally:
        run_time["s"] = time.perf_counter() - begun
smolagent._run = timed_run
status = smolagent.main([sys.argv[1], "--verbosity-level", "0"])
job = time.perf_counter() - started
LlamaCppModel._call = real_call
engine.build_params = real_build_params

# the model's limit here: the job's first request, uncached, with 1 thread and with every core
first = dict(requests[0], cache_prompt=False)
limits = {}
for threads in sorted({1, len(os.sched_getaffinity(0))}):
    model = LlamaCppModel(n_threads=threads).load()
    begun = time.perf_counter()
    result = model._call(first)
    limits[threads] = (result["timings"], time.perf_counter() - begun)
    model.close()
best = min(limits, key=lambda t: limits[t][0]["prompt_ms"] + limits[t][0]["predicted_ms"])
timings, wall = limits[best]
print(json.dumps({
    "status": status,
    "job": job,
    "run": run_time.get("s"),
    "model": sum(model_time),
    "job_threads": engine_threads[0] if engine_threads else None,
    "limit_threads": best,
    "limit_by_threads": {t: (v[0]["prompt_ms"] + v[0]["predicted_ms"]) / 1000 for t, v in limits.items()},
    "calls": len(requests),
    "prompt_tokens": sum(r["timings"]["prompt_n"] for r in replies),
    "answer_tokens": sum(r["timings"]["predicted_n"] for r in replies),
    "first_prompt": timings["prompt_n"],
    "first_answer": timings["predicted_n"],
    "prefill_tok_s": timings["prompt_per_second"],
    "gen_tok_s": timings["predicted_per_second"],
    "limit": (timings["prompt_ms"] + timings["predicted_ms"]) / 1000,
    "limit_wall": wall,
}))
"""


def python_path(root: Path) -> str:
    """The source folders of the core and the llama.cpp plugin under `root` (a checkout of smol)."""
    return os.pathsep.join(str(root / "packages" / sub / "src") for sub in ("core", "models/llamacpp"))


def one_round(root: Path, task: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=python_path(root), HF_HUB_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, task], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def span(values: list[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    return (
        f"{low:.{digits}f}"
        if round(low, digits) == round(high, digits)
        else f"{low:.{digits}f}-{high:.{digits}f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--task", default="What is 17 times 23?")
    parser.add_argument("--old-root", type=Path, default=None, help="another checkout to alternate with")
    args = parser.parse_args()

    trees = [("new", ROOT)] + ([("old", args.old_root.resolve())] if args.old_root else [])
    results: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    for number in range(args.rounds):
        for name, root in trees if number % 2 == 0 else trees[::-1]:
            row = one_round(root, args.task)
            results[name].append(row)
            print(
                f"round {number + 1} {name}: job {row['job']:.2f} s, run {row['run']:.2f} s (model calls "
                f"{row['model']:.2f} s), limit "
                f"{row['limit']:.2f} s ({row['first_prompt']} prompt tokens at {row['prefill_tok_s']:.0f}/s, "
                f"{row['first_answer']} answer tokens at {row['gen_tok_s']:.0f}/s; by threads "
                f"{row['limit_by_threads']}), job on {row['job_threads']} threads, {row['calls']} model "
                f"calls, load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )

    print()
    print(
        f"Main job: smolagent {args.task!r}, embedded model, {os.cpu_count()} CPUs; ranges of {args.rounds} rounds"
    )
    header = (
        f"{'tree':<6}{'limit s':>12}{'job s':>14}{'run s':>14}{'run/limit':>12}{'job/limit':>12}{'calls':>8}"
    )
    print(header)
    for name, rows in results.items():
        print(
            f"{name:<6}{span([r['limit'] for r in rows]):>12}{span([r['job'] for r in rows]):>14}"
            f"{span([r['run'] for r in rows]):>14}{span([r['run'] / r['limit'] for r in rows], 1):>12}"
            f"{span([r['job'] / r['limit'] for r in rows], 1):>12}{span([r['calls'] for r in rows], 0):>8}"
        )
    new = results["new"]
    figure(
        "main job: time against the model's own limit",
        statistics.median(r["job"] / r["limit"] for r in new),
        "x",
        goal=1.5,
    )
    speeds = [row for rows in results.values() for row in rows]
    print(
        f"llama.cpp on this CPU: prefill {span([r['prefill_tok_s'] for r in speeds], 0)} tok/s, "
        f"generation {span([r['gen_tok_s'] for r in speeds], 0)} tok/s"
    )


if __name__ == "__main__":
    main()
