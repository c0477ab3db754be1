"""`python two_node_team.py ADDRESS TRACE_FILE`: a team of four on the two-node cluster at ADDRESS,
agents placed on both nodes; prints what the test checks as one line of JSON.

A process of its own: the test session's Ray connection is to another cluster, and a process joins
one cluster only."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path

import ray
from smol_transport_ray.testing import agent_nodes

from smol_core import run_agents

sys.path.insert(0, str(Path(__file__).parents[2] / "teams"))
from team_helpers import five_plus_three  # noqa: E402

PLACEMENT = [{"resources": {"node1": 1}}, {"resources": {"node2": 1}}]


def main(address: str, trace_file: str) -> None:
    ray.init(address=address, namespace="smol", log_to_driver=False, logging_level=logging.WARNING)
    seen: dict[int, str] = {}
    running = threading.Event()
    running.set()

    def watch() -> None:
        while running.is_set():
            seen.update(agent_nodes())
            time.sleep(0.1)

    traced = None
    try:
        import smol_telemetry_otel

        traced = smol_telemetry_otel.instrument(trace_file=trace_file, environ={})
    except ImportError:  # the telemetry plugin is not installed here: no trace to check
        pass
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = run_agents(
            "Compute 5 + 3",
            num_agents=2,
            settings=five_plus_three(),
            transport="ray",
            transport_kwargs={"url": address, "agent_options": PLACEMENT},
            deadline_seconds=240,
        )
    finally:
        running.clear()
        watcher.join()
        if traced is not None:
            smol_telemetry_otel.uninstrument(traced)
    sent = [(m["sender"], m["recipient"], m["message"]) for m in result.messages if m["direction"] == "sent"]
    print(
        json.dumps(
            {
                "state": result.state,
                "output": result.output,
                "sent": sent,
                "nodes": {str(agent): node for agent, node in seen.items()},
                "traced": traced is not None,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
