"""The embedded default store: one SQLite file under the user's data folder, no server.

Where: `$XDG_DATA_HOME/smol/runs.sqlite3`, or `~/.local/share/smol/runs.sqlite3` (`SQLiteStore(path)`
for another file). Why SQLite: it ships with Python, is safe across processes (each write is one
transaction), and in WAL mode a checkpoint costs one append to the log. `synchronous=NORMAL`: a
committed checkpoint survives the process being killed at any moment (what this store is for); only
a power cut may lose the last few, as with any WAL database in that mode.

One row per run holds its latest checkpoint (a run resumes from its latest step; older ones would
only grow the file); another holds its lease (see `durable/leases.py`). A checkpoint is replaced in
the same transaction that checks the lease, so a process that lost its run cannot write over it.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smol_core.durable.checkpoint import MAX_CHECKPOINT_BYTES, CheckpointTooLargeError
from smol_core.durable.errors import CheckpointFormatError, RunLockedError, StoreUnavailableError
from smol_core.durable.leases import describe, new_owner, owner_alive
from smol_core.durable.store import Lease, RunRecord, StoredCheckpoint

DEFAULT_LEASE_TTL = 900.0
"""Seconds a lease held from another host counts as live without being renewed (each step renews it)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    step INTEGER NOT NULL,
    status TEXT NOT NULL,
    updated_at REAL NOT NULL,
    agent TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    renewed_at REAL NOT NULL
);
"""


def default_store_path() -> Path:
    """`$XDG_DATA_HOME/smol/runs.sqlite3`, else `~/.local/share/smol/runs.sqlite3`."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "smol" / "runs.sqlite3"


def _private_folder(folder: Path, tighten: bool) -> None:
    """Make `folder` (0700: only its owner may list or enter it); `tighten` an existing one of ours
    too (the default store's folder holds nothing but smol's runs)."""
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    elif tighten and folder.stat().st_uid == os.getuid():
        os.chmod(folder, 0o700)


