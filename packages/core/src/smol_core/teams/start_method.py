"""How a team's local agent processes start: forked from a warm fork server, or spawned.

`forkserver` (the default where the platform has it): one server process imports the agent loop
once, and each agent is a fork of it, several times faster to start than a fresh interpreter.
`spawn` (kept as an option, and the fallback where there is no fork server: Windows) starts each
agent as a new interpreter that imports everything itself.

An agent must see what a spawned one would: the host's import path and environment *as they are
when the team starts*. multiprocessing gives a forked agent the host's `sys.path` (its preparation
data), but not the server: CPython starts it as `python -c ...` with the interpreter's default path
and passes the host's `sys.path` along without ever applying it. So a host whose path was changed
at run time (a test runner, a script run from another folder, a source checkout or editable plugin
put on `sys.path`) got a server that preloaded *other* copies of the modules, or none, and agents
that ran those. Here the server is started with the host's path (`PYTHONPATH` for its first
imports, then `fork_server_path` sets it exactly); and since the server keeps the environment it
started with, each agent takes the host's current environment as its first act (`with_environment`).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

from smol_core.teams.fork_server_path import HOST_IMPORT_PATH, host_import_path

StartMethod = Literal["forkserver", "spawn"]
DEFAULT_START_METHOD: StartMethod = "forkserver"

FORKSERVER_PRELOAD = (
    "smol_core.teams.fork_server_path",  # first: the host's import path, before anything else loads
    "smol_core.teams.worker",
    "smol_core.teams.tools",
    "smol_core.teams.console",
    "smol_core.agents.code_agent",
    "smol_core.agents.tool_calling_agent",
    "smol_core.executors.local",  # its switches are read at first use, in the agent (host/switches.py)
    # what unpickling a team's `done` queue and shared counters imports (ctypes with them): ~4 ms per agent
    "smol_core.teams.fifo_inbox",
    "multiprocessing.queues",
    "multiprocessing.synchronize",
    "multiprocessing.sharedctypes",
    "multiprocessing.popen_forkserver",
    "smol_core.teams.fork_server_ready",  # last: the host's main script, which may import any of the above
)
"""What the fork server imports once, so that each agent process starts warm."""
_LAST_PRELOAD = FORKSERVER_PRELOAD[-1]

_starting = threading.Lock()

_served: set[str] | None = None
"""What the fork server a team started preloads beyond `FORKSERVER_PRELOAD` (transports' client
libraries); None while no team has started one (a server someone else started is left alone)."""


def agent_context(method: StartMethod = DEFAULT_START_METHOD) -> Any:
    """The multiprocessing context agents start with: `method`'s, or `spawn` where the platform has
    no fork server (Windows) or its socket's address cannot be made."""
    if method == "forkserver" and "forkserver" not in multiprocessing.get_all_start_methods():
        method = "spawn"
    if method == "forkserver" and not _fork_server_address_fits():
        method = "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(_preload_list(_served or set()))
    return context


def _preload_list(served: set[str]) -> list[str]:
    """What the fork server imports: `FORKSERVER_PRELOAD`, with `served` (transports' client
    libraries) before its last module (which imports the host's script, that may import them)."""
    modules = [name for name in FORKSERVER_PRELOAD if name != _LAST_PRELOAD]
    return [*modules, *sorted(served), _LAST_PRELOAD]


_SOCKET_PATH_BYTES = 107  # a Unix socket's address (sun_path) holds 108 bytes, its NUL included
_LISTENER_NAME = len("/listener-") + 8


