"""Imported first in a team's fork server: gives it the host's exact import path (`start_method`).

The server starts as `python -c ...` with the host's path on `PYTHONPATH` (so that this module, and
smol_core with it, is found where the host finds it) and, in `HOST_IMPORT_PATH`, the host's exact
`sys.path` and its own `PYTHONPATH`. Here, before the server imports anything else, `sys.path`
becomes that list and the host's `PYTHONPATH` is put back, so the server's environment is the
host's. Imported anywhere else (the variable is not set), it does nothing.

The server also ignores SIGHUP. A closed terminal sends it to the whole process group, the server
included, and CPython's server protects itself from Ctrl-C only: it died, and multiprocessing reads
a dead server as the end of every agent it forked (exit code 255). So the host saw its agents gone
while they still ran, stopping and writing their reports into the team folder it was removing
("Directory not empty"), and no agent got SIGKILL after the grace period. The server ends with its
host anyway (it reads EOF from the host's pipe), and agents choose their own SIGHUP handling.
"""

from __future__ import annotations

import json
import os
import signal
import sys

HOST_IMPORT_PATH = "SMOL_FORK_SERVER_IMPORT_PATH"


def host_import_path(sys_path: list[str], pythonpath: str | None) -> str:
    """What the host puts in `HOST_IMPORT_PATH` for its fork server."""
    return json.dumps({"sys_path": sys_path, "pythonpath": pythonpath})


def take_host_path() -> None:
    """In the fork server: set `sys.path` to the host's, restore the host's `PYTHONPATH` (once: the
    variable goes) and ignore SIGHUP."""
    raw = os.environ.pop(HOST_IMPORT_PATH, None)
    if raw is None:
        return
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    given = json.loads(raw)
    sys_path, pythonpath = given.get("sys_path"), given.get("pythonpath")
    if isinstance(sys_path, list) and all(isinstance(entry, str) for entry in sys_path):
        sys.path[:] = sys_path
    if isinstance(pythonpath, str):
        os.environ["PYTHONPATH"] = pythonpath
    else:
        os.environ.pop("PYTHONPATH", None)


take_host_path()
