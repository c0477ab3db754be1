"""What a worker imports before its `config`, so that taking the config costs only the walls.

A spare worker does it while it waits, and the warm template (template.py) once for all the workers
it forks. Only what the runtime has: a WebAssembly worker has no `resource`, and gets what it has.
"""

from __future__ import annotations

import contextlib
import importlib
import os


def warm_up() -> None:
    """Import now what a worker would import while taking its `config` (the event loop of
    `specials.py`, the rlimits, the read roots' sysconfig data, and whether anyone may read them)."""
    for name in ("asyncio", "resource"):  # sandbox_loop_factory's, sandbox.apply_rlimits's
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from . import audit, sandbox, session  # noqa: F401 - everything `serve` needs

    roots = audit.python_read_roots()
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # a root host drops to nobody if they can read these
        sandbox.all_readable_by_others(roots)
