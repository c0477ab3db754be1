"""The SQLite store never opens and closes its own descriptor on the database files: on POSIX,
closing any descriptor of a file drops every lock this process holds on it, the locks SQLite's
connections in this process rely on. A second store object on the same file (a harness, a team host,
`smol runs` beside a run) made the first one's read locks vanish, and a writer in another process
checkpointed the log under it: "database disk image is malformed", seen in the kill benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from smol_core.durable import SQLiteStore

CHECKPOINT = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=0.1, isolation_level=None)
busy, log, done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
print(busy)
"""


def test_a_second_store_on_the_file_leaves_the_first_ones_read_locks_in_place(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    first = SQLiteStore(path)
    lease = first.acquire("r1")
    first.save(lease, 1, b"{}" * 1000)  # frames in the write-ahead log
    reader = first._connect()
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM runs").fetchall()  # a read transaction: it holds a read lock
    second = SQLiteStore(path)
    assert second.list()  # opens the same file in this process
    done = subprocess.run(
        [sys.executable, "-c", CHECKPOINT, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1", "another process truncated the log under a reader of this one"
    reader.execute("COMMIT")
    second.close()
    first.close()
