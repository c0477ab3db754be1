"""Where a team's agents run: local processes by default, or wherever a transport plugin puts them.

A team needs little of an agent's process: start it, ask whether it is alive and how it ended,
stop it (SIGTERM, then SIGKILL). `multiprocessing.Process` is exactly that, and so is any stand-in
a transport plugin offers through `TransportSpec.launcher` (the `ray` transport starts each agent
on its Ray cluster), so the host keeps the same shutdown rules wherever the agents are.

What the host learns from an agent still arrives as it does from a local one: a report file in the
team's folder and the agent's id on the `done` queue. A launcher that runs agents elsewhere relays
both on the host's side when its agent ends, so the team reads every agent the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from smol_core.teams.start_method import with_host_environment
from smol_core.teams.status import PeerStatus


@runtime_checkable
class AgentProcess(Protocol):
    """The part of `multiprocessing.Process` a team uses, for one agent."""

    @property
    def pid(self) -> int | None:
        """Not None once started (an agent on another machine may give 0: it is no local process)."""
        ...

    @property
    def exitcode(self) -> int | None:
        """None while the agent runs; then its exit status (negative: the signal that ended it)."""
        ...

    def start(self) -> None: ...

    def is_alive(self) -> bool: ...

    def terminate(self) -> None:
        """Ask the agent to stop (SIGTERM): it stops where it is and reports what it did."""
        ...

    def kill(self) -> None:
        """Stop the agent now (SIGKILL)."""
        ...

    def join(self, timeout: float | None = None) -> None: ...


@runtime_checkable
class AgentLauncher(Protocol):
    """Makes a team's agent processes, and the status every agent and the host share."""

    def peer_status(self, num_agents: int) -> PeerStatus:
        """Which agents run, wait or have ended, readable by the host and by every agent."""
        ...

    def process(self, target: Callable[..., None], args: tuple[Any, ...], name: str) -> AgentProcess:
        """An agent process, not started yet, that will run `target(*args)`."""
        ...

    def close(self) -> None:
        """After the run: release whatever the launcher holds (every agent is stopped by then)."""
        ...


def with_worker_template(template: str | None, target: Callable[..., None], *args: Any) -> None:
    """`target(*args)` in an agent whose sandbox workers fork from the host's template at
    `template` (its socket; None: they start as new interpreters)."""
    if template is not None:
        from smol_core.executors.host.process import TEMPLATE

        TEMPLATE.join(template)
    target(*args)


class LocalLauncher:
    """Each agent a child process of the host, forked from the warm fork server or spawned
    (`start_method.py`): the default."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self._template: str | bool | None = False  # False: not asked yet

    def peer_status(self, num_agents: int) -> PeerStatus:
        return PeerStatus(num_agents, self.context.get_start_method())

    def process(self, target: Callable[..., None], args: tuple[Any, ...], name: str) -> AgentProcess:
        # not daemonic: an agent's tools may start processes of their own; the host stops every
        # agent itself, and the kernel does if the host dies
        # a forked agent takes the host's environment as it is now, as a spawned one inherits it
        joined = functools.partial(with_worker_template, self._shared_template(), target)
        process: AgentProcess = self.context.Process(
            target=with_host_environment(self.context, joined), args=args, name=name
        )
        return process

    def _shared_template(self) -> str | None:
        """The host's warm worker template, shared with the agents (`smol_core.executors.host.template`): each
        agent's sandbox worker is then a fork of it, not a new interpreter. None where it cannot be."""
        if self._template is False:
            from smol_core.executors.host.process import TEMPLATE

            self._template = TEMPLATE.share()
        return self._template if isinstance(self._template, str) else None

    def close(self) -> None:
        """Nothing held: the processes were joined by the team."""
