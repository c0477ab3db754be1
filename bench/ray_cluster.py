"""Teams on a two-node Ray cluster simulated on this machine, beside the same teams as local
processes: start to answer, agents per node, memory.

The benchmark starts the cluster itself (`smol_transport_ray.testing.LocalCluster`: `ray start
--head` with the resource `node1`, a second `ray start --address=...` with `node2`, each node one
CPU and its own temporary folder) and stops it at the end. Agents are placed on both nodes by those
resources (`agent_options`: agent i gets entry i % 2), so messages between agent 0 and the
odd-numbered agents cross nodes; the team's mailbox is wherever Ray puts it. Each team is
`team_messages.team_settings(n)` (agent 0 pings the n - 1 others and collects their replies:
2(n - 1) messages), with an instant scripted model; a run's time is `run_agents` from its call to
its answer, every agent's process (and its sandbox worker) started and stopped within it.

For each size: the local team (agents forked from the host's fork server; its first run starts
the server), then the Ray team: its first run ("cold") makes the host's supervisors on each node and
their warm templates, which later teams of the host fork from ("warm": the goals, 64 agents within
3 s and 256 within 10 s). A size whose team would not fit the machine's free memory (estimated from
the previous size) is skipped and says so, and every run has a time cap (`--cap`, seconds).

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
from figures import figure  # noqa: E402
from team_messages import team_settings  # noqa: E402

NODES = ({"node1": 1000}, {"node2": 1000})
PLACEMENT = [{"resources": {"node1": 1}}, {"resources": {"node2": 1}}]
RUNS = {1: 3, 8: 3}
"""Warm runs per team size (larger teams: two)."""
GOALS = {64: 3.0, 256: 10.0}
"""Seconds from start to answer, for a Ray team on warm nodes (issue 39)."""
MEMORY_MARGIN = 1.5
"""A size runs only if its estimated memory, times this, is free."""


def free_memory_bytes() -> int:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def agents_memory() -> tuple[int, int]:
    """(agents' processes running now, the bytes held by everything below the supervisors: the
    agents, their sandbox workers and the node's templates: RSS)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                commands[pid] = handle.read()
        except OSError:  # ended meanwhile
            continue
        parent[pid], rss[pid] = int(fields[1]), int(fields[21]) * page
    supervisors = {pid for pid, command in commands.items() if command.startswith(b"ray::AgentSupervisor")}
    templates = {pid for pid, command in commands.items() if b"smol_transport_ray.agent_template" in command}
    agents = {
        pid
        for pid, command in commands.items()
        if b"smol_transport_ray.child" in command or (pid in templates and parent.get(pid) in templates)
    }

    def under_a_supervisor(pid: int) -> bool:
        pid = parent.get(pid, 0)
        while pid > 1:
            if pid in supervisors:
                return True
            pid = parent.get(pid, 0)
        return False

    return len(agents), sum(size for pid, size in rss.items() if under_a_supervisor(pid))


def placement_watcher(seen: dict[int, str], running: threading.Event) -> None:
    """Which node runs each agent, asked of the host's supervisors while the team runs."""
    from smol_transport_ray.testing import agent_nodes

    while running.is_set():
        seen.update(agent_nodes())
        time.sleep(0.2)


def one_run(num_agents: int, cap: float, transport: str, **transport_kwargs: object) -> float:
    """Seconds from `run_agents`'s call to its answer, for one team of `num_agents`."""
    from smol_core import run_agents

    start = time.perf_counter()
    result = run_agents(
        "Go.",
        settings=team_settings(num_agents),
        transport=transport,
        transport_kwargs=transport_kwargs,
        deadline_seconds=cap,
    )
    elapsed = time.perf_counter() - start
    if result.state != "success" or str(result.output) != str(num_agents - 1 if num_agents > 1 else 1):
        raise SystemExit(f"a {transport} team of {num_agents} ended {result.state}: {result.output!r}")
    return elapsed


def local_size(num_agents: int, runs: int, cap: float) -> None:
    """Local processes: the first run starts the host's fork server; the median of the others."""
    times = [one_run(num_agents, cap, "local") for _ in range(runs + 1)]
    warm = sorted(times[1:])
    print(
        f"local team of {num_agents:3d}: {warm[len(warm) // 2]:6.2f} s start to answer "
        f"(median of {runs}, {warm[0]:.2f}-{warm[-1]:.2f}; first run {times[0]:.2f} s)",
        flush=True,
    )


def ray_size(address: str, num_agents: int, runs: int, cap: float) -> float:
    """The same team over the two nodes: the first run cold if the host has no supervisors yet,
    then `runs` warm; returns the memory an agent held (bytes, at the fullest moment)."""
    seen: dict[int, str] = {}
    running = threading.Event()
    running.set()
    watcher = threading.Thread(target=placement_watcher, args=(seen, running), daemon=True)
    watcher.start()
    peak = [0, 0]  # agents running at the fullest, and their memory then

    def sample() -> None:
        while running.is_set():
            count, size = agents_memory()
            if count > peak[0]:
                peak[:] = [count, size]
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    kwargs = {"url": address, "agent_options": PLACEMENT}
    try:
        first = one_run(num_agents, cap, "ray", **kwargs)
        warm = sorted(one_run(num_agents, cap, "ray", **kwargs) for _ in range(runs))
    finally:
        running.clear()
        watcher.join(15)
        sampler.join(5)
    per_node = Counter(seen.values())
    where = ", ".join(f"{node}: {count}" for node, count in sorted(per_node.items())) or "none seen"
    goal = GOALS.get(num_agents)
    figure(
        f"team of {num_agents} over ray, two nodes, warm: start to answer",
        warm[len(warm) // 2],
        "s",
        goal=goal,
    )
    print(
        f"ray   team of {num_agents:3d}: {warm[len(warm) // 2]:6.2f} s start to answer "
        f"(median of {runs} warm, {warm[0]:.2f}-{warm[-1]:.2f}{f'; goal {goal:g} s' if goal else ''}; "
        f"first run {first:.2f} s); agents per node {where}; at most {peak[0]} agents' processes at once, "
        f"{peak[1] / 2**20:.0f} MiB with their sandbox workers and the templates",
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
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; two-node cluster at "
        f"{cluster.address} up in {time.perf_counter() - started:.1f} s"
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
            local_size(size, RUNS.get(size, 2), options.cap)
            per_agent = max(per_agent, ray_size(cluster.address, size, RUNS.get(size, 2), options.cap))
        print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
        ray.shutdown()
    finally:
        stopped = time.perf_counter()
        cluster.stop()
        print(f"cluster stopped in {time.perf_counter() - stopped:.1f} s")


if __name__ == "__main__":
    main()
