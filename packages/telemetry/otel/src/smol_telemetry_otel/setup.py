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
from smol_telemetry_otel.attributes import DEFAULT_MAX_CHARS
from smol_telemetry_otel.instrumentor import OtelInstrumentor
from smol_telemetry_otel.resolved import TRACE_FILE_ENV, Resolved, environment_url, resolve

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

_lock = threading.RLock()  # from_environment() checks and switches on in one hold
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


def _otlp_exporter(url: str, timeout: float) -> tuple[SpanExporter, str]:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    for name in _EXPORTER_LOGGERS:  # ours is the one warning users see about a dead collector
        logging.getLogger(name).setLevel(logging.CRITICAL)
    # the other OTEL_EXPORTER_OTLP_* variables (headers, certificates) still apply
    return OTLPSpanExporter(endpoint=url, timeout=timeout), url


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

    Where spans go: OTLP/HTTP to `endpoint` (a base URL such as http://localhost:6006), OTLP JSON
    lines appended to `trace_file`, and any `exporters` of your own. With none of these (nor a
    `tracer_provider`), where the environment says: `SMOL_TRACE_FILE` and/or the standard
    `OTEL_EXPORTER_OTLP_ENDPOINT` (the OTLP default, localhost:4318, if it says nowhere).
    `tracer_provider`: use yours (already set up with exporters) instead. Content (prompts, replies,
    code, tool arguments and results) is recorded only with `capture_content=True` or
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Metrics go to `meter_provider`, or to
    the global one (a no-op unless your application set one up).

    Idempotent: a process has one tracing at a time. A call that resolves to the settings already
    active (the environment's, switched on at a first run, or an earlier call's) returns the active
    instrumentor and changes nothing; a call with other settings replaces it (the latest call wins:
    the previous one's buffered spans are exported and its provider shut down). Once a call has
    switched tracing on, the environment no longer switches anything at the first run.

    Agents of a team run in processes of their own: the team hands them this call's file, endpoint,
    content switch and service name (your own exporters and tracer provider cannot travel; with a
    tracer provider, the agents trace as their environment says).
    """
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        logger.info("OTEL_SDK_DISABLED=true: smol's traces stay off")
        return None
    wanted = resolve(
        env,
        endpoint,
        trace_file,
        exporters,
        capture_content,
        service_name,
        tracer_provider,
        meter_provider,
        max_attribute_chars,
        export_timeout,
    )
    with _lock:
        replaced = list(_active)
        if len(replaced) == 1 and replaced[0][0].resolved == wanted:
            return replaced[0][0]
        instrumentor, owned = _build(wanted, exporters, tracer_provider, meter_provider)
        _active[:] = [(instrumentor, owned)]
        for previous, _ in replaced:
            remove_instrumentor(previous)
        add_instrumentor(instrumentor)
    for _, previous_owned in replaced:  # outside the lock: shutting down exports what is buffered
        if previous_owned is not None:
            previous_owned.shutdown()
    return instrumentor


def _build(
    wanted: Resolved, exporters: Sequence[SpanExporter], tracer_provider: Any, meter_provider: Any
) -> tuple[OtelInstrumentor, TracerProvider | None]:
    """The instrumentor for `wanted`, and the tracer provider made for it (None: the caller's)."""
    owned: TracerProvider | None = None
    provider = tracer_provider
    if provider is None:
        chosen: list[SpanExporter] = list(exporters)
        if wanted.trace_file is not None:
            from smol_telemetry_otel.file_exporter import JsonLinesSpanExporter

            chosen.append(_WarningOnce(JsonLinesSpanExporter(wanted.trace_file), wanted.trace_file))
        if wanted.otlp_url is not None:
            exporter, where = _otlp_exporter(wanted.otlp_url, wanted.export_timeout)
            chosen.append(_WarningOnce(exporter, where))
        resource = Resource.create({"service.name": wanted.service_name, "process.pid": os.getpid()})
        owned = TracerProvider(
            resource=resource, span_limits=SpanLimits(max_attribute_length=wanted.max_attribute_chars)
        )
        for exporter in chosen:
            owned.add_span_processor(
                BatchSpanProcessor(exporter, export_timeout_millis=int(wanted.export_timeout * 1000))
            )
        provider = owned
    meter = (meter_provider or metrics.get_meter_provider()).get_meter(SCOPE)
    instrumentor = OtelInstrumentor(
        provider.get_tracer(SCOPE),
        meter=meter,
        capture_content=wanted.capture_content,
        max_chars=wanted.max_attribute_chars,
        flush=getattr(provider, "force_flush", None),
        resolved=wanted,
    )
    return instrumentor, owned


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
    `SMOL_TRACE_FILE` (a JSON-lines file) and/or the standard `OTEL_EXPORTER_OTLP_*` endpoint.

    Tracing already switched on (an `instrument()` call before the first run) wins: its instrumentor
    is returned as it is, so the environment never adds a second one."""
    with _lock:
        if _active:
            return _active[-1][0]
        env = os.environ
        if not (env.get(TRACE_FILE_ENV) or environment_url(env)):
            return None
        return instrument()
