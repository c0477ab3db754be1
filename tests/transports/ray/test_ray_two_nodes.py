"""A team spanning two Ray nodes (two `ray start`s on this machine, each with its own resource):
its agents are placed on both by `agent_options`, and their messages cross from one node to the
other; traced, it is one trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from smol_transport_ray.testing import LocalCluster, NodeSpec

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[LocalCluster]:
    with LocalCluster([NodeSpec({"node1": 1000}), NodeSpec({"node2": 1000})]) as cluster:
        yield cluster


def test_a_team_spanning_two_nodes_exchanges_messages(two_nodes, tmp_path):
    trace_file = tmp_path / "team.jsonl"
    env = {
        **os.environ,
        **two_nodes.environment,
        "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path]),
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "two_node_team.py"), two_nodes.address, str(trace_file)],
        capture_output=True,
        text=True,
        timeout=400,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["state"] == "success" and seen["output"] == "8"
    assert seen["nodes"] == {"0": "node1", "1": "node2"}  # agent i on the node of entry i % 2
    assert seen["sent"] == [[0, 1, "result = 5 + 3"], [1, 0, "8"]]  # node1 -> node2, and back
    if seen["traced"]:
        tree = pytest.importorskip("smol_telemetry_otel.tree")
        spans, skipped = tree.read_spans(trace_file.read_text().splitlines())
        assert skipped == 0
        roots = tree.build_trees(spans)
        assert len(roots) == 1  # one trace across both nodes
        assert [s.name for s in spans].count("invoke_agent agent_1") == 1
