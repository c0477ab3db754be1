"""`LocalCluster`: a Ray cluster of several nodes on this one machine, for tests and benchmarks.

Why: a team spread over nodes (agents placed by custom resources, messages crossing from one
node's workers to another's) can then be exercised without a second machine. Each node is a real
`ray start` (the head with `--head`, the others joining its address), each with its own resources
and its own temporary folder; all of them stop at `stop()`, and only them: never `ray stop`, which
would end every Ray cluster on the machine (another test's, another user's).

Each node runs as `ray start --block` in a session of its own: a SIGTERM makes it stop its
processes, and the session is killed after in any case, so nothing outlives the cluster.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

START_SECONDS = 120.0
STOP_SECONDS = 30.0


@dataclass
class NodeSpec:
    """One node: its CPUs, its custom resources (what agents are placed by), its object store."""

    resources: Mapping[str, float] = field(default_factory=dict)
    num_cpus: int = 1
    object_store_bytes: int = 100 * 1024 * 1024


class LocalCluster:
    """`nodes[0]` is the head; `address` is what a driver or a `RayTransport(url=...)` joins."""

    def __init__(self, nodes: Sequence[NodeSpec]) -> None:
        if not nodes:
            raise ValueError("a cluster needs at least its head node")
        self.nodes = list(nodes)
        self.address = ""
        self.processes: list[subprocess.Popen[bytes]] = []
        # short: Ray's Unix sockets live under it, and a socket's path is at most 107 bytes
        self.folder = tempfile.mkdtemp(prefix="smolray-", dir="/tmp")
        self.environment = {
            # the nodes and every driver agree: token authentication (a `ray start` turns it on
            # when ~/.ray has a token, a joining driver does not unless told), with a token of this
            # cluster's own (none may be in ~/.ray, as in CI)
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(32),
            "RAY_USAGE_STATS_ENABLED": "0",
            # no drain at SIGTERM: nothing here needs its work handed over, and it waits 30 s by default
            "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
        }
        """What a process that joins this cluster needs in its environment (`{**os.environ, **it}`)."""

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the head, then every other node, and wait until all of them are in the cluster."""
        try:
            port = free_port()
            self.address = f"127.0.0.1:{port}"
            self._start_node(
                self.nodes[0],
                ["--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--include-dashboard=false"],
            )
            wait_for_port(port, START_SECONDS, self.processes[0], self.folder)
            for spec in self.nodes[1:]:
                self._start_node(spec, [f"--address={self.address}", "--node-ip-address=127.0.0.1"])
            self.wait_for_nodes(len(self.nodes))
        except BaseException:
            self.stop()
            raise

    def _start_node(self, spec: NodeSpec, where: list[str]) -> None:
        index = len(self.processes)
        command = [
            _ray_cli(),
            "start",
            "--block",
            *where,
            f"--num-cpus={spec.num_cpus}",
            f"--resources={json.dumps(dict(spec.resources))}",
            f"--object-store-memory={spec.object_store_bytes}",
            f"--dashboard-agent-listen-port={free_port()}",
            "--disable-usage-stats",
            f"--temp-dir={self.folder}",
        ]
        log = open(os.path.join(self.folder, f"node-{index}.log"), "wb")  # noqa: SIM115 (the node's, from here)
        environment = {**os.environ, **self.environment}
        environment.pop("RAY_ADDRESS", None)
        self.processes.append(
            subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=environment
            )
        )
        log.close()

    def wait_for_nodes(self, count: int) -> None:
        """Wait until `count` nodes are alive, asked from a short-lived process (a driver here
        would tie this process to the cluster)."""
        probe = (
            "import ray, sys, time\n"
            f"ray.init(address={self.address!r}, logging_level='ERROR', log_to_driver=False)\n"
            f"deadline = time.monotonic() + {START_SECONDS}\n"
            f"while sum(n['Alive'] for n in ray.nodes()) < {count}:\n"
            "    if time.monotonic() > deadline: sys.exit(1)\n"
            "    time.sleep(0.2)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            timeout=START_SECONDS + 60,
            check=False,
            env={**os.environ, **self.environment},
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"the local Ray cluster did not come up: {done.stderr[-2000:].decode(errors='replace')} {_tail(self.folder, 'node-1.log')}"
            )
        for index, process in enumerate(self.processes):
            if process.poll() is not None:
                raise RuntimeError(
                    f"node {index} of the local Ray cluster ended: {_tail(self.folder, f'node-{index}.log')}"
                )

    def stop(self) -> None:
        """Stop every node (the others first, the head last), and remove the cluster's folder."""
        for process in reversed(self.processes):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(STOP_SECONDS)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # whatever the node left in its session
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(STOP_SECONDS)
        self.processes.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, seconds: float, head: subprocess.Popen[bytes], folder: str) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            if head.poll() is not None:
                raise RuntimeError(
                    f"the Ray head ended at its start: {_tail(folder, 'node-0.log')}"
                ) from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Ray head did not open port {port} in {seconds:.0f} s") from None
            time.sleep(0.2)


def _tail(folder: str, name: str) -> str:
    """The end of a node's log (why it did not start)."""
    try:
        with open(os.path.join(folder, name), "rb") as handle:
            return handle.read()[-2000:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"


def _ray_cli() -> str:
    """The `ray` command of this Python's environment."""
    beside = os.path.join(os.path.dirname(sys.executable), "ray")
    return beside if os.path.exists(beside) else shutil.which("ray") or "ray"


def node_of(resources: Mapping[str, Any]) -> str | None:
    """Which of the custom resources `nodeN` a node (as `ray.nodes()` lists it) declares."""
    return next((name for name in resources if name.startswith("node") and name[4:].isdigit()), None)


def agent_nodes() -> dict[int, str]:
    """Agent id -> the node its supervisor runs on (the node's `nodeN` resource, else its id), for
    every agent started by a supervisor still on the cluster this process is connected to."""
    import ray

    names = {
        node["NodeID"]: node_of(node["Resources"]) or node["NodeID"][:8]
        for node in ray.nodes()
        if node["Alive"]
    }
    found: dict[int, str] = {}
    for actor in ray.util.list_named_actors(all_namespaces=True):
        if "-agents-" not in actor["name"]:
            continue
        try:
            supervisor = ray.get_actor(actor["name"], namespace=actor["namespace"])
            node, agents = ray.get([supervisor.node.remote(), supervisor.agents.remote()], timeout=10)
        except (ValueError, ray.exceptions.RayError):  # killed meanwhile: its team has ended
            continue
        for agent in agents:
            found[int(agent)] = names.get(node, node[:8])
    return found
