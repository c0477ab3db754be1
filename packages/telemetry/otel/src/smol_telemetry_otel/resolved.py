"""What one `instrument()` call asks for, resolved against the environment: the value that makes
switching tracing on idempotent, and the variables that hand the same settings to a team's agents.

Why resolve first: the environment (`SMOL_TRACE_FILE`, `OTEL_EXPORTER_OTLP_ENDPOINT`) and
`instrument()` used to make an instrumentor each, so every span went out twice, in two traces. Two
calls that resolve to equal `Resolved` values are the same tracing, and the second one is a no-op;
a call that resolves to another value replaces the first (the latest call wins).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from smol_telemetry_otel.attributes import CAPTURE_CONTENT_ENV, capture_from_environment

DEFAULT_OTLP_TRACES_URL = "http://localhost:4318/v1/traces"
"""Where the OTLP/HTTP exporter sends when no variable names an endpoint (the SDK's own default)."""

TRACE_FILE_ENV = "SMOL_TRACE_FILE"
ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
SERVICE_NAME_ENV = "OTEL_SERVICE_NAME"
DISABLED_ENV = "OTEL_SDK_DISABLED"


def traces_url(endpoint: str) -> str:
    """OTEL_EXPORTER_OTLP_ENDPOINT is a base URL; the traces go to its /v1/traces."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


def environment_url(env: Mapping[str, str]) -> str | None:
    """The OTLP traces URL the environment names, or None when it names none."""
    if env.get(TRACES_ENDPOINT_ENV):
        return env[TRACES_ENDPOINT_ENV]
    if env.get(ENDPOINT_ENV):
        return traces_url(env[ENDPOINT_ENV])
    return None


@dataclass(frozen=True)
class Resolved:
    """The whole meaning of an `instrument()` call. Objects of the caller's own (exporters, providers)
    count by identity: the same exporter passed twice is the same tracing, an equal new one is not."""

    otlp_url: str | None
    trace_file: str | None
    exporters: tuple[int, ...]
    tracer_provider: int | None
    meter_provider: int | None
    capture_content: bool
    service_name: str
    max_attribute_chars: int
    export_timeout: float

    def child_environment(self) -> dict[str, str]:
        """The variables with which an agent process of a team traces as this process does (an empty
        value: unset it there). Empty when this tracing cannot travel (a tracer provider of the
        caller's): the agents then follow the environment they inherit. The caller's own exporters
        stay in this process; the file and the endpoint travel."""
        if self.tracer_provider is not None or (self.otlp_url is None and self.trace_file is None):
            return {}
        return {
            TRACE_FILE_ENV: self.trace_file or "",
            TRACES_ENDPOINT_ENV: self.otlp_url or "",
            ENDPOINT_ENV: "",
            DISABLED_ENV: "",
            CAPTURE_CONTENT_ENV: "true" if self.capture_content else "false",
            SERVICE_NAME_ENV: self.service_name,
        }


def resolve(
    env: Mapping[str, str],
    endpoint: str | None,
    trace_file: str | os.PathLike[str] | None,
    exporters: Sequence[Any],
    capture_content: bool | None,
    service_name: str | None,
    tracer_provider: Any,
    meter_provider: Any,
    max_attribute_chars: int,
    export_timeout: float,
) -> Resolved:
    """A call's settings, the environment filling in what it leaves out: a call that names no
    destination (no endpoint, file, exporter or provider) traces where the environment says
    (`SMOL_TRACE_FILE` and/or the OTLP endpoint), and to the OTLP default when it says nowhere."""
    url: str | None = traces_url(endpoint) if endpoint is not None else None
    path = os.path.abspath(os.fspath(trace_file)) if trace_file is not None else None
    if tracer_provider is None and endpoint is None and trace_file is None and not exporters:
        from_env = env.get(TRACE_FILE_ENV) or None
        path = os.path.abspath(from_env) if from_env is not None else None
        url = environment_url(env)
        if url is None and path is None:
            url = DEFAULT_OTLP_TRACES_URL
    if tracer_provider is not None:  # the caller's provider holds the exporters: ours are unused
        url, path = None, None
    return Resolved(
        otlp_url=url,
        trace_file=path,
        exporters=tuple(id(exporter) for exporter in exporters) if tracer_provider is None else (),
        tracer_provider=None if tracer_provider is None else id(tracer_provider),
        meter_provider=None if meter_provider is None else id(meter_provider),
        capture_content=capture_from_environment(env) if capture_content is None else capture_content,
        service_name=service_name or env.get(SERVICE_NAME_ENV) or "smol",
        max_attribute_chars=max_attribute_chars,
        export_timeout=export_timeout,
    )
