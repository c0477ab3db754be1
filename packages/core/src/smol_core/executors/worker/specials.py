"""Reduced views of powerful modules, for users who authorize them by name (and for asyncio).

Decision (documented in the package docstring): `sys`, `os`, `importlib` and `io` are never handed
out whole, even when authorized; naming them gives these views. `os.system`, `importlib.reload` and the
like fail with a message saying why. `operator` keeps its functions but
`attrgetter`/`methodcaller` go through the attribute guard. `asyncio` is always importable, reduced
to what concurrent tool calls need: its loops are `SandboxEventLoop`s, which refuse every method that
reaches a descriptor, a process, a thread or the network (and code never holds one anyway: `get_loop`
and loops' private state are denied attributes). Stdlib-only.
"""

from __future__ import annotations

import importlib
import io
import operator
import os
import posixpath
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from .module_policy import DANGEROUS_MODULES
from .runtime import Guards
from .views import Authorizer, ForbiddenImportError, ModuleView, SandboxViolation, make_view

Maker = Callable[[Authorizer], ModuleView]


def _sys_view(guards: Guards, stdout: Any) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        names = (
            "version",
            "version_info",
            "platform",
            "maxsize",
            "float_info",
            "int_info",
            "byteorder",
            "hexversion",
            "maxunicode",
            "getrecursionlimit",
            "getsizeof",
            "exc_info",
            "float_repr_style",
            "get_int_max_str_digits",
            "implementation",
            "getdefaultencoding",
        )
        attrs: dict[str, Any] = {n: getattr(sys, n) for n in names if hasattr(sys, n)}
        attrs.update(stdout=stdout, stderr=stdout, argv=[""], exit=sys.exit, modules=_sys_modules(auth))
        return make_view(
            "sys", attrs, lambda n: f"sys.{n} is not available in the sandbox (reduced view of sys)"
        )

    return make


def _sys_modules(auth: Authorizer) -> Mapping[str, ModuleView]:
    """`sys.modules` as the code sees it: the loaded modules it may import, each as its view.

    Why a mapping of views: code written for CPython reads `sys.modules[name]`; here it gets what
    `import name` would give, and a module it may not import fails as reaching it through another
    module does ("Forbidden access to module: os"). Nothing is imported, nothing can be added or
    removed, and the authorizer stays in closures, out of the code's reach (no attribute holds it).
    """

    def names() -> list[str]:
        return [name for name in list(sys.modules) if auth.refusal(name) is None]

    def get(name: object) -> ModuleView:
        if type(name) is not str:
            raise KeyError(name)
        reason = auth.refusal(name)
        # a dangerous module is refused by name, loaded or not: the answer is the same either way
        if name not in sys.modules and (reason is None or name.split(".")[0] not in DANGEROUS_MODULES):
            raise KeyError(name)
        if reason is not None:
            raise SandboxViolation(
                f"Forbidden access to module: {name} (in sys.modules): it is not allowed; {reason}"
            )
        return auth.import_module(name)

    class SysModules(Mapping[str, ModuleView]):
        __slots__ = ()

        def __getitem__(self, name: str) -> ModuleView:
            return get(name)

        def __contains__(self, name: object) -> bool:
            return type(name) is str and name in sys.modules and auth.refusal(name) is None

        def __iter__(self) -> Iterator[str]:
            return iter(names())

        def __len__(self) -> int:
            return len(names())

        def __repr__(self) -> str:
            return f"<sys.modules: the {len(self)} loaded modules the code may import>"

    return SysModules()


def _os_path_view(auth: Authorizer) -> ModuleView:
    """`os.path` (posixpath) without the modules it holds: string work on paths, and the few checks
    (`exists`, `getsize`) that go through the sandbox's file rules like `open` does."""
    path_names = [n for n in dir(posixpath) if not n.startswith("_")]
    return make_view(
        "os.path",
        {n: getattr(posixpath, n) for n in path_names if n not in ("os", "sys", "stat", "genericpath")},
    )


