"""Test doubles and kits that are public API: scripted models, and suites executor plugins subclass.

Every name is imported on first use: `HostileWorkerConformance` and `TransportConformance` need
pytest, and importing smol_core.testing must not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports

_EXPORTS = {
    "ExecutorConformance": "smol_core.testing.executor_conformance",
    "FunctionModel": "smol_core.testing.models",
    "HostileWorkerConformance": "smol_core.testing.hostile_worker",
    "ModelConformance": "smol_core.testing.model_conformance",
    "ResumableScript": "smol_core.testing.crash",
    "ScriptedModel": "smol_core.testing.models",
    "standin_argv": "smol_core.testing.hostile_worker",
    "TransportConformance": "smol_core.testing.transport_conformance",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_core.testing.crash import ResumableScript
    from smol_core.testing.executor_conformance import ExecutorConformance
    from smol_core.testing.hostile_worker import HostileWorkerConformance, standin_argv
    from smol_core.testing.model_conformance import ModelConformance
    from smol_core.testing.models import FunctionModel, ScriptedModel
    from smol_core.testing.transport_conformance import TransportConformance
