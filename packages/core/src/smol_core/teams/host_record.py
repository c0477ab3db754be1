"""A durable team's own record, kept in its checkpoint store beside its agents' runs, so that a new
host can take the team over after its host died.

What only the host holds: the task, how many agents, which transport and the transport's name for
the team (where its inboxes are: `smol:<team>:` on Redis), and the team's signing key
(`identity.py`). The agents' runs are in the store already (`RUN_ID.agent-N`); with this record
under `RUN_ID` itself, `Team.resume(RUN_ID)` rebuilds the same keys (so what was sealed before the
host died still checks out, and each agent's Redis ACL user gets the same password again), joins
the same inboxes and starts every agent to resume its run.

The record holds the team key in clear while the team can still be resumed, and drops it when the
team finishes: the store is the user's own (SQLite: a 0600 file in a private folder), the place
that already holds every agent's memory and sandbox variables. It holds no transport settings (no
URL, no password file): the resuming host is given the same ones again by its user.

Only a transport whose queues live outside the host (`survives_host = True`: Redis) can be taken
over; a team on local inboxes lost its unread messages with its host, and its record says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from smol_core.durable.errors import (
    CheckpointError,
    CheckpointFormatError,
    RunFinishedError,
    RunNotFoundError,
)
from smol_core.durable.store import CheckpointStore, Lease
from smol_core.teams.identity import TeamKeys

RECORD_FORMAT = "smol-team-host/1"
TEAM_LABEL = "Team"
"""What `smol runs list` shows as the record's agent: it is the team's run, not one agent's."""


@dataclass(frozen=True)
class HostRecord:
    """What a new host needs to take a durable team over."""

    run_id: str
    task: str
    num_agents: int
    transport: str
    team: str | None
    """The transport's name for the team, where its queues outlive the host; None where they do not."""
    team_key: bytes | None

    def keys(self) -> TeamKeys | None:
        """The team's keys as its first host drew them, or None where it drew none."""
        if self.team_key is None:
            return None
        return TeamKeys(range(self.num_agents), team_key=self.team_key)

    def joining(self) -> dict[str, Any]:
        """The transport's arguments that make it join the team's queues with the team's keys."""
        joined: dict[str, Any] = {"team": self.team}
        keys = self.keys()
        if keys is not None:
            joined["credentials"] = keys
        return joined


def record_for(run_id: str, task: str, num_agents: int, transport_name: str, transport: Any) -> HostRecord:
    """The record of a team whose host just made `transport` (and issued its keys)."""
    survives = bool(getattr(transport, "survives_host", False))
    keys = getattr(transport, "credentials", None)
    return HostRecord(
        run_id=run_id,
        task=task,
        num_agents=num_agents,
        transport=transport_name,
        team=str(transport.team) if survives else None,
        team_key=keys.secret() if survives and isinstance(keys, TeamKeys) else None,
    )


def save_host_record(
    store: CheckpointStore, lease: Lease, record: HostRecord, status: str = "running"
) -> None:
    """Write the record under `lease` (the host's, held while it drives the team, so that a second
    host is refused): "running" while a host drives the team, "stopped" (resumable) or "finished"
    (not resumable, and its key dropped) after."""
    if status == "finished":
        record = replace(record, team_key=None)
    data = {
        "format": RECORD_FORMAT,
        "task": record.task,
        "num_agents": record.num_agents,
        "transport": record.transport,
        "team": record.team,
        "team_key": None if record.team_key is None else record.team_key.hex(),
    }
    encoded = json.dumps(data).encode("utf-8")
    store.save(lease, 0, encoded, status=status, agent=TEAM_LABEL, task=record.task)


def take_over(store: CheckpointStore, run_id: str, num_agents: int, transport: str) -> HostRecord:
    """The record of team run `run_id`, checked for a team of `num_agents` over `transport` to resume
    (read under the run's lease, which the caller holds: no live host drives the team).

    Each refusal is one line that says what to do: no such team, a finished one, a record that is
    not a team's, a team whose queues died with its host, or a team started otherwise."""
    stored = store.load(run_id)
    if stored is None:
        raise RunNotFoundError(
            f"no team run {run_id!r} in {store!r}: `smol runs list` shows the runs there (a team's is "
            "listed under the run id it was started with, its agent 'Team')"
        )
    record = _decoded(stored.data, run_id)
    if stored.status == "finished":
        raise RunFinishedError(f"team run {run_id!r} already finished: there is nothing to resume")
    if record.team is None:
        raise CheckpointError(
            f"team run {run_id!r} ran over the {record.transport!r} transport, whose inboxes died with its "
            f"host: it cannot be resumed as a team (each agent's run can be: `smol runs resume {run_id}.agent-0`)"
        )
    if (record.num_agents, record.transport) != (num_agents, transport):
        raise CheckpointError(
            f"team run {run_id!r} was started with {record.num_agents} agents over {record.transport!r}, not "
            f"{num_agents} over {transport!r}: resume it with the same number of agents and transport"
        )
    return record


def _decoded(data: bytes, run_id: str) -> HostRecord:
    """The stored record, checked: the store is the user's, but a run of another kind may sit under
    the id (a single agent's run)."""
    not_a_team = CheckpointFormatError(
        f"run {run_id!r} is not a team's run (an agent's run is resumed with `smol runs resume {run_id}`)"
    )
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise not_a_team from None
    if not isinstance(raw, dict) or raw.get("format") != RECORD_FORMAT:
        raise not_a_team
    task, count, transport = raw.get("task"), raw.get("num_agents"), raw.get("transport")
    team, key = raw.get("team"), raw.get("team_key")
    if not (isinstance(task, str) and type(count) is int and count > 0 and isinstance(transport, str)):
        raise CheckpointFormatError(f"the record of team run {run_id!r} is corrupt")
    if not (team is None or isinstance(team, str)) or not (key is None or isinstance(key, str)):
        raise CheckpointFormatError(f"the record of team run {run_id!r} is corrupt")
    try:
        team_key = None if key is None else bytes.fromhex(key)
    except ValueError:
        raise CheckpointFormatError(f"the record of team run {run_id!r} is corrupt (its key)") from None
    return HostRecord(run_id, task, count, transport, team, team_key)
