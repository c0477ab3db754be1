"""The hooks a smol plugin can implement. Each returns typed records from `smol_core.plugins.specs`.

A plugin is a module (registered through the entry-point group `smol`) with functions marked
`@hookimpl`:

    from smol_core import hookimpl
    from smol_core.plugins.specs import ModelSpec, lazy

    @hookimpl
    def smol_models():
        return [ModelSpec("mymodel", lazy("my_pkg.model:MyModel"), "What it is.")]
"""

from __future__ import annotations

from collections.abc import Iterable

import pluggy

from smol_core.plugins.specs import CommandSpec, ExecutorSpec, ModelSpec, ToolSpec, TransportSpec

PROJECT_NAME = "smol"
ENTRY_POINT_GROUP = "smol"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def smol_models() -> Iterable[ModelSpec]:  # type: ignore[empty-body]
    """Model backends this plugin provides."""


@hookspec
def smol_executors() -> Iterable[ExecutorSpec]:  # type: ignore[empty-body]
    """Code executors this plugin provides."""


@hookspec
def smol_tools() -> Iterable[ToolSpec]:  # type: ignore[empty-body]
    """Tools (or tool families) this plugin provides."""


@hookspec
def smol_commands() -> Iterable[CommandSpec]:  # type: ignore[empty-body]
    """`smol` subcommands this plugin provides."""


@hookspec
def smol_transports() -> Iterable[TransportSpec]:  # type: ignore[empty-body]
    """Message transports between agent processes (`run_agents(..., transport="name")`).

    A transport's factory returns an object with the `smol_core.teams.Transport` methods
    (`send`, `receive`, `ack`, `close`); the SDK is imported inside it, never at discovery:

        from smol_core import hookimpl
        from smol_core.plugins.specs import TransportSpec, lazy

        @hookimpl
        def smol_transports():
            return [TransportSpec("redis", lazy("my_pkg.transport:RedisTransport"), "Redis Streams.")]
    """
