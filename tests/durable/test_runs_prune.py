"""`smol runs prune`: forget runs by age, count, total size and status; a dry run lists what would go;
a run whose lease is live (being driven now) is never removed."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from smol_core.cli import smol
from smol_core.durable import SQLiteStore

DAY = 86400.0


def _store(path: Path, runs: dict[str, tuple[float, str, int]]) -> SQLiteStore:
    """Runs by id: (age in days, status, checkpoint bytes); ages set in the file, as time would."""
    store = SQLiteStore(path)
    for run_id, (_, status, size) in runs.items():
        lease = store.acquire(run_id)
        store.save(lease, 1, b"x" * size, status=status)
        store.release(lease)
    with sqlite3.connect(path) as db:
        for run_id, (age, _, _) in runs.items():
            db.execute("UPDATE runs SET updated_at = ? WHERE run_id = ?", (time.time() - age * DAY, run_id))
    return store


RUNS = {
    "new": (0.1, "finished", 1000),
    "paused": (2, "awaiting_approval", 1000),
    "week-old": (8, "finished", 3000),
    "month-old": (30, "running", 5000),
}


def _prune(path: Path, *options: str) -> int:
    return smol.main(["runs", "--store", str(path), "prune", *options])


def _left(store: SQLiteStore) -> set[str]:
    return {record.run_id for record in store.list()}


def test_older_than(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, "--older-than", "7d") == 0
    assert _left(store) == {"new", "paused"}
    assert "deleted 2 run(s), 8,000 B" in capsys.readouterr().out


def test_keep_the_newest(tmp_path: Path) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, "--keep", "1") == 0
    assert _left(store) == {"new"}


def test_max_size_prunes_the_oldest_first(tmp_path: Path) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, "--max-size", "4K") == 0  # 10,000 B in all: the two oldest go
    assert _left(store) == {"new", "paused"}


def test_status_limits_what_is_considered(tmp_path: Path) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, "--status", "finished", "--keep", "0") == 0
    assert _left(store) == {"paused", "month-old"}


def test_a_dry_run_lists_and_deletes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, "--older-than", "12h", "--dry-run") == 0
    out = capsys.readouterr().out
    assert _left(store) == set(RUNS)
    assert "would delete 3 run(s)" in out and "month-old" in out and "new " not in out


def test_a_run_being_driven_is_never_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    driver = SQLiteStore(store.path)  # another store object: as another process holds it
    lease = driver.acquire("month-old")
    try:
        assert _prune(store.path, "--keep", "0") == 0
        assert _left(store) == {"month-old"}
        assert "kept month-old: it is being driven now" in capsys.readouterr().out
        driver.save(lease, 2, b"still mine")  # the driver's lease survived the prune
    finally:
        driver.release(lease)


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ((), "say what to prune"),
        (("--older-than", "soon"), "not a duration"),
        (("--max-size", "lots"), "not a size"),
        (("--keep", "-1"), "cannot be negative"),
    ],
)
def test_bad_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], said: str
) -> None:
    store = _store(tmp_path / "r.sqlite3", RUNS)
    assert _prune(store.path, *options) == 2
    error = capsys.readouterr().err
    assert said in error and len(error.strip().splitlines()) == 1
    assert _left(store) == set(RUNS)
