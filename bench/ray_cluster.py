"""Teams on a two-node Ray cluster simulated on this machine: agents per node and runs/s.

The benchmark starts the cluster itself (`smol_transport_ray.testing.LocalCluster`: `ray start
--head` with the resource `node1`, a second `ray start --address=...` with `node2`, each node one
CPU and its own temporary folder) and stops it at the end. Agents are placed on both nodes by those
resources (`agent_options`: agent i gets entry i % 2), `agents_per_worker` to a supervisor actor,
so messages between agent 0 and the odd-numbered agents cross nodes; the team's mailbox is wherever
Ray puts it. Each team is `team_messages.team_settings(n)` (agent 0 pings the n - 1 others and
collects their replies: 2(n - 1) messages), with an instant scripted model; runs/s includes
starting and stopping every agent process and its sandbox worker.

Team sizes 1, 8, 64 and 256; a size whose team would not fit the machine's free memory (estimated
from the previous size) is skipped and says so, and every run has a time cap (`--cap`, seconds).

    hatch run plugin-ray:python bench/ray_cluster.py [--sizes 1,8,64,256] [--cap 600]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from team_messages import team_settings  # noqa: E402

NODES = ({"node1": 1000}, {"node2": 1000})
PLACEMENT = [{"resources": {"node1": 1}}, {"resources": {"node2": 1}}]
RUNS = {1: 3, 8: 2}
"""Runs per team size (larger teams: one)."""
MEMORY_MARGIN = 1.5
"""A size runs only if its estimated memory, times this, is free."""


def free_memory_bytes() -> int:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def agents_memory() -> tuple[int, int]:
    """(agents' processes running now, the bytes they and their sandbox workers hold: RSS)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    agents: set[int] = set()
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:  # ended meanwhile
            continue
        parent[pid], rss[pid] = int(fields[1]), int(fields[21]) * page
        if b"smol_transport_ray.child" in command:
            agents.add(pid)

    def under_an_agent(pid: int) -> bool:
        while pid > 1:
            if pid in agents:
                return True
            pid = parent.get(pid, 0)
        return False

    return len(agents), sum(size for pid, size in rss.items() if under_an_agent(pid))


def placement_watcher(seen: dict[int, str], running: threading.Event) -> None:
    """Which node runs each agent, asked of the team's supervisors while the team runs."""
    from smol_transport_ray.testing import agent_nodes

    while running.is_set():
        seen.update(agent_nodes())
        time.sleep(0.2)


def run_size(address: str, num_agents: int, runs: int, cap: float) -> float:
    """Print agents per node and runs/s for teams of `num_agents`; returns the memory an agent's
    process and its sandbox worker held (bytes, at the fullest moment)."""
    from smol_core import run_agents

    seen: dict[int, str] = {}
    running = threading.Event()
    running.set()
    watcher = threading.Thread(target=placement_watcher, args=(seen, running), daemon=True)
    watcher.start()
    peak = [0, 0]  # agents running at the fullest, and their memory then

    def sample() -> None:
        while running.is_set():
            count, size = agents_memory()
            if size > peak[1]:
                peak[:] = [count, size]
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    states: list[str] = []
    start = time.perf_counter()
    try:
        for _ in range(runs):
            result = run_agents(
                "Go.",
                settings=team_settings(num_agents),
                transport="ray",
                transport_kwargs={"url": address, "agent_options": PLACEMENT},
                deadline_seconds=cap,
            )
            states.append(result.state if result.state != "success" else "ok")
    finally:
        elapsed = time.perf_counter() - start
        running.clear()
        watcher.join(15)
        sampler.join(5)
    per_node = Counter(seen.values())
    where = ", ".join(f"{node}: {count}" for node, count in sorted(per_node.items())) or "none seen"
    outcome = "all ok" if all(s == "ok" for s in states) else "states " + ",".join(states)
    print(
        f"team of {num_agents:3d}: {runs / elapsed:6.3f} runs/s ({elapsed / runs:6.2f} s per run, {runs} runs, "
        f"{outcome}); agents per node {where}; at most {peak[0]} agents' processes at once, "
        f"{peak[1] / 2**20:.0f} MiB with their sandbox workers",
        flush=True,
    )
    return peak[1] / max(1, peak[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,8,64,256")
    parser.add_argument("--cap", type=float, default=600.0, help="time cap of one team run, seconds")
    options = parser.parse_args()

    from smol_transport_ray.testing import LocalCluster, NodeSpec

    cluster = LocalCluster([NodeSpec(resources) for resources in NODES])
    started = time.perf_counter()
    cluster.start()
    print(
        f"{os.cpu_count()} CPUs; two-node cluster at {cluster.address} up in {time.perf_counter() - started:.1f} s"
    )
    try:
        os.environ.update(cluster.environment)
        import logging

        import ray

        ray.init(
            address=cluster.address, log_to_driver=False, logging_level=logging.WARNING, namespace="smol"
        )
        per_agent = 0.0
        for size in (int(s) for s in options.sizes.split(",")):
            needed = per_agent * size * MEMORY_MARGIN
            if needed and needed > free_memory_bytes():
                print(
                    f"team of {size:3d}: skipped: needs about {needed / 2**30:.1f} GiB "
                    f"(from the last size), {free_memory_bytes() / 2**30:.1f} GiB free"
                )
                continue
            per_agent = max(per_agent, run_size(cluster.address, size, RUNS.get(size, 1), options.cap))
        ray.shutdown()
    finally:
        stopped = time.perf_counter()
        cluster.stop()
        print(f"cluster stopped in {time.perf_counter() - stopped:.1f} s")


if __name__ == "__main__":
    main()
