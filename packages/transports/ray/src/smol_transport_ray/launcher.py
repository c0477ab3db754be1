"""Agents on a Ray cluster: each agent of a team runs under an `AgentSupervisor` actor, up to
`agents_per_worker` agents per actor (one Ray worker process), on the nodes its options place it.

The host keeps the same rules as with local processes (`smol_core.teams.launcher`): it starts every
agent, asks how each ended, stops them all at the end (SIGTERM relayed by the supervisor, then
SIGKILL), and no agent outlives the run: `close` kills any agent of the team still running. The
supervisors stay for the host's next team (`pool`: each holds a warm template its agents fork from,
as the host's local fork server does); they are not detached, so they end with the host's Ray
connection, or at `close_supervisors()`.

Placement: `agent_options` is one set of Ray actor options for every supervisor, or a list of them
that agents take in turn (agent i gets entry i % len): `[{"resources": {"node1": 0.01}},
{"resources": {"node2": 0.01}}]` spreads a team over two nodes that declare those resources. Agents
with the same entry share supervisors, `agents_per_worker` at most each.

An agent's report comes back as the result of its supervisor's `run` call; the host writes it where
the team reads local agents' reports, and puts the agent's id on the team's `done` queue.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from smol_core.plugin_api import MAX_RESULT_BYTES, AgentProcess
from smol_transport_ray import supervisor as supervisor_module
from smol_transport_ray.console import ConsoleEcho
from smol_transport_ray.pool import POOL, placements
from smol_transport_ray.status import MailboxStatus
from smol_transport_ray.transport import RayTransport

AGENTS_PER_WORKER = 32
"""How many agents one supervisor actor (one Ray worker process) runs, by default."""
KILLED = -9
"""The exit code of an agent whose supervisor was killed or lost (its node died)."""
KILL_WAIT_SECONDS = 30.0
"""How long a join waits for a killed supervisor's end to be confirmed before taking it as ended."""


def launcher_for(transport: Any) -> RayLauncher | None:
    """`TransportSpec.launcher` of the `ray` transport: agents on the cluster unless the transport
    was made with `agents="local"` (then the team starts local processes, talking through Ray)."""
    if not isinstance(transport, RayTransport) or transport.agents != "cluster":
        return None
    return RayLauncher(transport, transport.agent_options, transport.agents_per_worker)


class RayLauncher:
    """Starts the team's agents under the host's warm supervisors (`pool`), several per supervisor;
    at `close`, kills whatever agent of the team still runs and gives the supervisors back."""

    def __init__(
        self,
        transport: RayTransport,
        options: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        agents_per_worker: int = AGENTS_PER_WORKER,
    ) -> None:
        self.transport = transport
        self.choices = placements(options)
        self.agents_per_worker = max(1, int(agents_per_worker))
        self.processes: list[RayAgentProcess] = []
        self.echo: ConsoleEcho | None = None

    def peer_status(self, num_agents: int) -> MailboxStatus:
        return MailboxStatus(self.transport, num_agents)

    def process(self, target: Callable[..., None], args: tuple[Any, ...], name: str) -> AgentProcess:
        if self.echo is None:
            self.echo = ConsoleEcho(self.transport)
            self.echo.start()
        choice = self.choices[int(args[0]) % len(self.choices)]
        supervisor = POOL.acquire(
            self.transport.ray, choice, self.agents_per_worker, supervisor_module.modules_of(target, args)
        )
        made = RayAgentProcess(self.transport, supervisor, target, args, name)
        self.processes.append(made)
        return made

    def close(self) -> None:
        for process in self.processes:
            process.release()
        forgotten = set()
        for process in self.processes:
            if id(process.supervisor) not in forgotten:
                forgotten.add(id(process.supervisor))
                with contextlib.suppress(Exception):  # gone already (its node with it)
                    process.supervisor.forget.remote(self.transport.name)
            POOL.release(process.supervisor)
        self.processes.clear()
        if self.echo is not None:
            self.echo.stop()


class RayAgentProcess:
    """One agent on the cluster, seen from the host as a `multiprocessing.Process`: one `run` call
    of its supervisor (shared with other agents of the team).

    `args` are the team's `(agent_id, task, settings, transport, done, report_path[, run_id, resume])`: the first three
    and the transport (the agent's view: its own keys only) go to the supervisor (which hands the agent a relay to itself instead of the
    transport); `done` and `report_path` are the host's, where the report is relayed."""

    def __init__(
        self,
        transport: RayTransport,
        supervisor: Any,
        target: Callable[..., None],
        args: tuple[Any, ...],
        name: str,
    ) -> None:
        self.transport = transport
        self.supervisor = supervisor
        # a durable team's `(run_id, resume)` follow the six: by name, as the agent's process passes
        # its own `done` and report path after the first four
        durable = dict(zip(("run_id", "resume"), args[6:], strict=False))
        self.target = functools.partial(target, **durable) if durable else target
        self.agent_id: int = args[0]
        self.remote_args = tuple(args[:3])
        self.agent_transport: RayTransport = args[3]
        self.team = transport.name
        """The agent's own view of the transport (its share of the team's keys, never the host's)."""
        self.done, self.report_path = args[4], str(args[5])
        self.name = name
        self.pid: int | None = None
        self._exitcode: int | None = None
        self._result: Any = None
        self._ended = False
        self._killed = False

    def start(self) -> None:
        self._result = self.supervisor.run.remote(
            self.target, self.remote_args, self.agent_transport, self.name, MAX_RESULT_BYTES
        )
        self.pid = 0  # started; the agent's own pid is on its node, not here

    @property
    def exitcode(self) -> int | None:
        self._poll(0)
        return self._exitcode

    def is_alive(self) -> bool:
        return self.pid is not None and not self._poll(0)

    def join(self, timeout: float | None = None) -> None:
        if timeout is None and self._killed:  # a node that went away never confirms: never a hang
            timeout = KILL_WAIT_SECONDS
        if not self._poll(timeout) and self._killed:
            self._ended, self._exitcode = True, KILLED

    def terminate(self) -> None:
        if self._result is not None and not self._ended:
            with contextlib.suppress(Exception):  # gone already: nothing to stop
                self.supervisor.terminate.remote(self.team, self.agent_id)

    def kill(self) -> None:
        self._killed = True
        self.release()

    def release(self) -> None:
        """SIGKILL the agent's process if it still runs (its sandbox follows); the supervisor, shared,
        stays for the host's next team."""
        if self._result is not None and not self._ended:
            with contextlib.suppress(Exception):
                self.supervisor.kill.remote(self.team, self.agent_id)

    def _poll(self, timeout: float | None) -> bool:
        """Whether the agent has ended, waiting up to `timeout`; relays its report the first time."""
        if self._ended or self._result is None:
            return self._ended
        ray = self.transport.ray
        ready, _ = ray.wait([self._result], timeout=timeout)
        if not ready:
            return False
        try:
            exitcode, report = ray.get(self._result)
        except ray.exceptions.RayError as error:  # the supervisor was killed, or its node lost
            exitcode, report = KILLED, None
            if isinstance(error, ray.exceptions.RayActorError):
                POOL.discard(self.supervisor)
        self._ended = True
        self._exitcode = exitcode if type(exitcode) is int else KILLED
        if isinstance(report, str):
            _write_report(self.report_path, report)
            self.done.put(self.agent_id)
        self.release()
        return True


def _write_report(path: str, text: str) -> None:
    """Write then rename, as an agent does: the team reads a whole report or none."""
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)
