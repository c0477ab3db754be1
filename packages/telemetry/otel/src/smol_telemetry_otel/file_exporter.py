"""`JsonLinesSpanExporter`: spans as OTLP JSON lines in a file, for users without a tracing server.

Each export appends one line, an OTLP `ExportTraceServiceRequest` in the OTLP/JSON encoding (ids in
hex, times as strings of nanoseconds): what an OpenTelemetry Collector's file exporter writes and
its file receiver reads, so the file can be replayed into any tool later; `smol trace FILE` prints
it as a tree. Several processes (a team's agents) may append to one file: each line is written
with a single `write` on a file opened for appending, so lines do not interleave.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Any) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in (attributes or {}).items()]


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.context
    record: dict[str, Any] = {
        "traceId": format(context.trace_id, "032x") if context else "",
        "spanId": format(context.span_id, "016x") if context else "",
        "name": span.name,
        "kind": span.kind.value + 1,  # OTLP counts from SPAN_KIND_UNSPECIFIED = 0
        "startTimeUnixNano": str(span.start_time or 0),
        "endTimeUnixNano": str(span.end_time or 0),
        "attributes": _attributes(span.attributes),
        "events": [
            {
                "timeUnixNano": str(event.timestamp),
                "name": event.name,
                "attributes": _attributes(event.attributes),
            }
            for event in span.events
        ],
        "status": {"code": span.status.status_code.value},
    }
    if span.parent is not None:
        record["parentSpanId"] = format(span.parent.span_id, "016x")
    if span.status.description:
        record["status"]["message"] = span.status.description
    return record


def encode_request(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """An OTLP/JSON `ExportTraceServiceRequest` of `spans`, grouped by resource and scope."""
    grouped: dict[int, tuple[Any, dict[tuple[str, str], list[ReadableSpan]]]] = {}
    for span in spans:
        resource_key = id(span.resource)
        if resource_key not in grouped:
            grouped[resource_key] = (span.resource, defaultdict(list))
        scope = span.instrumentation_scope
        grouped[resource_key][1][
            (scope.name if scope else "", (scope.version or "") if scope else "")
        ].append(span)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(resource.attributes if resource else {})},
                "scopeSpans": [
                    {"scope": {"name": name, "version": version}, "spans": [_span(s) for s in members]}
                    for (name, version), members in scopes.items()
                ],
            }
            for resource, scopes in grouped.values()
        ]
    }


class JsonLinesSpanExporter(SpanExporter):
    """Appends each batch of spans to `path` as one OTLP JSON line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not spans:
            return SpanExportResult.SUCCESS
        line = json.dumps(encode_request(spans), ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        try:
            with self._lock:
                descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(descriptor, data)
                finally:
                    os.close(descriptor)
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
