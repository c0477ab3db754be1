"""Registers the `redis` transport with smol. Imports nothing: redis-py loads when one is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import TransportSpec, hookimpl, lazy


@hookimpl
def smol_transports() -> Iterable[TransportSpec]:
    return [
        TransportSpec(
            "redis",
            lazy("smol_transport_redis.transport:RedisTransport"),
            "Redis Streams with consumer groups: at-least-once delivery across processes and machines; "
            "needs a server URL (redis://host:6379/0).",
            preload=("redis", "smol_transport_redis.transport"),
        )
    ]
