"""A PEP 578 audit hook in the worker: the layer between the language guards and the OS.

Why: some stdlib paths run code or touch the system from C, where no AST rewrite can see them:
`typing.get_type_hints` evals string annotations, loaders open files, a reachable event loop can spawn
processes. The hook sees those events, whatever the path that led there: it validates source compiled
at run time with the static checker, keeps file writes in the scratch folder (and reads in the Python
installation and the scratch folder), and refuses process, network, ctypes, code-object and
gc-walking events. Portable: it works where the OS offers no namespaces, seccomp or Landlock.
Stdlib-only.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import pathlib
import site
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from typing import Any

from .guards import StaticViolation, check_runtime_source
from .sandbox import SETTINGS
from .views import SandboxPermissionError, SandboxViolation

DENIED_EVENTS = frozenset(
    {
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.startfile",
        "subprocess.Popen",
        "pty.spawn",
        "os.kill",
        "os.killpg",
        "signal.pthread_kill",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.addressof",
        "ctypes.cdata",
        "ctypes.string_at",
        "ctypes.wstring_at",
        "ctypes.call_function",
        "ctypes.cdata/buffer",
        "function.__new__",
        "sys.settrace",
        "sys.setprofile",
        "sys._current_frames",
        "sys._current_exceptions",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "pickle.find_class",
        "os.chdir",
        "os.chmod",
        "os.chown",
        "os.link",
        "os.symlink",
        "os.truncate",
        "resource.setrlimit",
        "resource.prlimit",
        "sys.addaudithook",
        "cpython.run_command",
        "cpython.run_file",
        "cpython.run_module",
        "os.setxattr",
        "os.removexattr",
        "mmap.__new__",
        "builtins.input",
        "webbrowser.open",
        "shutil.rmtree",
        "shutil.chown",
        "syslog.openlog",
        "fcntl.ioctl",
        "sqlite3.connect",
        "urllib.Request",
        "ftplib.connect",
        "smtplib.connect",
        "os.add_dll_directory",
        # interpreters and code objects made outside the guards
        "cpython.PyInterpreterState_New",
        "cpython._PySys_ClearAuditHooks",
        "_xxsubinterpreters.create",
        "_interpreters.create",
    }
)

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class AuditPolicy:
    """State of the hook: the scratch folder, readable roots, and whether our own compile is running."""

    def __init__(self, scratch: str, read_roots: Iterable[str]) -> None:
        self.scratch = os.path.realpath(scratch)
        roots = {os.path.realpath(r) for r in read_roots if r}
        roots.add(self.scratch)
        self.read_roots = tuple(sorted(r.rstrip("/") + "/" for r in roots if r != "/"))
        self.write_roots = (self.scratch.rstrip("/") + "/",)
        self.trusted_compile = False
        self.trusted_thread: int | None = None  # see `trusted()`
        self.enabled = False
        # The scratch folder's total size, where no size-limited tmpfs holds it (sandbox.py).
        limit = SETTINGS.scratch_limit_mb
        self.scratch_budget = None if SETTINGS.mounted_scratch or not limit else limit * 1024 * 1024

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """The worker's own operations while code runs (its clock's rlimit and timer, its event loop's
        self-pipe): the hook lets them through, in this thread only, so that a thread the code
        started cannot slip its own calls into the window."""
        previous, self.trusted_thread = self.trusted_thread, _thread.get_ident()
        try:
            yield
        finally:
            self.trusted_thread = previous

    def _allowed(self, path: str, roots: tuple[str, ...], exact: tuple[str, ...]) -> bool:
        real = os.path.realpath(path)
        return real in exact or (real + "/").startswith(roots)

    def check_open(self, path: Any, mode: Any, flags: Any) -> None:
        path = _exact_path(path, "opening")
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        )
        if writing:
            if not self._allowed(path, self.write_roots, ("/dev/null",)):
                raise SandboxPermissionError(
                    f"writing '{path}' is not allowed: files can only be written in the scratch folder ({self.scratch})"
                )
            if self.scratch_budget is not None and self.over_budget():
                raise SandboxPermissionError(
                    f"the scratch folder is full ({self.scratch_budget // (1024 * 1024)} MiB in all): "
                    "delete files before writing more"
                )
        elif not self._allowed(path, self.read_roots, _READABLE_FILES):
            raise SandboxPermissionError(
                f"reading '{path}' is not allowed: only the scratch folder ({self.scratch}) and the Python installation are readable"
            )

    def over_budget(self) -> bool:
        """True when the scratch folder holds more than its budget (fallback for hosts without tmpfs)."""
        return self.scratch_budget is not None and scratch_usage(self.scratch) > self.scratch_budget

    def _is_module_file(self, filename: str) -> bool:
        return (
            filename.endswith(".py")
            and os.path.isfile(filename)
            and not (os.path.realpath(filename) + "/").startswith(self.write_roots)
        )

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.enabled or self.trusted_thread == _thread.get_ident():
            return
        if event == "open":
            self.check_open(*args[:3])
        elif event == "compile":
            if self.trusted_compile:
                return
            source, filename = args[0], args[1] if len(args) > 1 else None
            if isinstance(filename, str | bytes) and self._is_module_file(os.fsdecode(filename)):
                return  # the import system compiling a module of the installation (no writable pycache)
            if isinstance(source, str | bytes):
                self.trusted_compile = True  # our own ast.parse below compiles too
                try:
                    check_runtime_source(source)
                except StaticViolation as exc:
                    raise SandboxViolation(f"code compiled at run time was refused: {exc}") from None
                finally:
                    self.trusted_compile = False
        elif event in DENIED_EVENTS:
            if event == "cpython._PySys_ClearAuditHooks" and sys.is_finalizing():
                return
            raise SandboxViolation(f"'{event}' is not allowed in the sandbox")
        elif event == "socket.__new__":
            raise SandboxViolation(
                "creating sockets is not allowed in the sandbox (nor wrapping a descriptor as one)"
            )
        elif event in ("os.listdir", "os.scandir") and args and args[0] is not None:
            path = _exact_path(args[0], "listing")
            if not self._allowed(path, self.read_roots, ()):
                raise SandboxPermissionError(f"listing '{path}' is not allowed outside the scratch folder")
        elif event in _PATH_EVENTS:
            paths, dir_fds = _PATH_EVENTS[event]
            if any(type(args[i]) is int and args[i] != -1 for i in dir_fds if i < len(args)):
                raise SandboxPermissionError(f"'{event}' relative to a descriptor is not allowed")
            for i in paths:
                path = _exact_path(args[i], f"'{event}' on")
                if not self._allowed(path, self.write_roots, ()):
                    raise SandboxPermissionError(
                        f"'{event}' on '{path}' is not allowed outside the scratch folder"
                    )


# event -> (indexes of its path arguments, indexes of its dir_fd arguments), as CPython audits them
_PATH_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.remove": ((0,), (1,)),
    "os.rmdir": ((0,), (1,)),
    "os.mkdir": ((0,), (2,)),
    "os.utime": ((0,), (3,)),
    "os.rename": ((0, 1), (2, 3)),
    "os.replace": ((0, 1), (2, 3)),
}


# The stdlib's own path types: their conversion to str cannot be overridden (a subclass's can).
_PATH_TYPES: tuple[type, ...] = (
    pathlib.PurePath,
    pathlib.PurePosixPath,
    pathlib.Path,
    pathlib.PosixPath,
    os.DirEntry,
)


def _exact_path(path: Any, what: str) -> str:
    """The path an open or listing will use, as an exact `str`; refuses descriptors and odd objects.

    Why so strict: a descriptor number reaches whatever the worker has open (its protocol channel
    included), and the hook sees the caller's object, not the path C converted from it, so an object
    whose `__fspath__` or string methods answer differently the second time would pass the check with
    one path and open another. Exact `str`/`bytes` (subclasses are copied), and the stdlib's own path
    types (`pathlib`, `os.DirEntry`), whose conversions code cannot override, are accepted.
    """
    if isinstance(path, int):
        raise SandboxPermissionError(
            f"{what} a file descriptor by number is not allowed in the sandbox: open files by path"
        )
    if isinstance(path, str):
        return str.__getitem__(path, slice(None))
    if isinstance(path, bytes):
        return os.fsdecode(bytes.__getitem__(path, slice(None)))
    if type(path) in _PATH_TYPES:
        return str.__getitem__(os.fspath(path), slice(None))
    raise SandboxPermissionError(
        f"{what} a path given as {type(path).__name__} is not allowed: use a str, bytes or pathlib path"
    )


def remove_files_since(root: str, since: float) -> list[str]:
    """Delete the files below `root` changed at or after `since`; their paths, relative to `root`."""
    removed = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                if os.lstat(path).st_mtime >= since:
                    os.remove(path)
                    removed.append(os.path.relpath(path, root))
            except OSError:
                continue
    return sorted(removed)


def scratch_usage(root: str) -> int:
    """Bytes held by the files below `root` (allocated blocks, so sparse files count as written)."""
    total = 0
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    info = entry.stat(follow_symlinks=False)
                    total += max(info.st_blocks * 512, 0)
            except OSError:
                continue
    return total


_READABLE_FILES = (
    "/dev/null",
    "/dev/urandom",
    "/dev/random",
    "/etc/localtime",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/etc/mime.types",
)


def python_read_roots() -> list[str]:
    """A copy of `_python_read_roots()`, computed once (a warm template computes it for its workers)."""
    global _READ_ROOTS
    if _READ_ROOTS is None:
        _READ_ROOTS = _python_read_roots()
    return list(_READ_ROOTS)


_READ_ROOTS: list[str] | None = None


def _python_read_roots() -> list[str]:
    """Folders the interpreter itself must read from: the standard library, the installed packages,
    the worker's own package, and what the dynamic loader needs; never a project folder.

    Why not `sys.path` as is: an editable install puts a project's source folder on it (and some put
    the project root), next to its `.env` and `.git`. Only the real installation folders are kept;
    of the other entries, only the folder of the worker's own package (`smol_core`) is readable.
    """
    paths = sysconfig.get_paths()
    roots = [paths.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    with contextlib.suppress(AttributeError):  # a site module without it (old virtualenv)
        roots += site.getsitepackages()
    roots += [
        p
        for p in sys.path
        if p and os.path.basename(p.rstrip("/")) in ("site-packages", "dist-packages", "lib-dynload")
    ]
    here = globals().get("__file__")  # absent when the worker runs from the bundle (bundle.py)
    if isinstance(here, str):
        own = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(here))))
        if os.path.basename(own) == "smol_core":
            roots.append(own)
    roots += [
        os.path.join(sys.base_prefix, "lib"),  # libpython and the base installation's own libraries
        "/usr/share/zoneinfo",
        "/sys/devices/system/cpu",
        "/usr/lib",
        "/usr/lib64",
        "/usr/local/lib",
        "/lib",
        "/lib64",
        "/usr/share/locale",
    ]
    seen: list[str] = []
    for root in roots:
        if root and os.path.isdir(root) and root not in seen:
            seen.append(root)
    return seen


def install(policy: AuditPolicy) -> None:
    sys.addaudithook(policy.hook)
    policy.enabled = True
