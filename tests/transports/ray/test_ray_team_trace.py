"""A two-agent team over Ray, traced by the host's `smol_telemetry_otel.instrument()` alone (no
variable of the environment), is one trace: the call's settings travel with each agent's target to
the process its Ray actor starts, and the W3C trace context rides inside each message."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from smol_core import run_agents

tree = pytest.importorskip("smol_telemetry_otel.tree")
import smol_telemetry_otel  # noqa: E402

TEAMS = Path(__file__).parents[2] / "teams"
sys.path.insert(0, str(TEAMS))
from team_helpers import five_plus_three  # noqa: E402


def test_a_ray_team_traced_by_instrument_alone_is_one_trace(ray_address, tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith(("OTEL_", "SMOL_TRACE")):
            monkeypatch.delenv(key)
    path = tmp_path / "team.jsonl"
    made = smol_telemetry_otel.instrument(trace_file=path, environ={})
    assert made is not None
    try:
        result = run_agents(
            "Compute 5 + 3",
            num_agents=2,
            settings=five_plus_three(),
            transport="ray",
            transport_kwargs={"url": ray_address},
            deadline_seconds=180,
        )
    finally:
        smol_telemetry_otel.uninstrument(made)
    assert result.state == "success" and result.output == "8"
    spans, skipped = tree.read_spans(path.read_text().splitlines())
    assert skipped == 0
    roots = tree.build_trees(spans)
    assert len(roots) == 1, {trace: [r.name for r in rs] for trace, rs in roots.items()}
    assert [r.name for r in next(iter(roots.values()))] == ["invoke_agent agent_0"]
    assert len({s.pid for s in spans}) == 2  # both agents' processes, neither of them the host
    assert str(os.getpid()) not in {str(s.pid) for s in spans}
    assert [s.name for s in spans].count("invoke_agent agent_1") == 1
