"""A lease knows where its owner runs: /proc is asked only about an owner of this host, boot and pid
namespace; any other owner holds its run until its lease expires.

Before: a lease was judged alive by reading /proc/<pid> in the reader's own pid namespace, so a run
driven from a container with the same host name was taken over while it ran (its pid, read here,
was another process or none), and a long job started twice.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from smol_core.durable import RunLockedError, SQLiteStore
from smol_core.durable.leases import boot_id, describe, new_owner, owner_alive, parse_owner, pid_namespace

TTL = 900.0
HOST = socket.gethostname()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _lease_row(store: SQLiteStore, owner: str, renewed_at: float) -> None:
    store.list()  # creates the file
    with sqlite3.connect(store.path) as db:
        db.execute(
            "INSERT OR REPLACE INTO leases (run_id, owner, renewed_at) VALUES ('r1', ?, ?)",
            (owner, renewed_at),
        )


def test_an_owner_names_its_boot_and_pid_namespace() -> None:
    owner = parse_owner(new_owner())
    assert owner is not None
    assert (owner.host, owner.pid) == (HOST, str(os.getpid()))
    assert owner.boot_id == boot_id() != "" and owner.pid_namespace == pid_namespace() != ""


def test_an_owner_of_this_place_whose_process_died_is_taken_over_at_once() -> None:
    owner = f"{HOST}|{_dead_pid()}|123|abc|{boot_id()}|{pid_namespace()}"
    assert not owner_alive(owner, time.time(), TTL)


@pytest.mark.parametrize("where", ["pid namespace", "boot"])
def test_an_owner_of_this_host_name_elsewhere_holds_its_run_until_it_expires(where: str) -> None:
    """A made-up owner: this host name, a pid that is dead here, another pid namespace (or boot)."""
    namespace, boot = (
        ("pid:[1]", boot_id()) if where == "pid namespace" else (pid_namespace(), "another-boot")
    )
    owner = f"{HOST}|{_dead_pid()}|123|abc|{boot}|{namespace}"
    assert owner_alive(owner, time.time(), TTL)
    assert not owner_alive(owner, time.time() - TTL - 1, TTL)


def test_a_store_does_not_take_over_a_fresh_run_of_another_pid_namespace(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.sqlite3")
    owner = f"{HOST}|{_dead_pid()}|123|abc|{boot_id()}|pid:[1]"
    _lease_row(store, owner, time.time())
    with pytest.raises(RunLockedError):
        store.acquire("r1")
    _lease_row(store, owner, time.time() - TTL - 1)
    store.release(store.acquire("r1"))
    store.close()


def test_an_owner_string_of_an_older_smol_still_parses() -> None:
    owner = f"{HOST}|{_dead_pid()}|123|abc"
    assert describe(owner).startswith("process ") and parse_owner(owner) is not None
    assert owner_alive(owner, time.time(), TTL)  # where it ran is not known: its lease decides
    assert not owner_alive(owner, time.time() - TTL - 1, TTL)


@pytest.mark.parametrize("renewed_at", [float("nan"), float("inf"), "yesterday", None])
def test_a_lease_time_no_smol_wrote_counts_as_expired(renewed_at: object) -> None:
    assert not owner_alive("other-host|1|2|3|4|5", renewed_at, TTL)


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from smol_core.durable import SQLiteStore
    store = SQLiteStore(sys.argv[1])
    lease = store.acquire("r1")
    print(lease.owner, flush=True)
    time.sleep(120)
    """
)


def _in_another_pid_namespace(store: Path) -> subprocess.Popen[str] | None:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return None
    holder = subprocess.Popen(
        [
            "unshare",
            "--pid",
            "--fork",
            "--kill-child",
            "--mount-proc",
            sys.executable,
            "-c",
            _HOLDER,
            str(store),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline()
    if not line:
        holder.wait(10)
        return None
    return holder


def test_a_real_process_in_another_pid_namespace_is_not_taken_over_while_fresh(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    holder = _in_another_pid_namespace(path)
    if holder is None:
        pytest.skip("unshare --pid needs root and a kernel that allows it")
    try:
        store = SQLiteStore(path)
        (owner,) = [row[0] for row in sqlite3.connect(path).execute("SELECT owner FROM leases")]
        assert parse_owner(owner).pid_namespace != pid_namespace()  # type: ignore[union-attr]
        with pytest.raises(RunLockedError):
            store.acquire("r1")
        with sqlite3.connect(path) as db:
            db.execute("UPDATE leases SET renewed_at = ?", (time.time() - TTL - 1,))
        store.release(store.acquire("r1"))
        store.close()
    finally:
        holder.kill()
        holder.wait(10)
