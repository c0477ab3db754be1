"""Registers the `ray` transport with smol. Imports nothing: Ray loads when a transport is built."""

from __future__ import annotations

from collections.abc import Iterable

from smol_core.plugin_api import TransportSpec, hookimpl, lazy


@hookimpl
def smol_transports() -> Iterable[TransportSpec]:
    return [
        TransportSpec(
            "ray",
            lazy("smol_transport_ray.transport:RayTransport"),
            "Mailbox actors on a Ray cluster: at-least-once delivery across processes and machines; "
            "starts a local cluster, or joins one (--transport-url auto | host:6379 | ray://head:10001); "
            "each agent runs under a Ray actor on the cluster.",
            launcher=lazy("smol_transport_ray.launcher:launcher_for"),
        )
    ]