def _os_view(guards: Guards) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        path = auth.import_module("os.path")
        names = (
            "getcwd",
            "listdir",
            "scandir",
            "walk",
            "sep",
            "linesep",
            "pathsep",
            "curdir",
            "pardir",
            "extsep",
            "name",
            "makedirs",
            "mkdir",
            "remove",
            "unlink",
            "rename",
            "replace",
            "rmdir",
            "stat",
            "getpid",
            "cpu_count",
            "urandom",
            "fspath",
            "PathLike",
            "strerror",
            "devnull",
            "SEEK_SET",
            "SEEK_CUR",
            "SEEK_END",
            "get_terminal_size",
            "terminal_size",
        )
        env = dict(os.environ)
        attrs: dict[str, Any] = {n: getattr(os, n) for n in names if hasattr(os, n)}
        attrs.update(path=path, environ=env, getenv=env.get)
        return make_view(
            "os",
            attrs,
            lambda n: (
                f"os.{n} is not available in the sandbox (reduced view of os: paths and files in the scratch folder only)"
            ),
        )

    return make


def _importlib_view(guards: Guards) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        def import_module(name: str, package: str | None = None) -> Any:
            if package or name.startswith("."):
                raise ImportError("relative imports are not allowed")
            if type(name) is str and auth.refusal(name) is not None:
                # reached through a function, as through another module: smolagents' words first
                raise ForbiddenImportError(
                    f"Forbidden access to module: {name}; Import of {name} is not allowed; {auth.refusal(name)}"
                )
            return auth.import_module(name)

        return make_view(
            "importlib",
            {"import_module": import_module},
            lambda n: f"importlib.{n} is not available in the sandbox",
        )

    return make


def _io_view(guards: Guards) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        names = (
            "StringIO",
            "BytesIO",
            "TextIOWrapper",
            "BufferedReader",
            "BufferedWriter",
            "IOBase",
            "TextIOBase",
            "RawIOBase",
            "BufferedIOBase",
            "UnsupportedOperation",
            "SEEK_SET",
            "SEEK_CUR",
            "SEEK_END",
            "DEFAULT_BUFFER_SIZE",
        )
        return make_view(
            "io",
            {n: getattr(io, n) for n in names},
            lambda n: f"io.{n} is not available in the sandbox (no file access)",
        )

    return make


def _operator_view(guards: Guards) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        attrs = {n: getattr(operator, n) for n in dir(operator) if not n.startswith("_")}

        def attrgetter(*names: str) -> Callable[[Any], Any]:
            def get_one(obj: Any, dotted: str) -> Any:
                for part in dotted.split("."):
                    obj = guards.getattr(obj, part)
                return obj

            if len(names) == 1:
                return lambda obj: get_one(obj, names[0])
            return lambda obj: tuple(get_one(obj, n) for n in names)

        def methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
            return lambda obj: guards.getattr(obj, name)(*args, **kwargs)

        attrs.update(attrgetter=attrgetter, methodcaller=methodcaller)
        return make_view("operator", attrs)

    return make


# Event-loop methods that reach descriptors, processes, threads, signals or the network.
_LOOP_DENIED = (
    "add_writer",
    "remove_writer",
    "connect_read_pipe",
    "connect_write_pipe",
    "subprocess_exec",
    "subprocess_shell",
    "create_connection",
    "create_server",
    "create_unix_connection",
    "create_unix_server",
    "create_datagram_endpoint",
    "connect_accepted_socket",
    "sock_recv",
    "sock_recv_into",
    "sock_recvfrom",
    "sock_recvfrom_into",
    "sock_sendall",
    "sock_sendto",
    "sock_connect",
    "sock_accept",
    "sock_sendfile",
    "sendfile",
    "start_tls",
    "getaddrinfo",
    "getnameinfo",
    "add_signal_handler",
    "remove_signal_handler",
    "run_in_executor",
    "set_default_executor",
)


