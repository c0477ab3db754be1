"""Teams as a plugin: the `local` transport (named pipes between agent processes on this machine),
and the `smolagent` flags that run a team (`--num-agents`, `--transport`, ...)."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugins.hookspecs import hookimpl
from smol_core.plugins.specs import RunOptionSpec, TransportSpec, lazy


@hookimpl
def smol_transports() -> Iterable[TransportSpec]:
    return [
        TransportSpec(
            "local",
            lazy("smol_core.teams.local:LocalTransport"),
            "named pipes between agent processes on this machine (no server).",
            aliases=("multiprocessing",),
        )
    ]


@hookimpl
def smol_run_options() -> Iterable[RunOptionSpec]:
    return [
        RunOptionSpec(
            "teams",
            lazy("smol_core.teams.run_options:configure"),
            lazy("smol_core.teams.run_options:apply"),
        )
    ]
