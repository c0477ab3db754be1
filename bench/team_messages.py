"""Messages between agents' transports, and whole team runs: throughput and latency.

Transports (`local`, and `redis` when Debian's redis-server is installed: one is started on a free
port of 127.0.0.1 and stopped after): a sender process puts messages on a receiver's inbox, the
receiver (this process) drains it.
- throughput: a burst of BURST messages, from the first send to the last receive;
- latency: PACED messages, one every 0.5 ms (after WARM_UP), each carrying its send time
  (CLOCK_MONOTONIC, one clock for every process of the machine); one-way p50 and p99.
Goals: local >= 10k msg/s and p99 <= 5 ms; redis >= 5k msg/s; ray >= 10k msg/s. `ray` (in the
plugin-ray environment: a local Ray cluster is started, its start not counted) queues each send in
the sender's outbox, which delivers them to the team's mailbox actor in batches (one actor call per
batch, the next as soon as the last is answered); the receiver takes up to 1,000 per call.

Team runs (`run_agents`, CodeAgents with an instant scripted model, each agent its own process with
its own sandbox worker: forked from the host's warm fork server with `local` and `redis` (and, for
comparison, `spawn`ed as fresh interpreters); with `ray`, started on the cluster under supervisor
actors, 32 agents per actor, with a fresh mailbox actor per run; teams over two Ray nodes:
bench/ray_cluster.py): N = 1 (agent 0 answers), N = 8 and N = 64 (agent 0
sends a message to each of the others, collects their replies, answers); the time per run includes
starting and stopping every process. Goals: a local team of 8 <= 0.2 s, of 64 <= 1 s.

    python bench/team_messages.py
    hatch run plugin-ray:python bench/team_messages.py     # with ray (and redis) side by side
"""

from __future__ import annotations

import multiprocessing
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from figures import figure  # noqa: E402

BURST = 20_000
# a burst measures the transport, not the per-sender quota (1,000 unread by default): a sender that
# outruns its reader would be refused, so the quota is raised above the burst here
BURST_LIMITS = {"max_pending_per_sender": 2 * BURST, "max_pending_bytes_per_sender": 64 * 1024 * 1024}
PACED = 2_000
WARM_UP = 100  # the first messages also pay for starting the queue's feeder thread, the connection


def sender(transport: Any, count: int, pause: float, ready: Any) -> None:
    from smol_core.teams import Message

    ready.wait()
    for n in range(count):
        transport.send(Message(sender=0, recipient=1, body={"n": n, "t": time.monotonic()}))
        if pause:
            time.sleep(pause)  # sleeping, not spinning: two processes share few cores


def measure(transport: Any, count: int, pause: float) -> tuple[float, list[float]]:
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    process = ctx.Process(target=sender, args=(transport, count, pause, ready))
    process.start()
    got, latencies = 0, []
    transport.receive(1, timeout=0)  # connect before the clock starts
    ready.set()
    start = None
    while got < count:
        batch = transport.receive(1, timeout=10.0, limit=1000)
        if not batch:
            raise SystemExit(f"lost messages: {got} of {count} arrived")
        now = time.monotonic()
        transport.ack(1, [m.id for m in batch])
        for message in batch:
            if start is None:
                start = message.body["t"]
            latencies.append(now - message.body["t"])
        got += len(batch)
    elapsed = time.monotonic() - (start or time.monotonic())
    process.join()
    return count / elapsed, latencies


MESSAGE_GOALS = {"local": 10_000.0, "redis": 5_000.0, "ray": 10_000.0}
TEAM_GOALS = {("local", 8): 0.2, ("local", 64): 1.0}


def report(name: str, make: Any) -> None:
    rate, _ = measure(make(), BURST, 0.0)
    _, latencies = measure(make(), PACED + WARM_UP, 0.0005)
    cuts = statistics.quantiles(latencies[WARM_UP:], n=100)
    print(
        f"{name:6s} throughput {rate:9,.0f} msg/s   latency p50 {cuts[49] * 1000:6.3f} ms   "
        f"p99 {cuts[98] * 1000:6.3f} ms"
    )
    figure(
        f"{name} transport: messages per second",
        rate,
        "msg/s",
        goal=MESSAGE_GOALS.get(name),
        higher_is_better=True,
    )
    if name == "local":
        figure("local transport: one-way latency p99", cuts[98] * 1000, "ms", goal=5.0)


def start_redis() -> tuple[subprocess.Popen[bytes], str] | None:
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return server, f"redis://127.0.0.1:{port}/0"


