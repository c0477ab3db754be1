"""The embedded default model (SmolLM2-135M-Instruct through llama.cpp): load time, time to first
token, and tokens per second, free and under constrained decoding. Prints a table.

    hatch run python bench/model_default.py [--runs 5] [--threads N] [--max-tokens 128]

Load time is measured in a fresh child process (import of xllamacpp + model load), the way a user's
first `smolagent` call pays it. The machine may be shared: figures are medians over --runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

from smol_model_llamacpp import LlamaCppModel, code_action_grammar, default_model_path

from smol_core.messages import ChatMessage, MessageRole

THOUGHT_AND_CODE = {
    "type": "json_schema",
    "json_schema": {
        "name": "ThoughtAndCodeAnswer",
        "schema": {
            "type": "object",
            "properties": {"thought": {"type": "string"}, "code": {"type": "string"}},
            "required": ["thought", "code"],
        },
    },
}
PROMPT = "Write a Python function that returns the sum of the squares of a list of numbers, and explain it."

LOAD_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
from smol_model_llamacpp import LlamaCppModel
model = LlamaCppModel(n_ctx=int(sys.argv[1]), n_threads=int(sys.argv[2]) or None).load()
t1 = time.perf_counter()
model.generate([{"role": "user", "content": "hi"}], max_tokens=1)
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "first_call": t2 - t1}))
"""


def cold_load(n_ctx: int, threads: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", LOAD_SNIPPET, str(n_ctx), str(threads)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def one_run(model: LlamaCppModel, max_tokens: int, **kwargs: Any) -> dict[str, float]:
    messages = [ChatMessage(role=MessageRole.USER, content=PROMPT)]
    # a fresh prompt each time would measure prompt processing too; keep the cache cold instead
    model.engine.server.handle_chat_completions(
        {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1}
    )
    started = time.perf_counter()
    first: float | None = None
    pieces = 0
    usage = None
    for delta in model.generate_stream(messages, max_tokens=max_tokens, **kwargs):
        if delta.content and first is None:
            first = time.perf_counter() - started
        if delta.content:
            pieces += 1
        if delta.token_usage is not None:
            usage = delta.token_usage
    total = time.perf_counter() - started
    out_tokens = usage.output_tokens if usage else pieces
    decode_time = max(total - (first or 0.0), 1e-9)
    return {
        "ttft": first or total,
        "tok_s": (out_tokens - 1) / decode_time if out_tokens > 1 else 0.0,
        "tokens": out_tokens,
        "prompt_tokens": usage.input_tokens if usage else 0,
        "total": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="0: all cores this process may use")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--n-ctx", type=int, default=8192)
    args = parser.parse_args()

    path = default_model_path()
    loads = [cold_load(args.n_ctx, args.threads) for _ in range(max(1, min(3, args.runs)))]
    model = LlamaCppModel(n_ctx=args.n_ctx, n_threads=args.threads or None).load()

    modes: list[tuple[str, dict[str, Any]]] = [
        ("free text", {}),
        ("JSON schema (ThoughtAndCode)", {"response_format": THOUGHT_AND_CODE}),
        ("GBNF code_action_grammar", {"grammar": code_action_grammar()}),
    ]
    rows = []
    for name, kwargs in modes:
        one_run(model, 8, **kwargs)  # warm-up
        runs = [one_run(model, args.max_tokens, **kwargs) for _ in range(args.runs)]
        rows.append(
            (
                name,
                statistics.median(r["ttft"] for r in runs) * 1000,
                statistics.median(r["tok_s"] for r in runs),
                statistics.median(r["tokens"] for r in runs),
                int(statistics.median(r["prompt_tokens"] for r in runs)),
            )
        )

    print(f"Embedded default: {path.name} ({path.stat().st_size / 1e6:.0f} MB), llama.cpp via xllamacpp")
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, threads={args.threads or 'all'}, "
        f"n_ctx={args.n_ctx}, load average {os.getloadavg()[0]:.1f}; medians of {args.runs} runs"
    )
    print()
    print(f"{'cold load (import + model), s':<40}{statistics.median(x['load'] for x in loads):>10.2f}")
    print(
        f"{'first call after load (1 token), s':<40}{statistics.median(x['first_call'] for x in loads):>10.2f}"
    )
    print()
    print(f"{'mode':<32}{'TTFT ms':>10}{'tok/s':>10}{'tokens':>10}{'prompt':>10}")
    for name, ttft, tok_s, tokens, prompt in rows:
        print(f"{name:<32}{ttft:>10.0f}{tok_s:>10.1f}{tokens:>10.0f}{prompt:>10}")
    model.close()


if __name__ == "__main__":
    main()
