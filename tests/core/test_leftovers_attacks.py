"""Attacks on the sweep of what dead runs leave (`smol_core.leftovers`): it removes only this user's
things, only those whose owner is provably gone (or no live socket, no mapping) and over a minute
old, and never something alive, whatever names, links, paths and races it meets."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_leftovers import dead_pid, kill_group, make_old

from smol_core import leftovers
from smol_core.leftovers import sweep, sweep_fork_server_folders, sweep_owned_folders

pytestmark = pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="needs Linux's /proc")


@pytest.fixture
def listening_in() -> Iterator[object]:
    """Binds and listens on a Unix socket at a path, as a live fork server or Manager does."""
    sockets: list[socket.socket] = []

    def listen(path: Path) -> None:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen()
        sockets.append(server)

    yield listen
    for server in sockets:
        server.close()


def test_a_live_fork_server_under_a_temporary_directory_with_a_space_stays(
    tmp_path: Path, listening_in
) -> None:
    """/proc/net/unix prints a socket's path as it is, spaces included: a TMPDIR such as
    "/tmp/build 2" must not make a live fork server's socket look like nobody's."""
    root = tmp_path / "build 2"
    live = root / "pymp-live"
    live.mkdir(parents=True)
    listening_in(live / "listener-1")
    make_old(live)
    assert sweep_fork_server_folders(str(root)) == []
    assert live.exists()


def test_a_dead_fork_server_under_a_temporary_directory_with_a_space_goes(tmp_path: Path) -> None:
    root = tmp_path / "build 2"
    dead = root / "pymp-dead"
    dead.mkdir(parents=True)
    bound = socket.socket(socket.AF_UNIX)
    bound.bind(str(dead / "listener-1"))
    bound.close()  # the socket file stays; nobody listens on it any more
    make_old(dead)
    assert sweep_fork_server_folders(str(root)) == [str(dead)]


def test_a_young_folder_of_a_dead_owner_is_left_for_later(tmp_path: Path) -> None:
    """The docs promise "only those over a minute old", for smol's own folders as for the others."""
    young = tmp_path / f"smol-team-{dead_pid()}-young"
    young.mkdir()
    assert sweep(str(tmp_path), shared_memory=str(tmp_path / "no-shm")) == []
    assert young.exists()


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second actor replaces the checked folder with a link to something precious between the
    check and the removal: the removal refuses the link and the precious folder stays whole."""
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "work.txt").write_text("keep me")
    orphan = tmp_path / f"smol-scratch-{dead_pid()}-race"
    orphan.mkdir()
    make_old(orphan)
    checked = leftovers._ours

    def check_then_swap(path: str, want) -> bool:
        answer = checked(path, want)
        if answer and path == str(orphan):
            shutil.rmtree(orphan)
            orphan.symlink_to(precious)
        return answer

    monkeypatch.setattr(leftovers, "_ours", check_then_swap)
    sweep_owned_folders(str(tmp_path))
    assert (precious / "work.txt").read_text() == "keep me"


@pytest.mark.skipif(os.getuid() != 0, reason="making another user's files needs root")
def test_another_users_things_are_never_touched(tmp_path: Path) -> None:
    stranger = 4242
    theirs = [tmp_path / f"smol-team-{dead_pid()}-theirs", tmp_path / "pymp-theirs"]
    for folder in theirs:
        folder.mkdir()
    bound = socket.socket(socket.AF_UNIX)
    bound.bind(str(theirs[1] / "listener-1"))
    bound.close()
    semaphores = tmp_path / "shm"
    semaphores.mkdir()
    semaphore = semaphores / "sem.mp-theirs"
    semaphore.write_bytes(b"\0" * 32)
    for path in (*theirs, semaphore):
        os.chown(path, stranger, stranger)
        make_old(path)
    assert sweep(str(tmp_path), shared_memory=str(semaphores)) == []
    assert all(path.exists() for path in (*theirs, semaphore))


def test_a_live_process_whose_pid_names_the_folder_keeps_it(tmp_path: Path) -> None:
    """An owner id that is not a number a kill can take (huge, zero) is never proof of death."""
    kept = [
        tmp_path / "smol-team-0-zero",
        tmp_path / f"smol-team-{2**70}-huge",
        tmp_path / f"smol-team-{os.getppid()}-parent",
    ]
    for folder in kept:
        folder.mkdir()
        make_old(folder)
    assert sweep_owned_folders(str(tmp_path)) == []
    assert all(folder.exists() for folder in kept)


MANAGER = """
import multiprocessing, sys, time
from multiprocessing import util
folder = util.get_temp_dir()  # made first, so the forked Manager server listens in it
manager = multiprocessing.get_context("fork").Manager()
print(folder, flush=True)
time.sleep(600)
"""


def test_a_live_managers_folder_stays(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-c", MANAGER], env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        folder = Path(process.stdout.readline().strip())
        assert any(path.is_socket() for path in folder.iterdir()), "the Manager made no socket"
        make_old(folder)
        assert sweep_fork_server_folders(str(tmp_path)) == []
        assert folder.exists()
    finally:
        kill_group(process)  # the Manager's server too


def test_a_link_inside_a_dead_owners_folder_is_removed_not_followed(tmp_path: Path) -> None:
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "work.txt").write_text("keep me")
    orphan = tmp_path / f"smol-team-{dead_pid()}-links"
    orphan.mkdir()
    (orphan / "home").symlink_to(precious)
    (orphan / "file").symlink_to(precious / "work.txt")
    make_old(orphan)
    assert sweep_owned_folders(str(tmp_path)) == [str(orphan)]
    assert not orphan.exists() and (precious / "work.txt").read_text() == "keep me"
