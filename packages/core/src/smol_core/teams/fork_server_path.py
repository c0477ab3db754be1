"""Imported first in a team's fork server: gives it the host's exact import path (`start_method`).

The server starts as `python -c ...` with the host's path on `PYTHONPATH` (so that this module, and
smol_core with it, is found where the host finds it) and, in `HOST_IMPORT_PATH`, the host's exact
`sys.path` and its own `PYTHONPATH`. Here, before the server imports anything else, `sys.path`
becomes that list and the host's `PYTHONPATH` is put back, so the server's environment is the
host's. Imported anywhere else (the variable is not set), it does nothing.

The host's main script is noted here and imported once, after every other preload
(`fork_server_ready`), as multiprocessing's `'__main__'` preload means to do: CPython 3.11 never hands the server its path (the server asks for `main_path`, the host's
preparation data calls it `init_main_from_path`), so every agent ran the script again as it
started (its imports: 4 ms and more per agent). An agent now finds it imported and runs it no more.

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
from collections.abc import Sequence

HOST_IMPORT_PATH = "SMOL_FORK_SERVER_IMPORT_PATH"


def host_import_path(
    sys_path: list[str],
    pythonpath: str | None,
    main_path: str | None = None,
    agent_modules: Sequence[str] = (),
) -> str:
    """What the host puts in `HOST_IMPORT_PATH` for its fork server."""
    return json.dumps(
        {
            "sys_path": sys_path,
            "pythonpath": pythonpath,
            "main_path": main_path,
            "agent_modules": list(agent_modules),
        }
    )


def take_host_path() -> None:
    """In the fork server: set `sys.path` to the host's, restore the host's `PYTHONPATH` (once: the
    variable goes), ignore SIGHUP and note the host's main script."""
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
    global _host_main
    main_path = given.get("main_path")
    _host_main = main_path if isinstance(main_path, str) else None
    modules = given.get("agent_modules")
    if isinstance(modules, list):
        _agent_modules[:] = [name for name in modules if isinstance(name, str)]


_host_main: str | None = None
"""The host's main script, in the fork server (set by `take_host_path`)."""
_agent_modules: list[str] = []
"""The modules of the objects the host's first team hands its agents (their models' classes), in
the fork server (set by `take_host_path`)."""


def import_agent_modules() -> None:
    """In the fork server: the modules every agent of the host's first team imports as it unpickles
    its settings (a model object's class), imported once here. One that fails is left to each
    agent, which meets the error itself, as before."""
    import importlib

    for name in _agent_modules:
        try:
            importlib.import_module(name)
        except Exception:
            continue


def import_host_main() -> None:
    """In the fork server, once every other preload is imported (`fork_server_ready`): the host's
    main script as `__mp_main__`, as multiprocessing would import it in each agent. Not earlier:
    the script imports smol_core, whose teams package is half-imported while this module runs."""
    if _host_main is None:
        return
    from multiprocessing import process, spawn

    current = process.current_process()
    current._inheriting = True  # type: ignore[attr-defined]  # what multiprocessing's own preload sets
    try:
        spawn.import_main_path(_host_main)
    except Exception:  # each agent then runs it as before, and meets the error itself
        pass
    finally:
        del current._inheriting  # type: ignore[attr-defined]


take_host_path()
