"""Every figure of issue 28 in one run, beside smolagents' where smolagents has the feature.

Runs the benchmarks one after another (their own reports are printed as they come), collects each
headline figure they print (bench/figures.py) and ends with one table: smol, smolagents, the goal,
and whether it is met. smolagents' columns need smolagents installed beside smol: the `bench`
environment has both. The Ray figures come from the `plugin-ray` environment, run from here through
hatch when it is there; the main job needs the embedded model (every environment has it).

    hatch run bench:python bench/performance.py [--quick]

`--quick` runs the main job once instead of three times. On a machine shared with other work the
figures move with its load: compare them only within one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from figures import parse  # noqa: E402


def run(command: list[str], title: str) -> list[dict[str, Any]]:
    """Run one benchmark, echo what it says (but its figure lines), and return its figures."""
    print(f"\n=== {title}: {' '.join(command)}", flush=True)
    found: list[dict[str, Any]] = []
    process = subprocess.Popen(
        command, cwd=HERE.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    for line in process.stdout:
        record = parse(line)
        if record is None:
            print(line, end="", flush=True)
        else:
            found.append(record)
    if process.wait() != 0:
        print(f"(exited with status {process.returncode})")
    return found


def ray_command() -> list[str] | None:
    """`hatch run plugin-ray:python bench/team_messages.py --ray-only`, where hatch and the env are."""
    hatch = shutil.which("hatch")
    if hatch is None:
        return None
    found = subprocess.run(
        [hatch, "env", "find", "plugin-ray"], capture_output=True, text=True, cwd=HERE.parent
    )
    if found.returncode != 0 or not Path(found.stdout.strip()).is_dir():
        return None
    return [hatch, "run", "plugin-ray:python", "bench/team_messages.py", "--ray-only"]


def _cell(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    number = float(value)
    text = (
        f"{number:,.0f}" if abs(number) >= 100 else f"{number:.2f}" if abs(number) >= 1 else f"{number:.3f}"
    )
    return f"{text} {unit}"


def _met(record: dict[str, Any]) -> str:
    goal = record.get("goal")
    if goal is None:
        return ""
    value = float(record["value"])
    return "yes" if (value >= goal if record.get("higher_is_better") else value <= goal) else "no"


def table(figures: list[dict[str, Any]]) -> None:
    rows = [
        (
            str(r["name"]),
            _cell(r["value"], r["unit"]),
            _cell(r.get("smolagents"), r["unit"]),
            ""
            if r.get("goal") is None
            else ("≥ " if r.get("higher_is_better") else "≤ ") + _cell(r["goal"], r["unit"]),
            _met(r),
        )
        for r in figures
    ]
    header = ("figure", "smol", "smolagents", "goal", "met")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(5)]
    print()
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print(
            "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the main job once, not three times")
    args = parser.parse_args()
    python = sys.executable
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; python {python}")
    figures: list[dict[str, Any]] = []
    figures += run([python, "bench/executor_speed.py"], "executor")
    figures += run([python, "bench/agent_overhead.py"], "agent overhead and fresh agents")
    figures += run([python, "bench/team_messages.py"], "transports and teams")
    ray = ray_command()
    if ray is None:
        print("\n=== ray: the plugin-ray environment is not there (hatch env create plugin-ray)")
    else:
        figures += run(ray, "ray transport and teams")
    rounds = "1" if args.quick else "3"
    figures += run(
        [python, "bench/main_job_limit.py", "--rounds", rounds], "the main job against the model's limit"
    )
    table(figures)


if __name__ == "__main__":
    main()
