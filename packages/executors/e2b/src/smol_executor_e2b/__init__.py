"""smol-executor-e2b: agents' code runs in an E2B cloud sandbox, under smol's own worker and guards.

`CodeAgent(executor_type="e2b")` with E2B_API_KEY set, or `E2BExecutor(...)` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use: plugin discovery imports this package, and must not import the E2B SDK
_EXPORTS = {"E2BExecutor": "smol_executor_e2b.executor"}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_executor_e2b.executor import E2BExecutor