def sandbox_loop_factory(
    channel_fd: Callable[[], int], trusted: Callable[[], AbstractContextManager[Any]]
) -> Callable[[], Any]:
    """A maker of the event loops code runs in: the worker's `await` and the view's `asyncio.run`.

    `channel_fd` is the one descriptor a reader may watch (the channel, for concurrent tool calls);
    `trusted` lets the loop's own self-pipe (a socket pair) through the audit hook.
    """
    import asyncio

    def refuse(name: str) -> Callable[..., Any]:
        def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise SandboxViolation(f"loop.{name}() is not available in the sandbox")

        refused.__name__ = name
        return refused

    class SandboxEventLoop(asyncio.SelectorEventLoop):
        def add_reader(self, fd: Any, callback: Callable[..., Any], *args: Any) -> None:  # type: ignore[override]
            if fd != channel_fd():
                raise SandboxViolation("loop.add_reader() is not available in the sandbox")
            super().add_reader(fd, callback, *args)

        def remove_reader(self, fd: Any) -> bool:
            if fd != channel_fd():
                raise SandboxViolation("loop.remove_reader() is not available in the sandbox")
            return bool(super().remove_reader(fd))

    for name in _LOOP_DENIED:
        setattr(SandboxEventLoop, name, refuse(name))

    def new_loop() -> asyncio.AbstractEventLoop:
        if sys.platform == "emscripten":  # Pyodide's own loop: no descriptors or processes to reach
            return asyncio.new_event_loop()
        with trusted():
            return SandboxEventLoop()

    return new_loop


def _asyncio_run(new_loop: Callable[[], Any]) -> Callable[..., Any]:
    """`asyncio.run` on a sandbox loop (the stdlib's would make an unrestricted one)."""
    import asyncio

    def run(main: Any, *, debug: bool | None = None) -> Any:
        if asyncio._get_running_loop() is not None:
            raise RuntimeError("asyncio.run() cannot be called from a running event loop")
        if not asyncio.iscoroutine(main):
            raise ValueError(f"a coroutine was expected, got {main!r}")
        loop = new_loop()
        try:
            return loop.run_until_complete(main)
        finally:
            try:
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    return run


def _asyncio_view(guards: Guards, new_loop: Callable[[], Any]) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        import asyncio

        names = (
            "gather",
            "sleep",
            "wait",
            "wait_for",
            "as_completed",
            "create_task",
            "ensure_future",
            "shield",
            "run",
            "Queue",
            "LifoQueue",
            "PriorityQueue",
            "QueueEmpty",
            "QueueFull",
            "Lock",
            "Event",
            "Semaphore",
            "BoundedSemaphore",
            "Condition",
            "TaskGroup",
            "timeout",
            "TimeoutError",
            "CancelledError",
            "InvalidStateError",
            "iscoroutine",
            "iscoroutinefunction",
            "FIRST_COMPLETED",
            "FIRST_EXCEPTION",
            "ALL_COMPLETED",
            "Task",
            "Future",
            "current_task",
            "all_tasks",
        )
        attrs = {n: getattr(asyncio, n) for n in names if hasattr(asyncio, n)}
        attrs["run"] = _asyncio_run(new_loop)
        return make_view(
            "asyncio",
            attrs,
            lambda n: f"asyncio.{n} is not available in the sandbox (reduced view of asyncio)",
        )

    return make


def special_views(guards: Guards, stdout: Any, new_loop: Callable[[], Any]) -> dict[str, Maker]:
    return {
        "sys": _sys_view(guards, stdout),
        "os": _os_view(guards),
        "os.path": _os_path_view,
        "importlib": _importlib_view(guards),
        "io": _io_view(guards),
        "operator": _operator_view(guards),
        "asyncio": _asyncio_view(guards, new_loop),
    }


def preload(name: str) -> None:
    """Import a module the special view needs (used by tests)."""
    importlib.import_module(name)
