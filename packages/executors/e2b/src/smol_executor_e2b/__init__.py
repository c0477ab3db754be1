"""smol-executor-e2b: agents' code runs in an E2B cloud sandbox, under smol's own worker and guards.

`CodeAgent(executor_type="e2b")` with E2B_API_KEY set, or `E2BExecutor(...)` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smol_executor_e2b.executor import E2BExecutor

__all__ = ["E2BExecutor"]


def __getattr__(name: str) -> Any:
    if name == "E2BExecutor":
        from smol_executor_e2b.executor import E2BExecutor

        return E2BExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
