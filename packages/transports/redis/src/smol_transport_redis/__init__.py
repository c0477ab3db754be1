"""smol-transport-redis: agents' messages over Redis Streams (at-least-once, de-duplicated by id)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use: plugin discovery imports this package, and must not import the Redis client
_EXPORTS = {"RedisTransport": "smol_transport_redis.transport"}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_transport_redis.transport import RedisTransport
