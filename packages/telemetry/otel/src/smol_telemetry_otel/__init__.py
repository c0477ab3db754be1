"""OpenTelemetry traces of smol agents: runs, steps, model calls, code and tool calls, one trace
across a team's processes.

    import smol_telemetry_otel
    smol_telemetry_otel.instrument(endpoint="http://localhost:6006")   # or OTEL_EXPORTER_OTLP_ENDPOINT
    agent.run("...")                                                    # every run is a trace
    smol_telemetry_otel.uninstrument()

Without a call, the plugin switches itself on at the first run when `OTEL_EXPORTER_OTLP_ENDPOINT`
(or `SMOL_TRACE_FILE`) is set, unless `OTEL_SDK_DISABLED=true`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["JsonLinesSpanExporter", "OtelInstrumentor", "instrument", "uninstrument"]

if TYPE_CHECKING:
    from smol_telemetry_otel.file_exporter import JsonLinesSpanExporter
    from smol_telemetry_otel.instrumentor import OtelInstrumentor
    from smol_telemetry_otel.setup import instrument, uninstrument

_WHERE = {
    "instrument": "smol_telemetry_otel.setup",
    "uninstrument": "smol_telemetry_otel.setup",
    "OtelInstrumentor": "smol_telemetry_otel.instrumentor",
    "JsonLinesSpanExporter": "smol_telemetry_otel.file_exporter",
}


def __getattr__(name: str) -> Any:
    """Names resolve on first use: importing the package does not import OpenTelemetry."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'smol_telemetry_otel' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
