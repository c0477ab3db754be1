"""`smolagents`, mapped onto smol's public names: the import shim of the conformance run.

Why: smolagents' own test suite is the contract of `from smolagents import X` becoming
`from smol_core import X`. This package holds no behaviour. `import smolagents` and every
`smolagents.<module>` resolve a name through smol's public front door (`smol_core`, which also
resolves smolagents' names for classes that live in smol's plugins, or raises an ImportError that
says why a name is absent), then through the smol modules that play that module's part (table
below), so that `unittest.mock.patch("smolagents.models.X")` writes through to the smol module that
really reads `X`. It is put on `sys.path` only by `scripts/conformance/run.py`, never installed.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

# smolagents module -> the smol modules that hold its names (read after smol_core's public names;
# writes from mock.patch go to every one of them that holds the name)
HOMES: dict[str, tuple[str, ...]] = {
    "smolagents": (),
    "smolagents.agents": (
        "smol_core.agents.multi_step",
        "smol_core.agents.code_agent",
        "smol_core.agents.tool_calling_agent",
        "smol_core.agents.prompts",
        "smol_core.agents.serialization",
    ),
    "smolagents.agent_types": ("smol_core.agent_types",),
    "smolagents.memory": ("smol_core.memory", "smol_core.messages"),
    "smolagents.models": (
        "smol_core.models.base",
        "smol_core.models.api_model",
        "smol_core.models.callable_model",
        "smol_core.models.capabilities",
        "smol_core.models.message_list",
        "smol_core.models.tool_calls",
        "smol_core.models.options",
        "smol_core.models.model_registry",
        "smol_core.messages",
        "smol_core.models.retry",
    ),
    "smolagents.monitoring": ("smol_core.monitoring",),
    "smolagents.tools": ("smol_core.tools.tool", "smol_core.tools.decorator", "smol_core.tools.collection"),
    "smolagents.tool_validation": ("smol_core.tools.validation",),
    "smolagents._function_type_hints_utils": ("smol_core.type_hints", "smol_core.tools.schema"),
    "smolagents.utils": (
        "smol_core.errors",
        "smol_core.agents.parsing",
        "smol_core.source_code",
        "smol_core.agents.app_template",
        "smol_core.models.message_list",
        "smol_core.models.retry",
    ),
    "smolagents.local_python_executor": (
        "smol_core.executors.local",
        "smol_core.executors.evaluate",
        "smol_core.executors.smolagents_support",
    ),
    "smolagents.remote_executors": (),
    "smolagents.default_tools": ("smol_core.tools.base_tools",),
    "smolagents.serialization": (),
    "smolagents.cli": ("smol_core.cli.smolagents_cli", "smol_core.cli.smolagent"),
    "smolagents.gradio_ui": ("smol_ui_gradio", "smol_ui_gradio.streaming", "smol_ui_gradio.rendering"),
    "smolagents.mcp_client": ("smol_tool_mcp",),
    "smolagents.vision_web_browser": ("smol_ui_webagent.vision_web_browser", "smol_ui_webagent"),
}


def _modules(homes: tuple[str, ...]) -> list[types.ModuleType]:
    found = []
    for home in homes:
        try:
            found.append(importlib.import_module(home))
        except ImportError:
            continue
    return found


class SmolagentsModule(types.ModuleType):
    """A smolagents module whose names are smol's: reads resolve, writes go through."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        object.__setattr__(self, "_homes", HOMES.get(name, ()))

    def __getattr__(self, attribute: str) -> Any:
        import smol_core

        if attribute in ("__version__", "__all__"):
            return getattr(smol_core, attribute)
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)

        try:
            return getattr(smol_core, attribute)
        except (AttributeError, ImportError) as front_door_error:
            for module in _modules(self._homes):
                if attribute in vars(module):
                    return vars(module)[attribute]
            raise AttributeError(
                f"module {self.__name__!r} has no attribute {attribute!r}"
            ) from front_door_error

    def __setattr__(self, attribute: str, value: Any) -> None:
        owners = [module for module in _modules(self._homes) if attribute in vars(module)]
        import smol_core

        if attribute in vars(smol_core):
            owners.append(smol_core)
        saved = vars(self).setdefault("_originals", {})
        if owners and attribute not in saved:
            saved[attribute] = [(owner, vars(owner)[attribute]) for owner in owners]
        for owner in owners:
            setattr(owner, attribute, value)
        if not owners:
            object.__setattr__(self, attribute, value)

    def __delattr__(self, attribute: str) -> None:
        # A patch that found the name outside this module's own __dict__ (mock.patch, pytest's
        # monkeypatch) undoes itself by deleting it: put back what the smol modules held instead.
        originals = vars(self).get("_originals", {}).pop(attribute, None)
        if originals is not None:
            for owner, value in originals:
                setattr(owner, attribute, value)
            return
        owners = [module for module in _modules(self._homes) if attribute in vars(module)]
        for owner in owners:
            delattr(owner, attribute)
        if not owners and attribute in vars(self):
            object.__delattr__(self, attribute)


class _SmolagentsFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: Any, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.startswith("smolagents.") and fullname.count(".") == 1:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=False)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return SmolagentsModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        return None


sys.meta_path.insert(0, _SmolagentsFinder())
_package = sys.modules[__name__]
_shim = SmolagentsModule(__name__)
_shim.__dict__.update({k: v for k, v in vars(_package).items() if k.startswith("__")})
sys.modules[__name__] = _shim
