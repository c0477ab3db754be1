"""The `python -I -c` program that starts a local worker process from smol's sources.

Why not `-m smol_core.executors.worker.main`: that would import `smol_core` (its `__init__`, the
agent loop, the plugins) into a process that must hold the worker folder alone. The program gives
the two parent packages empty module objects whose path is their folder, so only the worker's own
modules load. `sys.argv[1]` is the folder holding `smol_core`.
"""

from __future__ import annotations

__all__ = ["worker_program"]


def worker_program(call: str) -> str:
    """The program that sets up the packages, then runs `call` (the worker's or the template's entry)."""
    return (
        "import sys, types\n"
        "root = sys.argv[1]\n"
        "sys.path.insert(0, root)\n"
        "for n in ('smol_core', 'smol_core.executors'):\n"
        "    m = types.ModuleType(n); m.__path__ = [root + '/' + n.replace('.', '/')]; sys.modules[n] = m\n"
        f"{call}\n"
    )
