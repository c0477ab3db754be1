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

import os
import sys
from collections.abc import Iterable
from typing import Any

from .guards import StaticViolation, check_runtime_source
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
        self.enabled = False

    def _allowed(self, path: str, roots: tuple[str, ...], exact: tuple[str, ...]) -> bool:
        real = os.path.realpath(path)
        return real in exact or (real + "/").startswith(roots)

    def check_open(self, path: Any, mode: Any, flags: Any) -> None:
        if isinstance(path, int):
            return  # an already-open descriptor
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        )
        if writing:
            if not self._allowed(path, self.write_roots, ("/dev/null",)):
                raise SandboxPermissionError(
                    f"writing '{path}' is not allowed: files can only be written in the scratch folder ({self.scratch})"
                )
        elif not self._allowed(path, self.read_roots, _READABLE_FILES):
            raise SandboxPermissionError(
                f"reading '{path}' is not allowed: only the scratch folder ({self.scratch}) and the Python installation are readable"
            )

    def _is_module_file(self, filename: str) -> bool:
        return (
            filename.endswith(".py")
            and os.path.isfile(filename)
            and not (os.path.realpath(filename) + "/").startswith(self.write_roots)
        )

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.enabled:
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
            raise SandboxViolation(f"'{event}' is not allowed in the sandbox")
        elif event in ("os.listdir", "os.scandir") and isinstance(args[0], str | bytes):
            path = os.fsdecode(args[0])
            if not self._allowed(path, self.read_roots, ()):
                raise SandboxPermissionError(f"listing '{path}' is not allowed outside the scratch folder")
        elif event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.replace", "os.utime"):
            for path in args[:2]:
                if isinstance(path, str | bytes) and not self._allowed(
                    os.fsdecode(path), self.write_roots, ()
                ):
                    raise SandboxPermissionError(
                        f"'{event}' on '{os.fsdecode(path)}' is not allowed outside the scratch folder"
                    )


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
    """Folders the interpreter itself must read from: the installation and sys.path."""
    roots = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        "/usr/share/zoneinfo",
        "/sys/devices/system/cpu",
        "/usr/lib",
        "/usr/lib64",
        "/usr/local/lib",
        "/lib",
        "/lib64",
        "/usr/share/locale",
    ]
    roots += [p for p in sys.path if p and os.path.isdir(p)]
    roots = [r for r in roots if os.path.isdir(r)]
    return roots


def install(policy: AuditPolicy) -> None:
    sys.addaudithook(policy.hook)
    policy.enabled = True