def team_settings(num_agents: int) -> list[Any]:
    from smol_core.teams import AgentSettings
    from smol_core.testing import ScriptedModel

    def code(body: str) -> str:
        return f"Thought: go.\n<code>\n{body}\n</code>"

    if num_agents == 1:
        return [AgentSettings(model=ScriptedModel([code("final_answer(1)")]), verbosity_level=-1)]
    first = code(
        f"for i in range(1, {num_agents}):\n    send_message(target_id=i, message='ping')\n"
        f"replies = []\nwhile len(replies) < {num_agents - 1}:\n    replies += receive_messages(timeout=30)\n"
        "final_answer(len(replies))"
    )
    other = code("send_message(target_id=0, message='pong')\nfinal_answer('pong')")
    return [AgentSettings(model=ScriptedModel([first]), verbosity_level=-1)] + [
        AgentSettings(model=ScriptedModel([other]), verbosity_level=-1)
    ] * (num_agents - 1)


def team_runs(
    num_agents: int, runs: int, transport: str = "local", context: str = "forkserver", **transport_kwargs: Any
) -> None:
    from smol_core import run_agents

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = run_agents(
            "Go.",
            settings=team_settings(num_agents),
            transport=transport,
            transport_kwargs=transport_kwargs,
            deadline_seconds=120,
            context=context,  # type: ignore[arg-type]
        )
        times.append(time.perf_counter() - start)
        assert result.state == "success", result
    label = f"{transport} ({context})" if transport != "ray" else transport
    if context == "forkserver" or transport == "ray":
        figure(
            f"team of {num_agents} over {transport}: one scripted run",
            statistics.median(times),
            "s",
            goal=TEAM_GOALS.get((transport, num_agents)),
        )
    print(
        f"{label:18s} team of {num_agents:2d}: {statistics.median(times):5.2f} s per run "
        f"(median of {runs}; {min(times):.2f}-{max(times):.2f})"
    )


def bench_ray() -> None:
    """The `ray` transport on a local Ray cluster started here (its start is not counted); needs the
    plugin-ray environment: `hatch run plugin-ray:python bench/team_messages.py`."""
    import importlib.util

    if importlib.util.find_spec("smol_transport_ray") is None or importlib.util.find_spec("ray") is None:
        print("ray    (not installed: hatch run plugin-ray:python bench/team_messages.py)")
        return
    import logging
    import os

    import ray
    from smol_transport_ray.transport import RayTransport

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING, namespace="smol")
    try:
        report("ray", lambda: RayTransport(num_agents=2, max_inbox=4 * BURST, **BURST_LIMITS))
        team_runs(1, 5, "ray")
        team_runs(8, 3, "ray")
        team_runs(64, 1, "ray")  # 32 agents per supervisor actor: two Ray workers, not 64
    finally:
        ray.shutdown()


TEAM_SIZES = ((1, 5), (8, 5), (64, 3))
"""(agents, runs) of each team run measured."""


def main() -> None:
    from smol_core.teams import LocalTransport

    if sys.argv[1:] == ["--ray-only"]:  # what performance.py runs in the plugin-ray environment
        bench_ray()
        return
    print(f"{multiprocessing.cpu_count()} CPUs")
    report("local", lambda: LocalTransport(num_agents=2, **BURST_LIMITS))
    started = start_redis()
    if started is None:
        print("redis  (redis-server not installed: scripts/setup.d/50-redis.sh)")
    try:
        if started is not None:
            from smol_transport_redis.transport import RedisTransport

            url = started[1]
            report("redis", lambda: RedisTransport(url, num_agents=2, max_inbox=4 * BURST, **BURST_LIMITS))
        # one transport after the other, as a host uses one (the CLI runs one team per process): a
        # team over Redis restarts the fork server with redis-py preloaded (start_method.py), and a
        # fork server that holds it forks every later agent a little slower (a team of 64 over local
        # inboxes took 1.11 s instead of 0.98 s when measured after the Redis teams)
        for num_agents, runs in TEAM_SIZES:
            team_runs(num_agents, runs)
        for num_agents, runs in TEAM_SIZES:
            if started is not None:
                team_runs(num_agents, runs, "redis", url=started[1])
        # a fresh interpreter per agent, for comparison (the start method of hosts with no fork server)
        for num_agents, runs in TEAM_SIZES:
            if num_agents <= 8:
                team_runs(num_agents, runs, context="spawn")
    finally:
        if started is not None:
            started[0].terminate()
            started[0].wait()
    bench_ray()


if __name__ == "__main__":
    main()
