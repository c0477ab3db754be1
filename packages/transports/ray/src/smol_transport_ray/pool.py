"""The host's supervisor actors, kept warm between its teams: one set per placement.

Why: a supervisor is a Ray worker process (a second or two of CPU to start, several under load)
with a warm agent template beside it (`forks`: the agent loop, the registry, the model's module and
the relay, imported once). Made for every team and killed after it, they were most of a small
team's time; kept, a host's second team on the same nodes starts by forking, as a local team
starts from the host's fork server.

What stays between teams is the supervisors and their templates, never an agent: every agent's
process ends with its team (the host stops them all, and the launcher kills what is left). The
supervisors are not detached: they end with the host's Ray connection (`ray.shutdown()`, the
host's exit), as the local fork server ends with its host, or at `close_supervisors()`.
A supervisor serves at most `agents_per_worker` agents at once, over all of the host's teams.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from smol_transport_ray import supervisor as supervisor_module
from smol_transport_ray.cluster import NAMESPACE


class SupervisorPool:
    """The supervisors this host made, by placement (`agent_options` entry), with their load."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job: str | None = None
        self._made: dict[str, list[list[Any]]] = {}
        """placement key -> [supervisor actor, agents it runs now], in the order made."""

    def acquire(self, ray: Any, options: Mapping[str, Any], per_worker: int, modules: Sequence[str]) -> Any:
        """A supervisor placed by `options` with room for one more agent: a warm one, or a new one
        (which starts warming its templates at once, `modules` imported in its agent template)."""
        key = repr(sorted(options.items()))
        with self._lock:
            self._forget_if_reconnected(ray)
            made = self._made.setdefault(key, [])
            for entry in made:
                if entry[1] < per_worker:
                    entry[1] += 1
                    return entry[0]
            remote = ray.remote(supervisor_module.AgentSupervisor)
            actor = remote.options(
                name=f"smol-agents-{uuid.uuid4().hex[:12]}",
                namespace=NAMESPACE,
                max_restarts=0,
                # each agent's `run` holds a call for as long as it runs; stop requests need room too
                max_concurrency=2 * per_worker + 4,
                **options,
            ).remote()
            actor.warm.remote(list(modules))
            made.append([actor, 1])
            return actor

    def release(self, actor: Any) -> None:
        """One agent of `actor` has ended: room for another."""
        with self._lock:
            for made in self._made.values():
                for entry in made:
                    if entry[0] is actor:
                        entry[1] = max(0, entry[1] - 1)

    def discard(self, actor: Any) -> None:
        """`actor` is gone (killed, or its node lost): the next agent gets another."""
        with self._lock:
            for key, made in self._made.items():
                self._made[key] = [entry for entry in made if entry[0] is not actor]

    def close(self, ray: Any) -> None:
        """Kill every supervisor (and so its templates): their nodes' memory back, at a first team's
        cost for the next."""
        with self._lock:
            made, self._made = self._made, {}
        for entries in made.values():
            for actor, _ in entries:
                with contextlib.suppress(Exception):  # gone already (its node with it)
                    ray.kill(actor, no_restart=True)

    def _forget_if_reconnected(self, ray: Any) -> None:
        """Supervisors made over an earlier connection of this process died with it."""
        job = str(ray.get_runtime_context().get_job_id())
        if job != self._job:
            self._job, self._made = job, {}


POOL = SupervisorPool()
"""This host process's supervisors."""


def close_supervisors() -> None:
    """Kill this host's warm supervisors and their templates, and its spare mailbox, now (they end
    with its Ray connection in any case). No team of this host may be running."""
    import ray

    from smol_transport_ray.spares import SPARES

    if ray.is_initialized():
        POOL.close(ray)
        SPARES.close(ray)


def placements(options: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """`agent_options` as the list agents take in turn; an agent takes no CPU slot unless asked."""
    entries = [options] if options is None or isinstance(options, Mapping) else list(options)
    # an agent mostly waits on its model: by default it takes no CPU slot, so a team larger
    # than the cluster's CPU count still starts (pass {"num_cpus": 1} to reserve one each)
    return [{"num_cpus": 0, **(entry or {})} for entry in entries] or [{"num_cpus": 0}]