def _fork_server_address_fits() -> bool:
    """Whether the fork server's socket can be made: multiprocessing puts it in its temporary
    folder, made in TMPDIR on first use, and a TMPDIR deep in a job's or a test's folder makes that
    address too long ("AF_UNIX path too long" as the first agent starts). Such a host gets that
    folder under /tmp instead, if multiprocessing has not made it yet; else its agents are spawned."""
    import tempfile
    from multiprocessing import util

    if len(tempfile.gettempdir()) + len("/pymp-xxxxxxxx") + _LISTENER_NAME > _SOCKET_PATH_BYTES:
        with _starting:
            saved, tempfile.tempdir = tempfile.tempdir, "/tmp"
            try:
                util.get_temp_dir()  # made now under /tmp, unless made before
            finally:
                tempfile.tempdir = saved
    return len(util.get_temp_dir()) + _LISTENER_NAME <= _SOCKET_PATH_BYTES


def start_fork_server(context: Any, preload: Sequence[str] = (), agent_modules: Sequence[str] = ()) -> None:
    """Make sure `context`'s fork server runs (no-op for `spawn`), started with the host's import
    path if it starts now. One server serves the host's teams, so `agent_modules` (the modules of
    the objects its agents unpickle: their models' classes; an import that fails there is ignored)
    are imported in it where this team is the first. `preload` (the modules a transport's agents
    import: its client library, redis-py's 0.36 s) is owed to every team: a server that lacks it is
    started again with it, once no process of this host runs from it (the host's agents, or any
    other multiprocessing child), so a team over Redis after one over local queues does not pay
    that import in every agent."""
    global _served
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    with _starting:
        # the process's one server; its pid and `_stop` are private (stable since Python 3.4 and 3.8)
        server: Any = forkserver._forkserver
        wanted = set(preload)
        if _served is not None and server._forkserver_pid is not None and not wanted <= _served:
            if multiprocessing.active_children():
                wanted = set()  # its processes would lose their server: this team imports on its own
            else:
                server._stop()
        if server._forkserver_pid is None:
            _served = wanted | (_served or set())
            context.set_forkserver_preload(_preload_list(_served))
        # the server copies this process's environment as it starts: set for that moment only
        saved = os.environ.get("PYTHONPATH")
        path = host_sys_path()
        os.environ[HOST_IMPORT_PATH] = host_import_path(path, saved, _main_path(), agent_modules)
        os.environ["PYTHONPATH"] = os.pathsep.join(entry for entry in path if os.pathsep not in entry)
        try:
            forkserver.ensure_running()
        finally:
            del os.environ[HOST_IMPORT_PATH]
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved


def _main_path() -> str | None:
    """The host's main script, as multiprocessing gives it to each child (None: a module run with
    `-m`, an interactive session)."""
    from multiprocessing import spawn

    main_path = spawn.get_preparation_data("ignore").get("init_main_from_path")
    return main_path if isinstance(main_path, str) else None


def host_sys_path() -> list[str]:
    """This process's `sys.path` as a child must see it: the current folder ('') named, as
    multiprocessing names it for a spawned child."""
    from multiprocessing import process

    # the folder the host started in (multiprocessing's ORIGINAL_DIR, missing from its type stubs)
    original: str = getattr(process, "ORIGINAL_DIR", os.getcwd())
    return [original if entry == "" else entry for entry in sys.path if isinstance(entry, str)]


def with_host_environment(context: Any, target: Callable[..., None]) -> Callable[..., None]:
    """`target`, run in an agent that first takes the host's current environment, where the agent
    forks from the fork server (whose environment is the host's when the server started); a
    spawned agent inherits the host's as it is already."""
    if context.get_start_method() != "forkserver":
        return target
    return functools.partial(with_environment, dict(os.environ), target)


def with_environment(environment: dict[str, str], target: Callable[..., None], *args: Any) -> None:
    """`target(*args)` in a process whose environment is `environment`, exactly.

    Only the differences are applied: the agent forks from a server whose environment is mostly the
    host's already, and each `os.environ` write is a `putenv`/`unsetenv` (clearing and refilling
    the whole environment cost every agent of a team about 1 ms)."""
    for name in [name for name in os.environ if name not in environment]:
        del os.environ[name]
    for name, value in environment.items():
        if os.environ.get(name) != value:
            os.environ[name] = value
    target(*args)
