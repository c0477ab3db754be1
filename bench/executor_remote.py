"""Benchmark: remote executors (Docker now; E2B, WASM, ... register below) against the local one.

Run: `hatch run dev:python bench/executor_remote.py [names...]` (default: every registered executor whose
backend is available here; unavailable ones print why). Per executor it prints:
  - cold: construct + first trivial action (container / sandbox start included), median of a few;
  - round trip: a warm trivial 3-line action, median and p90;
  - the local executor's benchmark snippets (bench/executor_snippets.py): best-of time per snippet,
    and the geometric-mean slowdown against the local executor and against native CPython.

To add an executor: append an `Entry` to ENTRIES with a factory taking `additional_authorized_imports`
and keyword options; nothing else changes.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from executor_speed import SNIPPETS, TRIVIAL, best, native_runner  # noqa: E402

from smol_core.executors.base import ExecutorUnavailableError, PythonExecutor  # noqa: E402
from smol_core.executors.local import LocalPythonExecutor  # noqa: E402

AUTHORIZED = ["json"]


def _docker(authorized: list[str], **options: Any) -> PythonExecutor:
    from smol_executor_docker import DockerExecutor

    return DockerExecutor(authorized, **options)


def _wasm(authorized: list[str], **options: Any) -> PythonExecutor:
    from smol_executor_wasm import WasmExecutor

    return WasmExecutor(authorized, **options)


_STANDIN: Any = None


def _e2b(authorized: list[str], **options: Any) -> PythonExecutor:
    """E2B through the real SDK, against the stand-in E2B of the tests (commands run on this machine):
    measures the executor's own overhead (SDK, relay, base64 lines), not E2B's cloud or network."""
    global _STANDIN
    import os

    if _STANDIN is None:
        sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "executors" / "e2b"))
        from e2b_standin import StandInE2B

        _STANDIN = StandInE2B().__enter__()
        os.environ.update(
            E2B_API_URL=_STANDIN.url, E2B_SANDBOX_URL=_STANDIN.url, E2B_API_KEY=_STANDIN.api_key
        )
    from smol_executor_e2b import E2BExecutor

    return E2BExecutor(authorized, **options)


@dataclass
class Entry:
    name: str
    factory: Callable[..., PythonExecutor]
    options: dict[str, Any] = field(default_factory=dict)
    cold_runs: int = 5


ENTRIES: list[Entry] = [
    Entry("local", LocalPythonExecutor),
    Entry("docker", _docker),
    Entry("e2b-standin", _e2b),
    Entry("wasm", _wasm),
]


def cold_start(entry: Entry) -> list[float]:
    times = []
    for _ in range(entry.cold_runs):
        time.sleep(0.3)  # the local executor refills its spare worker between agent runs, too
        started = time.perf_counter()
        executor = entry.factory(AUTHORIZED, timeout_seconds=120, **entry.options)
        executor(TRIVIAL)
        times.append(time.perf_counter() - started)
        executor.close()
    return times


def round_trips(executor: PythonExecutor, n: int = 1000) -> list[float]:
    for _ in range(50):
        executor(TRIVIAL)
    trips = []
    for _ in range(n):
        started = time.perf_counter()
        executor(TRIVIAL)
        trips.append(time.perf_counter() - started)
    return trips


def snippet_times(executor: PythonExecutor) -> dict[str, float]:
    return {name: best(lambda code=code: executor(code), repeat=5) for name, code in SNIPPETS.items()}


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def main(names: list[str]) -> None:
    chosen = [e for e in ENTRIES if not names or e.name in names]
    native = {name: best(native_runner(code)) for name, code in SNIPPETS.items()}
    results: dict[str, dict[str, float]] = {}
    for entry in chosen:
        try:
            executor = entry.factory(AUTHORIZED, timeout_seconds=120, **entry.options)
            executor("1")
        except ExecutorUnavailableError as error:
            print(f"{entry.name}: unavailable here: {error}\n")
            continue
        try:
            trips = round_trips(executor)
            results[entry.name] = snippet_times(executor)
        finally:
            executor.close()
        cold = cold_start(entry)
        print(
            f"{entry.name}: cold start (construct + first action) median {statistics.median(cold) * 1e3:.0f} ms "
            f"(min {min(cold) * 1e3:.0f}, max {max(cold) * 1e3:.0f}); warm round trip, trivial action: "
            f"median {statistics.median(trips) * 1e3:.3f} ms, p90 {sorted(trips)[int(len(trips) * 0.9)] * 1e3:.3f} ms"
        )
    if not results:
        return
    names_done = list(results)
    header = f"{'snippet':<26}{'native ms':>11}" + "".join(f"{n + ' ms':>12}" for n in names_done)
    print("\n" + header + "\n" + "-" * len(header))
    for snippet in SNIPPETS:
        cells = "".join(f"{results[n][snippet] * 1e3:>12.3f}" for n in names_done)
        print(f"{snippet:<26}{native[snippet] * 1e3:>11.3f}{cells}")
    print("-" * len(header))
    for name in names_done:
        vs_native = geomean([results[name][s] / native[s] for s in SNIPPETS])
        line = f"{name}: geometric-mean slowdown vs native {vs_native:.2f}x"
        if "local" in results and name != "local":
            vs_local = geomean([results[name][s] / results["local"][s] for s in SNIPPETS])
            line += f", vs the local executor {vs_local:.2f}x"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
