"""Scratch folders left by a host that was killed outright are removed by the next host."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from smol_core.executors.host.scratch import PREFIX, make_scratch, sweep_orphans


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def test_folders_of_dead_hosts_go_and_the_others_stay(tmp_path: Path) -> None:
    orphan = tmp_path / f"{PREFIX}{dead_pid()}-abc"
    orphan.mkdir()
    (orphan / "left.txt").write_text("x")
    mine = tmp_path / f"{PREFIX}{os.getpid()}-def"
    mine.mkdir()
    init = tmp_path / f"{PREFIX}1-ghi"  # pid 1 runs: not an orphan
    init.mkdir()
    unrelated = tmp_path / "smol-scratch-nopid"  # the old naming: nobody to ask, left alone
    unrelated.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f"{PREFIX}{dead_pid()}-link"
    link.symlink_to(target)
    assert sweep_orphans(str(tmp_path)) == [str(orphan)]
    assert not orphan.exists() and mine.exists() and init.exists() and unrelated.exists() and target.exists()


def test_a_new_scratch_folder_names_its_host(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    made = Path(make_scratch())
    assert made.parent == tmp_path and made.name.startswith(f"{PREFIX}{os.getpid()}-")


def test_the_temporary_directory_is_swept_at_most_once_a_minute(tmp_path: Path, monkeypatch) -> None:
    """Every executor makes a scratch folder; listing a busy /tmp for each would be its slowest part."""
    from smol_core.executors.host import scratch

    sweeps: list[None] = []
    monkeypatch.setattr(scratch, "sweep_orphans", lambda: sweeps.append(None))
    monkeypatch.setattr(scratch, "_last_sweep", None)
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(tmp_path))
    for _ in range(3):
        scratch.make_scratch()
    assert len(sweeps) == 1
    monkeypatch.setattr(scratch, "_last_sweep", scratch.time.monotonic() - scratch.SWEEP_INTERVAL_SECONDS - 1)
    scratch.make_scratch()
    assert len(sweeps) == 2
