"""Test doubles and kits that are public API: scripted models, and suites executor plugins subclass.

`HostileWorkerConformance` and `TransportConformance` need pytest, so they are imported from here only
when asked for.
"""

from __future__ import annotations

from typing import Any

from smol_core.testing.models import FunctionModel, ScriptedModel

__all__ = [
    "ExecutorConformance",
    "FunctionModel",
    "HostileWorkerConformance",
    "ModelConformance",
    "ScriptedModel",
    "TransportConformance",
    "standin_argv",
]

_LAZY = {
    "ExecutorConformance": "smol_core.testing.executor_conformance",
    "HostileWorkerConformance": "smol_core.testing.hostile_worker",
    "ModelConformance": "smol_core.testing.model_conformance",
    "standin_argv": "smol_core.testing.hostile_worker",
    "TransportConformance": "smol_core.testing.transport_conformance",
}


def __getattr__(name: str) -> Any:
    """The pytest-based kits, imported on first use (importing smol_core.testing must not need pytest)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smol_core.testing' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
