"""smol-transport-ray: agents' messages through a mailbox actor on a Ray cluster (at-least-once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

# imported on first use: plugin discovery imports this package, and must not import Ray
_EXPORTS = {"RayTransport": "smol_transport_ray.transport", "close_supervisors": "smol_transport_ray.pool"}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_transport_ray.pool import close_supervisors
    from smol_transport_ray.transport import RayTransport
