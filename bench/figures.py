"""The headline figures of the benchmarks, one line each, for bench/performance.py's table.

A benchmark prints its report as it likes; each figure that issue 28 set a goal for (or that is
compared with smolagents) is also printed as `FIGURE {json}`: its name, smol's value and unit,
smolagents' value where smolagents has the feature, and the goal with its direction.
"""

from __future__ import annotations

import json

PREFIX = "FIGURE "


def figure(
    name: str,
    value: float,
    unit: str,
    *,
    smolagents: float | None = None,
    goal: float | None = None,
    higher_is_better: bool = False,
) -> None:
    """Print one figure line (flushed: performance.py reads the benchmark's output as it comes)."""
    record = {
        "name": name,
        "value": value,
        "unit": unit,
        "smolagents": smolagents,
        "goal": goal,
        "higher_is_better": higher_is_better,
    }
    print(PREFIX + json.dumps(record), flush=True)


def parse(line: str) -> dict[str, object] | None:
    """The figure a line of a benchmark's output holds, or None."""
    if not line.startswith(PREFIX):
        return None
    try:
        record = json.loads(line[len(PREFIX) :])
    except ValueError:
        return None
    return record if isinstance(record, dict) and "name" in record else None
