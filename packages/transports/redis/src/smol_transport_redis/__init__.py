"""smol-transport-redis: agents' messages over Redis Streams (at-least-once, de-duplicated by id)."""

from __future__ import annotations

__all__ = ["RedisTransport"]


def __getattr__(name: str) -> object:
    if name == "RedisTransport":
        from smol_transport_redis.transport import RedisTransport

        return RedisTransport
    raise AttributeError(f"module 'smol_transport_redis' has no attribute {name!r}")
