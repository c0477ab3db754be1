"""`instrument()` and `uninstrument()`: switch smol's traces on and off for this process.

Export is batched and runs on the SDK's background thread, so a slow or dead collector never slows
a run: the exporter gives up after `export_timeout` seconds, and what it says about it is one
warning per minute at most (`_WarningOnce`), not a traceback per batch.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import metrics
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from smol_core.plugin_api import add_instrumentor, remove_instrumentor
from smol_telemetry_otel.attributes import DEFAULT_MAX_CHARS, capture_from_environment
from smol_telemetry_otel.instrumentor import OtelInstrumentor

logger = logging.getLogger("smol_telemetry_otel")

SCOPE = "smol_telemetry_otel"
DEFAULT_EXPORT_TIMEOUT = 5.0
WARNING_INTERVAL_SECONDS = 60.0
# the OTLP exporter's own loggers: one error (and a traceback) per failed batch; ours says it once
_EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.http._common",
    "opentelemetry.sdk.trace.export",
)

_lock = threading.Lock()
_active: list[tuple[OtelInstrumentor, TracerProvider | None]] = []


class _WarningOnce(SpanExporter):
    """Wraps an exporter: a failed export is one logged warning per minute, never an exception."""

    def __init__(self, inner: SpanExporter, where: str) -> None:
        self.inner = inner
        self.where = where
        self.failures = 0
        self._last_warning = -WARNING_INTERVAL_SECONDS

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as error:
            result = SpanExportResult.FAILURE
            self._warn(f"{type(error).__name__}: {error}")
            return result
        if result is not SpanExportResult.SUCCESS:
            self._warn("the exporter reported a failure")
        return result

    def _warn(self, why: str) -> None:
        self.failures += 1
        now = time.monotonic()
        if now - self._last_warning >= WARNING_INTERVAL_SECONDS:
            self._last_warning = now
            logger.warning(
                "smol could not export traces to %s (%s); %d batch(es) lost so far. The run goes on.",
                self.where,
                why[:300],
                self.failures,
            )

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


def _traces_url(endpoint: str) -> str:
    """OTEL_EXPORTER_OTLP_ENDPOINT is a base URL; the traces go to its /v1/traces."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


def _otlp_exporter(endpoint: str | None, timeout: float) -> tuple[SpanExporter, str]:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    for name in _EXPORTER_LOGGERS:  # ours is the one warning users see about a dead collector
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if endpoint is not None:
        url = _traces_url(endpoint)
        return OTLPSpanExporter(endpoint=url, timeout=timeout), url
    exporter = OTLPSpanExporter(timeout=timeout)  # reads the standard OTEL_EXPORTER_OTLP_* variables
    return exporter, str(getattr(exporter, "_endpoint", "the OTLP endpoint"))


def instrument(
    endpoint: str | None = None,
    trace_file: str | os.PathLike[str] | None = None,
    exporters: Sequence[SpanExporter] = (),
    capture_content: bool | None = None,
    service_name: str | None = None,
    tracer_provider: Any = None,
    meter_provider: Any = None,
    max_attribute_chars: int = DEFAULT_MAX_CHARS,
    export_timeout: float = DEFAULT_EXPORT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
) -> OtelInstrumentor | None:
    """Trace every agent run of this process; returns the instrumentor (None if `OTEL_SDK_DISABLED`).

    Where spans go: OTLP/HTTP to `endpoint` (a base URL such as http://localhost:6006, or the
    standard `OTEL_EXPORTER_OTLP_ENDPOINT` when neither this nor a file nor `exporters` is given),
    OTLP JSON lines appended to `trace_file`, and any `exporters` of your own. `tracer_provider`: use
    yours (already set up with exporters) instead. Content (prompts, replies, code, tool arguments
    and results) is recorded only with `capture_content=True` or
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Metrics go to `meter_provider`, or to
    the global one (a no-op unless your application set one up).

    Agents of a team run in processes of their own: they trace when the environment says so
    (`OTEL_EXPORTER_OTLP_ENDPOINT` or `SMOL_TRACE_FILE`), which they inherit.
    """
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        logger.info("OTEL_SDK_DISABLED=true: smol's traces stay off")
        return None
    owned: TracerProvider | None = None
    provider = tracer_provider
    if provider is None:
        chosen: list[SpanExporter] = list(exporters)
        if trace_file is not None:
            from smol_telemetry_otel.file_exporter import JsonLinesSpanExporter

            chosen.append(_WarningOnce(JsonLinesSpanExporter(trace_file), os.fspath(trace_file)))
        if endpoint is not None or not chosen:
            exporter, where = _otlp_exporter(endpoint, export_timeout)
            chosen.append(_WarningOnce(exporter, where))
        resource = Resource.create(
            {
                "service.name": service_name or env.get("OTEL_SERVICE_NAME") or "smol",
                "process.pid": os.getpid(),
            }
        )
        owned = TracerProvider(
            resource=resource, span_limits=SpanLimits(max_attribute_length=max_attribute_chars)
        )
        for exporter in chosen:
            owned.add_span_processor(
                BatchSpanProcessor(exporter, export_timeout_millis=int(export_timeout * 1000))
            )
        provider = owned
    capture = capture_from_environment(env) if capture_content is None else capture_content
    meter = (meter_provider or metrics.get_meter_provider()).get_meter(SCOPE)
    instrumentor = OtelInstrumentor(
        provider.get_tracer(SCOPE),
        meter=meter,
        capture_content=capture,
        max_chars=max_attribute_chars,
        flush=getattr(provider, "force_flush", None),
    )
    with _lock:
        _active.append((instrumentor, owned))
    add_instrumentor(instrumentor)
    return instrumentor


def uninstrument(instrumentor: OtelInstrumentor | None = None) -> None:
    """Stop tracing (one instrumentor, or every one `instrument()` made): what is buffered is exported
    first, and providers made by `instrument()` are shut down."""
    with _lock:
        chosen = [entry for entry in _active if instrumentor is None or entry[0] is instrumentor]
        for entry in chosen:
            _active.remove(entry)
    for made, owned in chosen:
        remove_instrumentor(made)
        if owned is not None:
            owned.shutdown()


def from_environment() -> OtelInstrumentor | None:
    """What the plugin's hook builds at the first run when the environment asks for traces:
    `SMOL_TRACE_FILE` (a JSON-lines file) and/or the standard `OTEL_EXPORTER_OTLP_*` endpoint."""
    env = os.environ
    trace_file = env.get("SMOL_TRACE_FILE") or None
    wants_otlp = bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
    if trace_file is None and not wants_otlp:
        return None
    exporters: list[SpanExporter] = []
    if wants_otlp:
        exporter, where = _otlp_exporter(None, DEFAULT_EXPORT_TIMEOUT)
        exporters.append(_WarningOnce(exporter, where))
    return instrument(trace_file=trace_file, exporters=exporters)
