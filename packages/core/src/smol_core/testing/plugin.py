"""The test doubles as a plugin: saved agents that used a scripted model load again by its name."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import ModelSpec, lazy


@hookimpl
def smol_models() -> Iterable[ModelSpec]:
    return [
        ModelSpec(
            "scripted",
            lazy("smol_core.testing.models:ScriptedModel"),
            "Replies from a list (tests).",
            test_double=True,
        ),
        ModelSpec(
            "function",
            lazy("smol_core.testing.models:FunctionModel"),
            "Replies from a function (tests).",
            test_double=True,
        ),
    ]
