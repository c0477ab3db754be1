"""What a worker imports before its `config`, so that taking the config costs only the walls.

A spare worker does it while it waits, and the warm template (template.py) once for all the workers
it forks. Only what the runtime has: a WebAssembly worker has no `resource`, and gets what it has.
"""

from __future__ import annotations

import contextlib
import importlib


def warm_up() -> None:
    """Import now what a worker would import while taking its `config` (the event loop of
    `specials.py`, the rlimits, the read roots' sysconfig data)."""
    for name in ("asyncio", "resource"):  # sandbox_loop_factory's, sandbox.apply_rlimits's
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from . import audit, session  # noqa: F401 - everything `serve` needs

    audit.python_read_roots()
