"""Files a run writes are its owner's alone: 0600 files in a 0700 folder, whatever the umask.

Before: the store, its WAL and cassettes were created 0644, readable by every local user (a run's
prompts, variables and tool results).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from smol_core.durable import SQLiteStore
from smol_core.replay.cassette import CassetteWriter


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def _umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_the_default_store_its_wal_and_folder_are_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = SQLiteStore()
    lease = store.acquire("r1")
    store.save(lease, 1, b"checkpoint")
    try:
        assert store.path == tmp_path / "data" / "smol" / "runs.sqlite3"
        assert _mode(store.path.parent) == 0o700
        for name in ("runs.sqlite3", "runs.sqlite3-wal", "runs.sqlite3-shm"):
            assert _mode(store.path.parent / name) == 0o600, name
    finally:
        store.close()


def test_a_store_left_readable_by_an_older_smol_is_narrowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    folder = tmp_path / "smol"
    folder.mkdir(mode=0o755)
    (folder / "runs.sqlite3").touch(mode=0o644)
    os.chmod(folder / "runs.sqlite3", 0o644)
    store = SQLiteStore()
    store.list()
    store.close()
    assert _mode(folder) == 0o700 and _mode(folder / "runs.sqlite3") == 0o600


def test_a_store_elsewhere_is_private_and_its_existing_folder_left_alone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    store = SQLiteStore(shared / "new" / "runs.sqlite3")
    store.release(store.acquire("r1"))
    store.close()
    assert _mode(shared) == 0o755  # the user's folder: not ours to change
    assert _mode(shared / "new") == 0o700 and _mode(shared / "new" / "runs.sqlite3") == 0o600


def test_a_cassette_is_private(tmp_path: Path) -> None:
    writer = CassetteWriter(tmp_path / "tapes" / "run.jsonl", "task")
    writer.close()
    assert _mode(tmp_path / "tapes") == 0o700 and _mode(tmp_path / "tapes" / "run.jsonl") == 0o600


def test_a_cassette_recorded_over_a_readable_one_is_private(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    tape.write_text("old")
    os.chmod(tape, 0o644)
    CassetteWriter(tape, "task").close()
    assert _mode(tape) == 0o600
