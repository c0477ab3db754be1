"""Record and replay as a plugin: its `smolagent` flags (`--record`, `--replay`)."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import RunOptionSpec, lazy


@hookimpl
def smol_run_options() -> Iterable[RunOptionSpec]:
    return [
        RunOptionSpec(
            "record and replay",
            lazy("smol_core.replay.run_options:configure"),
            lazy("smol_core.replay.run_options:apply"),
        )
    ]
