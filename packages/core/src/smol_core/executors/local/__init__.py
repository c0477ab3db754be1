"""The local executor: real CPython in a sandboxed worker process, near native speed.

Layers (see each module's docstring):
  guards.py, runtime.py, views.py, specials.py: the language layer (AST checks and rewrites, guarded
      getattr/import/format, curated builtins, filtered module views);
  audit.py: a PEP 578 audit hook (runtime compiles, file access, process/network/ctypes events);
  sandbox.py, seccomp.py: the OS layer (rlimits, namespaces, Landlock, the seccomp filter), each
      where available;
  lifetime.py: time and lifetime from inside the worker (a kernel timer and CPU limit per action,
      death with its host, no threads left behind);
  worker.py, channel.py: the worker process (stdlib-only, reusable by container executors);
  process.py, executor.py: the host side (spawning, the spare worker, deadlines, tool calls).

Powerful modules: `os`, `sys`, `importlib` and `io` are never handed out whole. Naming one exactly in
`additional_authorized_imports` gives a reduced view (paths and scratch-folder files for `os`;
`stdout`, `version` and friends for `sys`, whose `modules` maps only what the code may import, to
its views; a guarded `import_module` for `importlib`; `StringIO` and `BytesIO` for `io`). Other dangerous modules (subprocess, ctypes, pickle, socket, ...) are never
granted by `"*"`: they must be named exactly, and then come whole, with the OS layer still in force.

This `__init__` stays import-light (PEP 562 lazy attributes): the worker imports this package too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smol_core.executors.local.executor import LocalPythonExecutor, protection_report

__all__ = ["LocalPythonExecutor", "protection_report"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from smol_core.executors.local import executor

        return getattr(executor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
