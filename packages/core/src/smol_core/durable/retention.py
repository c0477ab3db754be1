"""Which runs a store forgets: by age, by count, by total size, never one that is being driven.

Why: a store keeps every run until someone deletes it, and a run's checkpoint holds its whole memory
and sandbox variables (megabytes for a run that read a few files). `smol runs prune` and the chat
page (which starts a run for every task typed into it) use this to bound what a store keeps.

Why through the lease: a run whose lease is live is being driven right now (or was moments ago by a
process that may still be writing). Each run chosen is taken with the store's `acquire` before it is
deleted; a `RunLockedError` means it is live, and it is kept and reported. Only the
`CheckpointStore` protocol is used (list, acquire, delete, release), so every store plugin prunes the
same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from smol_core.durable.errors import RunLockedError
from smol_core.durable.store import CheckpointStore, Lease, RunRecord
from smol_core.durable.sub_runs import top_runs

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_SECONDS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_BYTES = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_duration(text: str) -> float:
    """Seconds in `text`: `90s`, `30m`, `12h`, `7d`, `2w` (a bare number is seconds)."""
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration: write a number and a unit, such as 12h or 7d")
    return float(match.group(1)) * _SECONDS[match.group(2)]


def parse_size(text: str) -> int:
    """Bytes in `text`: `500000`, `200K`, `50MB`, `1G` (binary units: 1K is 1,024 bytes)."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a size: write bytes, or a number and K, M or G, such as 50M")
    return int(float(match.group(1)) * _BYTES[match.group(2).lower()])


@dataclass(frozen=True)
class RetentionPolicy:
    """What to forget. A run goes when any rule names it: older than `older_than` seconds (since its
    last checkpoint); past the newest `keep`; or among the oldest while the runs' total size is over
    `max_bytes`. Only runs whose status is in `statuses` (all when empty) and that `select` accepts
    are considered, and counted."""

    older_than: float | None = None
    keep: int | None = None
    max_bytes: int | None = None
    statuses: Collection[str] = ()
    select: Callable[[RunRecord], bool] | None = None

    def __post_init__(self) -> None:
        if self.older_than is None and self.keep is None and self.max_bytes is None:
            raise ValueError(
                "say what to prune: --older-than, --keep or --max-size (with --dry-run to look first)"
            )
        for name in ("older_than", "keep", "max_bytes"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name.replace('_', '-')} cannot be negative ({value})")

    def considers(self, record: RunRecord) -> bool:
        if self.statuses and record.status not in self.statuses:
            return False
        return self.select is None or self.select(record)

    def doomed(self, records: list[RunRecord], now: float) -> list[RunRecord]:
        """The runs of `records` (newest first, as `CheckpointStore.list` gives them) the rules name."""
        return [record for team in self.doomed_teams(records, now) for record in team]

    def doomed_teams(self, records: list[RunRecord], now: float) -> list[list[RunRecord]]:
        """The runs the rules name, each with the sub-runs of the team members it called (first the
        run, then its sub-runs): the rules judge a run and its sub-runs as one, by the run's status,
        their latest save and their total size, so a sub-run never goes without its manager's run."""
        teams = _teams(records)
        heads = sorted((team for team in teams if self.considers(team[0])), key=_last_saved, reverse=True)
        doomed: set[str] = set()
        if self.older_than is not None:
            doomed.update(team[0].run_id for team in heads if now - _last_saved(team) > self.older_than)
        if self.keep is not None:
            doomed.update(team[0].run_id for team in heads[self.keep :])
        if self.max_bytes is not None:
            total = sum(_size(team) for team in heads)
            for oldest in reversed(heads):
                if total <= self.max_bytes:
                    break
                doomed.add(oldest[0].run_id)
                total -= _size(oldest)
        return [team for team in heads if team[0].run_id in doomed]


def _teams(records: list[RunRecord]) -> list[list[RunRecord]]:
    """`records` grouped by the run at the top of each team, that run first."""
    tops = top_runs(record.run_id for record in records)
    teams: dict[str, list[RunRecord]] = {}
    for record in sorted(records, key=lambda record: record.run_id != tops[record.run_id]):
        teams.setdefault(tops[record.run_id], []).append(record)
    return list(teams.values())


def _last_saved(team: list[RunRecord]) -> float:
    return max(record.updated_at for record in team)


def _size(team: list[RunRecord]) -> int:
    return sum(record.size for record in team)


@dataclass
class PruneReport:
    """What a prune did (or, dry, would do): the runs removed, and those kept because they are live."""

    removed: list[RunRecord] = field(default_factory=list)
    live: list[RunRecord] = field(default_factory=list)
    dry_run: bool = False

    @property
    def removed_bytes(self) -> int:
        return sum(r.size for r in self.removed)


def prune_runs(
    store: CheckpointStore, policy: RetentionPolicy, dry_run: bool = False, now: float | None = None
) -> PruneReport:
    """Delete the runs `policy` names, each under its lease (a live one is kept and reported, with
    the rest of its team); `dry_run`: delete nothing, report what would go."""
    report = PruneReport(dry_run=dry_run)
    for team in policy.doomed_teams(store.list(), time.time() if now is None else now):
        leases = _leased(store, team)
        if leases is None:
            report.live.extend(team)
            continue
        try:
            if not dry_run:
                for record in team:
                    store.delete(record.run_id)
        finally:
            for lease in leases:
                store.release(lease)
        report.removed.extend(team)
    return report


def _leased(store: CheckpointStore, team: list[RunRecord]) -> list[Lease] | None:
    """The leases of every run of `team`; None (and none held) where one of them is driven now."""
    leases: list[Lease] = []
    try:
        for record in team:
            leases.append(store.acquire(record.run_id))
    except RunLockedError:
        for lease in leases:
            store.release(lease)
        return None
    return leases
