"""smol-transport-ray: agents' messages through a mailbox actor on a Ray cluster (at-least-once)."""

from __future__ import annotations

__all__ = ["RayTransport"]


def __getattr__(name: str) -> object:
    if name == "RayTransport":
        from smol_transport_ray.transport import RayTransport

        return RayTransport
    raise AttributeError(f"module 'smol_transport_ray' has no attribute {name!r}")