def _private_file(path: Path, create: bool = True) -> None:
    """Create `path` readable and writable by its owner only (0600, whatever the umask), or narrow an
    existing one of ours to that: a store holds every run's prompts, variables and tool results.

    An existing file is never opened here, only changed by its path: on POSIX, closing any
    descriptor of a file drops every lock this process holds on it, and SQLite's connections to the
    store in this process (another store object on the same file) rely on theirs (SQLite's "how to
    corrupt a database file", 2.2). A new file has no connection yet."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not create:
            return
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except FileExistsError:  # made meanwhile, by another process
            info = os.stat(path)
        else:
            os.close(fd)
            return
    if stat.S_IMODE(info.st_mode) & 0o077 and info.st_uid == os.getuid():
        os.chmod(path, 0o600)


class SQLiteStore:
    """Checkpoints in one SQLite file (WAL). Safe to share between threads and processes."""

    def __init__(
        self, path: str | os.PathLike[str] | None = None, lease_ttl: float = DEFAULT_LEASE_TTL
    ) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.lease_ttl = lease_ttl
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def __getstate__(self) -> dict[str, Any]:
        """Pickles as its file and lease TTL (a team hands it to each agent's process, which opens
        its own connection)."""
        return {"path": str(self.path), "lease_ttl": self.lease_ttl}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["lease_ttl"])  # type: ignore[misc]

    # --- connection ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            _private_folder(self.path.parent, tighten=self.path == default_store_path())
            _private_file(self.path)
            db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            for companion in ("-wal", "-shm"):  # SQLite gives them the store's mode; older ones may be wider
                _private_file(Path(f"{self.path}{companion}"), create=False)
        except (sqlite3.Error, OSError) as error:
            raise StoreUnavailableError(self._unavailable(error)) from None
        self._db = db
        return db

    def _unavailable(self, error: BaseException) -> str:
        return f"the run store {str(self.path)!r} cannot be used ({type(error).__name__}: {error}); fix its folder's permissions or pass another store"

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as error:
                raise StoreUnavailableError(self._unavailable(error)) from None

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            db = self._connect()
            try:
                return list(db.execute(sql, args).fetchall())
            except sqlite3.Error as error:
                raise StoreUnavailableError(self._unavailable(error)) from None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # --- leases -------------------------------------------------------------------------------
    def acquire(self, run_id: str) -> Lease:
        owner = new_owner()  # a token per lease: two resumes in one process are two owners too
        with self._transaction() as db:
            row = db.execute("SELECT owner, renewed_at FROM leases WHERE run_id = ?", (run_id,)).fetchone()
            if row is not None and owner_alive(row[0], row[1], self.lease_ttl):
                raise RunLockedError(
                    f"run {run_id!r} is being driven by {describe(row[0])}: "
                    "wait for it to end (or stop it) before resuming it here"
                )
            db.execute(
                "INSERT OR REPLACE INTO leases (run_id, owner, renewed_at) VALUES (?, ?, ?)",
                (run_id, owner, time.time()),
            )
        return Lease(run_id, owner)

    def release(self, lease: Lease) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM leases WHERE run_id = ? AND owner = ?", (lease.run_id, lease.owner))

    # --- checkpoints --------------------------------------------------------------------------
    def save(
        self,
        lease: Lease,
        step: int,
        data: bytes,
        *,
        status: str = "running",
        agent: str = "",
        task: str = "",
    ) -> None:
        if len(data) > MAX_CHECKPOINT_BYTES:  # no load would accept it: the last one that fits is kept
            raise CheckpointTooLargeError(
                f"the checkpoint of run {lease.run_id!r} is {len(data):,} bytes, over the {MAX_CHECKPOINT_BYTES:,} "
                "a checkpoint may be; it was not saved (the last one is kept): keep large data in files"
            )
        now = time.time()
        with self._transaction() as db:
            renewed = db.execute(
                "UPDATE leases SET renewed_at = ? WHERE run_id = ? AND owner = ?",
                (now, lease.run_id, lease.owner),
            ).rowcount
            if renewed != 1:
                raise RunLockedError(
                    f"run {lease.run_id!r} was taken over by another process: this one stops writing it"
                )
            db.execute(
                "INSERT OR REPLACE INTO runs (run_id, step, status, updated_at, agent, task, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (lease.run_id, step, status, now, agent, task[:500], sqlite3.Binary(data)),
            )

    def load(self, run_id: str) -> StoredCheckpoint | None:
        """The run's latest checkpoint; one past `MAX_CHECKPOINT_BYTES` is refused before it is read."""
        sizes = self._read("SELECT length(data) FROM runs WHERE run_id = ?", (run_id,))
        if not sizes:
            return None
        size = sizes[0][0]
        if type(size) is int and size > MAX_CHECKPOINT_BYTES:
            raise CheckpointFormatError(
                f"the checkpoint of run {run_id!r} is {size:,} bytes, over the {MAX_CHECKPOINT_BYTES:,} "
                "a checkpoint may be"
            )
        rows = self._read("SELECT step, status, data FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            return None
        step, status, data = rows[0]
        if not (_fits("step", step) and _fits("status", status) and type(data) is bytes):
            raise CheckpointFormatError(
                f"run {run_id!r} in the run store {str(self.path)!r} is corrupt (a row no smol wrote): "
                f"{self._delete_hint(run_id)}"
            )
        return StoredCheckpoint(run_id, step, status, data)

    def _delete_hint(self, run_id: str) -> str:
        """What to do with a corrupt row: the command that deletes it, where its id can be typed."""
        if not run_id.isprintable():
            return "use another store, or delete the file"
        return (
            f"delete it with `smol runs --store {shlex.quote(str(self.path))} delete {shlex.quote(run_id)}`"
        )

    def list(self) -> list[RunRecord]:
        """Every run, newest first; a row no smol wrote (a field of the wrong type or range) is a
        one-line `CheckpointFormatError` naming its run."""
        rows = self._read(
            "SELECT run_id, step, status, updated_at, length(data), agent, task FROM runs ORDER BY updated_at DESC"
        )
        return [self._record(row) for row in rows]

    def _record(self, row: tuple[Any, ...]) -> RunRecord:
        run_id, step, status, updated_at, size, agent, task = row
        if type(run_id) is not str or not run_id.isprintable() or len(run_id) > 200:
            raise CheckpointFormatError(
                f"the run store {str(self.path)!r} holds a row no smol wrote (its run id is {str(run_id)[:40]!r}): "
                "use another store, or delete the file"
            )
        fields = {
            "step": step,
            "status": status,
            "updated at": updated_at,
            "size": size,
            "agent": agent,
            "task": task,
        }
        bad = next((name for name, value in fields.items() if not _fits(name, value)), None)
        if bad is not None:
            raise CheckpointFormatError(
                f"run {run_id!r} in the run store {str(self.path)!r} is corrupt (its {bad} is "
                f"{str(fields[bad])[:40]!r}): {self._delete_hint(run_id)}"
            )
        return RunRecord(run_id, step, status, float(updated_at), size, agent, task)

    def delete(self, run_id: str) -> bool:
        with self._transaction() as db:
            found = db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,)).rowcount
            db.execute("DELETE FROM leases WHERE run_id = ?", (run_id,))
        return bool(found)


def _fits(name: str, value: Any) -> bool:
    """Whether a column of a `runs` row holds what smol writes there."""
    if name in ("step", "size"):
        return type(value) is int and 0 <= value <= 10**12
    if name == "updated at":
        return type(value) in (int, float) and math.isfinite(value) and 0 <= value < 10**11
    return type(value) is str
