"""OpenTelemetry traces of smol agents: runs, steps, model calls, code and tool calls, one trace
across a team's processes.

    import smol_telemetry_otel
    smol_telemetry_otel.instrument(endpoint="http://localhost:6006")   # or OTEL_EXPORTER_OTLP_ENDPOINT
    agent.run("...")                                                    # every run is a trace
    smol_telemetry_otel.uninstrument()

Without a call, the plugin switches itself on at the first run when `OTEL_EXPORTER_OTLP_ENDPOINT`
(or `SMOL_TRACE_FILE`) is set, unless `OTEL_SDK_DISABLED=true`.

Names resolve on first use: importing the package does not import OpenTelemetry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "instrument": "smol_telemetry_otel.setup",
    "uninstrument": "smol_telemetry_otel.setup",
    "OtelInstrumentor": "smol_telemetry_otel.instrumentor",
    "JsonLinesSpanExporter": "smol_telemetry_otel.file_exporter",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_telemetry_otel.file_exporter import JsonLinesSpanExporter
    from smol_telemetry_otel.instrumentor import OtelInstrumentor
    from smol_telemetry_otel.setup import instrument, uninstrument
