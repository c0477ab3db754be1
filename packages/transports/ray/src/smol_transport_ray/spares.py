"""A spare mailbox, made empty ahead of the host's next team, so that its worker has started by then.

Why: each team's mailbox is an actor of its own, and a new actor answers only once Ray has started
a worker process for it: 1.1 to 2.5 s on a loaded 2-core machine, most of what a team of 64 on
warm nodes took beyond a local one. A host that runs a second team is likely to run more, so from
its second team on it keeps one spare: the next team configures it (`Mailbox.configure`, once, so
a spare someone else configured first is left alone and the team makes its own) and a new spare
is made for the team after. A host that runs one team (the command line) makes none.

The spare is the host's, not detached: it ends with the host's Ray connection, or at
`close_supervisors()`. It holds nothing until its team configures it.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from typing import Any

from smol_transport_ray.cluster import NAMESPACE


class SpareMailboxes:
    """This host's one spare mailbox, (team id, actor), and how many teams it has opened."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job: str | None = None
        self._spare: tuple[str, Any] | None = None
        self._opened = 0

    def take(self, ray: Any) -> tuple[str, Any] | None:
        """The spare for a new team (None: there is none), and one more team opened."""
        with self._lock:
            self._forget_if_reconnected(ray)
            self._opened += 1
            spare, self._spare = self._spare, None
            return spare

    def replenish(self, ray: Any, remote: Any) -> None:
        """Make a spare for the next team, from the host's second team on (`remote`: the mailbox's
        actor class, as the transport made it)."""
        with self._lock:
            if self._spare is not None or self._opened < 2:
                return
            team = uuid.uuid4().hex
            actor = remote.options(
                name=f"smol-team-{team}", namespace=NAMESPACE, lifetime="non_detached"
            ).remote([], 0)
            self._spare = (team, actor)

    def names(self) -> list[str]:
        """The spare's actor name, if there is one."""
        with self._lock:
            return [] if self._spare is None else [f"smol-team-{self._spare[0]}"]

    def close(self, ray: Any) -> None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(Exception):  # gone already
                ray.kill(spare[1], no_restart=True)

    def _forget_if_reconnected(self, ray: Any) -> None:
        job = str(ray.get_runtime_context().get_job_id())
        if job != self._job:
            self._job, self._spare, self._opened = job, None, 0


SPARES = SpareMailboxes()
