"""`OtelInstrumentor`: the core's neutral instrumentor interface, answered with OpenTelemetry spans.

The core says "an agent run starts", "a model call reports usage", "this tool failed"; this turns
each into an OpenTelemetry span with the GenAI conventions' names and attributes (attributes.py),
records token usage and durations as the conventions' metrics, and carries the trace context in W3C
form for messages between agents. Nothing here may raise into the agent loop: the core guards each
call too, but a span that cannot be recorded is simply not recorded.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from opentelemetry import context as otel_context, trace
from opentelemetry.metrics import Meter
from opentelemetry.trace import SpanKind as OtelSpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from smol_telemetry_otel.attributes import (
    DEFAULT_MAX_CHARS,
    EVENT_CONTENT_KEYS,
    AttributeValue,
    convert,
    cut,
    error_message,
    opening_attributes,
    span_name,
)
from smol_telemetry_otel.resolved import Resolved

_PROPAGATOR = TraceContextTextMapPropagator()
# the conventions' bucket boundaries for token counts and for durations in seconds
_TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]
_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]


class _Metrics:
    """The conventions' histograms: tokens per model call, and durations of model calls, agent
    runs and tool calls."""

    def __init__(self, meter: Meter) -> None:
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=_TOKEN_BUCKETS,
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )
        self.tool_duration = meter.create_histogram(
            "gen_ai.execute_tool.duration",
            unit="s",
            description="Duration of a tool's execution.",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )


class OtelSpan:
    """One OpenTelemetry span behind the core's `SpanHandle`."""

    __slots__ = ("_ended", "_error_type", "_model", "_started", "_usage", "kind", "owner", "span")

    def __init__(self, owner: OtelInstrumentor, kind: str, span: trace.Span, model: str | None) -> None:
        self.owner = owner
        self.kind = kind
        self.span = span
        self._model = model
        self._usage: dict[str, int] = {}
        self._started = time.perf_counter()
        self._ended = False
        self._error_type: str | None = None

    def set(self, key: str, value: Any) -> None:
        if key.startswith("usage.") and isinstance(value, int):
            self._usage[key] = value
        for name, converted in convert(
            self.kind, key, value, self.owner.capture_content, self.owner.max_chars
        ):
            self.span.set_attribute(name, converted)

    def event(self, name: str, attributes: Mapping[str, Any]) -> None:
        self.span.add_event(name, self.owner.plain(attributes))

    def error(self, error: BaseException) -> None:
        error_type = type(error).__qualname__
        self._error_type = error_type
        message = error_message(error, self.owner.capture_content, self.owner.max_chars)
        self.span.set_status(Status(StatusCode.ERROR, cut(message, 500)))
        self.span.set_attribute("error.type", error_type)
        # not record_exception(): its whole stack trace would go out unbounded
        self.span.add_event("exception", {"exception.type": error_type, "exception.message": message})

    def activate(self) -> AbstractContextManager[Any]:
        return _Current(self.span)

    def end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self.span.end()
        self.owner.record_metrics(self)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._started


class _Current:
    """The span current for a `with` block: what `trace.use_span` does, without its generator-based
    context manager and exception handling (the core records errors itself), at every step."""

    __slots__ = ("_span", "_token")

    def __init__(self, span: trace.Span) -> None:
        self._span = span
        self._token: object = None

    def __enter__(self) -> trace.Span:
        self._token = otel_context.attach(trace.set_span_in_context(self._span))
        return self._span

    def __exit__(self, *exc: object) -> None:
        otel_context.detach(self._token)  # type: ignore[arg-type]


class OtelInstrumentor:
    """Spans through `tracer`, metrics through `meter` (None: no metrics). `resolved`: the settings
    `instrument()` made it from (None for one built by hand), which say whether a later call is the
    same tracing and what a team's agents inherit."""

    def __init__(
        self,
        tracer: trace.Tracer,
        meter: Meter | None = None,
        capture_content: bool = False,
        max_chars: int = DEFAULT_MAX_CHARS,
        flush: Any = None,
        resolved: Resolved | None = None,
    ) -> None:
        self.tracer = tracer
        self.resolved = resolved
        self.capture_content = capture_content
        self.max_chars = max_chars
        self.metrics = _Metrics(meter) if meter is not None else None
        self._flush = flush

    # --- the core's Instrumentor interface ------------------------------------------------------

    def start_span(self, kind: Any, name: str, attributes: Mapping[str, Any], parent: Any) -> OtelSpan:
        opening: dict[str, AttributeValue] = opening_attributes(kind)
        for key, value in attributes.items():
            opening.update(convert(kind, key, value, self.capture_content, self.max_chars))
        span = self.tracer.start_span(
            span_name(kind, cut(name, 200)),
            context=parent if isinstance(parent, otel_context.Context) else None,
            kind=OtelSpanKind.CLIENT if kind == "model" else OtelSpanKind.INTERNAL,
            attributes=opening,
        )
        model = attributes.get("model.id") if kind in ("model", "agent") else None
        handle = OtelSpan(self, kind, span, str(model) if model is not None else None)
        for key in ("usage.input_tokens", "usage.output_tokens"):
            if isinstance(attributes.get(key), int):
                handle._usage[key] = attributes[key]
        return handle

    def add_event(self, name: str, attributes: Mapping[str, Any]) -> None:
        span = trace.get_current_span()
        if span.is_recording():
            span.add_event(name, self.plain(attributes))

    def capture(self) -> otel_context.Context:
        return otel_context.get_current()

    def inject(self, context: Any) -> dict[str, str]:
        carrier: dict[str, str] = {}
        _PROPAGATOR.inject(carrier, context=context if isinstance(context, otel_context.Context) else None)
        return carrier

    def extract(self, carrier: Mapping[str, str]) -> otel_context.Context:
        return _PROPAGATOR.extract(dict(carrier))

    def flush(self, timeout_seconds: float) -> None:
        if self._flush is not None:
            self._flush(int(timeout_seconds * 1000))

    def child_environment(self) -> dict[str, str]:
        """What a team's agent process needs to trace as this one does (see `Resolved`)."""
        return {} if self.resolved is None else self.resolved.child_environment()

    # --- helpers --------------------------------------------------------------------------------

    def plain(self, attributes: Mapping[str, Any]) -> dict[str, AttributeValue]:
        """Event attributes: plain values, text cut; content keys only if the user opted in."""
        out: dict[str, AttributeValue] = {}
        for key, value in attributes.items():
            if key in EVENT_CONTENT_KEYS and not self.capture_content:
                continue
            if isinstance(value, bool | int | float):
                out[key] = value
            elif value is not None:
                out[key] = cut(str(value), self.max_chars)
        return out

    def record_metrics(self, handle: OtelSpan) -> None:
        if self.metrics is None or handle.kind not in ("model", "agent", "tool", "code"):
            return
        seconds = handle.seconds
        common: dict[str, AttributeValue] = {
            "gen_ai.operation.name": {"model": "chat", "agent": "invoke_agent"}.get(
                handle.kind, "execute_tool"
            )
        }
        if handle._model is not None:
            common["gen_ai.request.model"] = handle._model
        if handle._error_type is not None:
            common["error.type"] = handle._error_type
        if handle.kind in ("tool", "code"):
            self.metrics.tool_duration.record(seconds, common)
            return
        self.metrics.duration.record(seconds, common)
        if handle.kind != "model":
            return
        for key, token_type in (("usage.input_tokens", "input"), ("usage.output_tokens", "output")):
            if key in handle._usage:
                self.metrics.tokens.record(handle._usage[key], {**common, "gen_ai.token.type": token_type})
