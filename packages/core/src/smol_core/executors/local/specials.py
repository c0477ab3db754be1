"""Reduced views of powerful modules, for users who authorize them by name (and for asyncio).

Decision (documented in the package docstring): `sys`, `os`, `importlib` and `io` are never handed
out whole, even when authorized; naming them gives these views. `sys.modules`, `os.system`,
`importlib.reload` and the like fail with a message saying why. `operator` keeps its functions but
`attrgetter`/`methodcaller` go through the attribute guard. `asyncio` is always importable, reduced
to what concurrent tool calls need. Stdlib-only.
"""

from __future__ import annotations

import importlib
import io
import operator
import os
import posixpath
import sys
from collections.abc import Callable
from typing import Any

from .runtime import Guards
from .views import Authorizer, ModuleView, make_view

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
        attrs.update(stdout=stdout, stderr=stdout, argv=[""], exit=sys.exit)
        return make_view(
            "sys", attrs, lambda n: f"sys.{n} is not available in the sandbox (reduced view of sys)"
        )

    return make


def _os_view(guards: Guards) -> Maker:
    def make(auth: Authorizer) -> ModuleView:
        path_names = [n for n in dir(posixpath) if not n.startswith("_")]
        path = make_view(
            "os.path",
            {n: getattr(posixpath, n) for n in path_names if n not in ("os", "sys", "stat", "genericpath")},
        )
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


def _asyncio_view(guards: Guards) -> Maker:
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
        return make_view(
            "asyncio",
            {n: getattr(asyncio, n) for n in names if hasattr(asyncio, n)},
            lambda n: f"asyncio.{n} is not available in the sandbox (reduced view of asyncio)",
        )

    return make


def special_views(guards: Guards, stdout: Any) -> dict[str, Maker]:
    return {
        "sys": _sys_view(guards, stdout),
        "os": _os_view(guards),
        "importlib": _importlib_view(guards),
        "io": _io_view(guards),
        "operator": _operator_view(guards),
        "asyncio": _asyncio_view(guards),
    }


def preload(name: str) -> None:
    """Import a module the special view needs (used by tests)."""
    importlib.import_module(name)
