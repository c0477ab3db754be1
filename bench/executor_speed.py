"""Benchmark: the local executor against native CPython `exec` and smolagents.

Run: `hatch run python bench/executor_speed.py` (install `smolagents` in that environment to get the
smolagents column; without it the column reads "n/a"). Prints one row per snippet (best of several runs,
milliseconds), the geometric-mean slowdowns, the warm round trip of a trivial 3-line action, and the
time for a fresh executor to give its first result (construct + first trivial action), each way a
worker can come (a ready spare, a fork of the warm template, a new interpreter).
"""

from __future__ import annotations

import contextlib
import io
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from executor_snippets import SNIPPETS  # noqa: E402
from figures import figure  # noqa: E402

from smol_core.executors.local import LocalPythonExecutor  # noqa: E402

TRIVIAL = "x = 1\ny = x + 1\ny * 2"
REPEAT = 7


def best(fn: Callable[[], Any], repeat: int = REPEAT) -> float:
    fn()  # warm up (imports, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def native_runner(code: str) -> Callable[[], Any]:
    compiled = compile(code, "<native>", "exec")

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()):  # smol captures prints too
            exec(compiled, {"__name__": "__main__"})

    return run


def smolagents_executor() -> Any | None:
    try:
        from smolagents.local_python_executor import LocalPythonExecutor as SmolagentsExecutor
    except ImportError:
        return None
    ex = SmolagentsExecutor(
        additional_authorized_imports=[
            "collections",
            "itertools",
            "re",
            "json",
            "datetime",
            "math",
            "statistics",
            "random",
        ]
    )
    ex.send_tools({})
    return ex


def main() -> None:
    smol = LocalPythonExecutor(["json"], timeout_seconds=60)
    smolagents = smolagents_executor()
    header = f"{'snippet':<26}{'native ms':>11}{'smol ms':>10}{'smolagents ms':>15}{'smol/native':>13}{'smolagents/native':>19}"
    print(header)
    print("-" * len(header))
    smol_ratios, smolagents_ratios = [], []
    for name, code in SNIPPETS.items():
        native = best(native_runner(code))
        mine = best(lambda: smol(code))
        smolagents_cell, smolagents_ratio = "n/a", "n/a"
        if smolagents is not None:
            try:
                smolagents_t = best(lambda: smolagents(code), repeat=3)
            except Exception:
                smolagents_cell, smolagents_ratio = "fails", "-"
            else:
                smolagents_ratios.append(smolagents_t / native)
                smolagents_cell, smolagents_ratio = (
                    f"{smolagents_t * 1e3:.3f}",
                    f"{smolagents_t / native:.2f}",
                )
        smol_ratios.append(mine / native)
        print(
            f"{name:<26}{native * 1e3:>11.3f}{mine * 1e3:>10.3f}{smolagents_cell:>15}"
            f"{mine / native:>13.2f}{smolagents_ratio:>19}"
        )
    geo = math.exp(statistics.fmean(math.log(r) for r in smol_ratios))
    print("-" * len(header))
    smolagents_geo = (
        math.exp(statistics.fmean(math.log(r) for r in smolagents_ratios))
        if smolagents_ratios
        else float("nan")
    )
    print(f"{'geometric mean slowdown':<26}{'':>11}{'':>10}{'':>15}{geo:>13.2f}{smolagents_geo:>19.2f}")
    print("(smolagents geometric mean over the snippets it runs)")
    figure(
        "executor: geometric-mean slowdown against native exec",
        geo,
        "x",
        smolagents=smolagents_geo if smolagents_ratios else None,
    )

    for _ in range(200):
        smol(TRIVIAL)
    trips = []
    for _ in range(2000):
        t = time.perf_counter()
        smol(TRIVIAL)
        trips.append(time.perf_counter() - t)
    figure("executor: warm round trip of a trivial action", statistics.median(trips) * 1e3, "ms")
    print(
        f"\nwarm round trip, trivial 3-line action: median {statistics.median(trips) * 1e3:.3f} ms, "
        f"p90 {sorted(trips)[int(len(trips) * 0.9)] * 1e3:.3f} ms"
    )
    if smolagents is not None:
        smolagents_trips = []
        for _ in range(500):
            t = time.perf_counter()
            smolagents(TRIVIAL)
            smolagents_trips.append(time.perf_counter() - t)
        print(f"smolagents, same action: median {statistics.median(smolagents_trips) * 1e3:.3f} ms")
    smol.close()

    for label, fresh in fresh_executor_figures().items():
        print(f"fresh executor, construct + first action, {label}: median {fresh * 1e3:.1f} ms")
        figure(
            f"fresh executor: first result, {label}",
            fresh * 1e3,
            "ms",
            goal=3.0 if label == "ready spare" else None,
        )


def fresh_executor_figures() -> dict[str, float]:
    """A fresh executor's construct + first action, median ms, each way a worker can come:
    a ready spare (the usual case for a server that makes an executor per request), a fork of the
    warm template configured on the spot, and a new interpreter (the template and spares off)."""
    from smol_core.executors.host.process import POOL, TEMPLATE
    from smol_core.executors.host.ready_spares import READY_SPARES

    TEMPLATE.wait_until_serving()
    figures = {}
    for label, spares, template in (
        ("ready spare", True, True),
        ("forked from the template, no spare", False, True),
        ("new interpreter, no spare", False, False),
    ):
        READY_SPARES.enabled = POOL.enabled = spares
        TEMPLATE.enabled = template
        LocalPythonExecutor()(TRIVIAL)  # the spares for these settings start being made
        starts = []
        for _ in range(8 if template else 3):
            time.sleep(0.3)  # a spare is refilled between requests
            t = time.perf_counter()
            ex = LocalPythonExecutor()
            ex(TRIVIAL)
            starts.append(time.perf_counter() - t)
            ex.close()
        figures[label] = statistics.median(starts)
    return figures


if __name__ == "__main__":
    main()
