"""A folder handed to the janitor is removed when its owner ends, even by SIGKILL (no clean-up of
its own runs), and only then."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

OWNER = """
import sys, tempfile
from smol_core.janitor import remove_when_gone
folder = tempfile.mkdtemp(prefix="owned-", dir=sys.argv[1])
open(folder + "/file", "w").write("x")
assert remove_when_gone(folder)
print(folder, flush=True)
sys.stdin.read()  # until the test kills it
"""


def _wait_gone(path: Path) -> bool:
    deadline = time.monotonic() + 30  # only a hang takes this long
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not path.exists()


def test_a_killed_owner_leaves_no_folder(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert owner.stdout is not None
    folder = Path(owner.stdout.readline().strip())
    assert folder.is_dir() and (folder / "file").exists()  # kept while its owner lives
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait(30)
    assert _wait_gone(folder)


def test_an_owner_that_ends_normally_leaves_no_folder(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert owner.stdout is not None and owner.stdin is not None
    folder = Path(owner.stdout.readline().strip())
    owner.stdin.close()
    assert owner.wait(30) == 0
    assert _wait_gone(folder)
